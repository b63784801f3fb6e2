"""Saved searches and their digests, for staff: who is subscribed to what, counts per search
and language, and erasing an address with its history. Subscriptions are made only by the
people themselves (the listing page's form and the confirmation link), so nothing is added or
edited here."""

from django.contrib import admin, messages
from django.db.models import Count, Q

from tenders import subscriptions
from tenders.models import DigestDelivery, Subscription


class ConfirmedFilter(admin.SimpleListFilter):
    title = "confirmed"
    parameter_name = "confirmed"

    def lookups(self, request, model_admin):
        return [("yes", "Confirmed"), ("no", "Waiting for confirmation")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(confirmed_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(confirmed_at__isnull=True)
        return queryset


def counts_per_search() -> list[dict]:
    """Subscriptions per (search, language): confirmed and waiting."""
    return list(
        Subscription.objects.values("search_key", "lang")
        .annotate(
            confirmed=Count("pk", filter=Q(confirmed_at__isnull=False)),
            waiting=Count("pk", filter=Q(confirmed_at__isnull=True)),
        )
        .order_by("-confirmed", "-waiting", "search_key", "lang")
    )


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    change_list_template = "admin/tenders/subscription/change_list.html"
    list_display = ("email", "search_key", "lang", "confirmed_at", "created_at", "digests")
    list_filter = (ConfirmedFilter, "lang")
    search_fields = ("email", "search_key")
    readonly_fields = (
        "email",
        "lang",
        "query",
        "search_key",
        "created_at",
        "confirmed_at",
        "confirmation_sent_at",
    )
    actions = ["erase_addresses"]
    list_per_page = 100

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(sent=Count("deliveries"))

    @admin.display(description="digests", ordering="sent")
    def digests(self, obj):
        return obj.sent

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}), "counts": counts_per_search()}
        return super().changelist_view(request, extra_context)

    @admin.action(description="Erase these addresses with all their subscriptions and digests")
    def erase_addresses(self, request, queryset):
        if not self.has_delete_permission(request):
            self.message_user(request, "You may not erase addresses.", messages.ERROR)
            return
        addresses = sorted({e.lower() for e in queryset.values_list("email", flat=True)})
        erased = sum(subscriptions.erase_address(a) for a in addresses)
        self.message_user(
            request,
            f"Erased {len(addresses)} address(es): {erased} subscription(s) and their digests.",
            messages.SUCCESS,
        )


@admin.register(DigestDelivery)
class DigestDeliveryAdmin(admin.ModelAdmin):
    list_display = ("subscription", "issue", "state", "rows", "claimed_at", "sent_at")
    list_filter = ("state", "issue")
    list_select_related = ("subscription", "issue")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
