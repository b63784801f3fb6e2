"""Staff queues of requests for quote and tender access requests.

Both lists open with the items waiting for a reply, most overdue first; each shows its reply
deadline (received + 4 hours) and age. Status changes only through the two actions, which call
one bulk service each and land in the admin log with who and when. Contact details are shown
here and nowhere else.
"""

from django.contrib import admin, messages
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import format_html, linebreaks
from django.utils.safestring import SafeString, mark_safe

from . import selectors, services, timing
from .models import AccessRequest, IntakeRecord, Rfq, Status


def _paragraphs(text: str) -> SafeString:
    """The sender's multi-line text as written (escaped first, then line breaks kept)."""
    return mark_safe(linebreaks(text, autoescape=True))


class ReplyFilter(admin.SimpleListFilter):
    title = "reply"
    parameter_name = "reply"

    def lookups(self, request, model_admin):
        return [
            ("overdue", "Overdue"),
            ("due", "Waiting, not yet due"),
            ("done", "Answered or closed"),
        ]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "overdue":
            return queryset.filter(status=Status.NEW, reply_due_at__lt=now)
        if self.value() == "due":
            return queryset.filter(status=Status.NEW, reply_due_at__gte=now)
        if self.value() == "done":
            return queryset.filter(~Q(status=Status.NEW))
        return queryset


class IntakeAdmin(admin.ModelAdmin):
    set_status = None  # the service that changes status for this queue
    list_filter = ("status", ReplyFilter, "received_at")
    date_hierarchy = "received_at"
    list_per_page = 50
    actions = ["mark_answered", "mark_closed"]
    readonly_fields = (
        "reference",
        "status",
        "received_at",
        "reply_due_at",
        "answered_at",
        "closed_at",
        "client_ip",
        "user_agent",
        "idempotency_key",
    )
    queue_fieldset = (
        "Queue",
        {"fields": ("status", "received_at", "reply_due_at", "answered_at", "closed_at")},
    )
    staff_fieldset = ("Staff", {"fields": ("staff_notes",)})
    abuse_fieldset = (
        "Abuse handling",
        {
            "classes": ("collapse",),
            "fields": ("client_ip", "user_agent", "idempotency_key"),
            "description": "Where the submission came from. Use only to deal with abuse.",
        },
    )

    def get_ordering(self, request):
        return selectors.QUEUE_ORDERING

    def has_add_permission(self, request):
        # Submissions come in only through the intake services (REST and the tool server).
        return False

    def has_delete_permission(self, request, obj=None):
        # Submissions are kept; only a superuser removes one (spam, an erasure request).
        return request.user.is_superuser

    @admin.display(description="reply")
    def reply_state(self, obj: IntakeRecord):
        text, overdue = timing.due_state(
            status=obj.status,
            reply_due_at=obj.reply_due_at,
            answered_at=obj.answered_at,
            now=timezone.now(),
        )
        if overdue:
            return format_html('<strong style="color: var(--error-fg)">{}</strong>', text)
        return text

    @admin.display(description="age", ordering="-received_at")
    def age(self, obj: IntakeRecord):
        return timing.human_duration((timezone.now() - obj.received_at).total_seconds())

    @admin.action(description="Mark answered (the sender has had a reply)", permissions=["change"])
    def mark_answered(self, request, queryset):
        self._set_status(request, queryset, Status.ANSWERED, "already answered or closed")

    @admin.action(description="Mark closed (nothing more to do)", permissions=["change"])
    def mark_closed(self, request, queryset):
        self._set_status(request, queryset, Status.CLOSED, "already closed")

    def _set_status(self, request, queryset, status: Status, skipped_reason: str) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        changed = type(self).set_status(ids=ids, status=status, actor=request.user)
        if changed:
            self.message_user(
                request, f"Marked {status.value}: {', '.join(changed)}.", messages.SUCCESS
            )
        skipped = len(ids) - len(changed)
        if skipped:
            self.message_user(
                request, f"{skipped} left as they were ({skipped_reason}).", messages.WARNING
            )


@admin.register(Rfq)
class RfqAdmin(IntakeAdmin):
    set_status = staticmethod(services.rfq_set_status)
    list_display = (
        "reference",
        "reply_state",
        "reply_due_at",
        "age",
        "status",
        "product_line",
        "listing",
        "quantity",
        "target_market",
    )
    list_filter = ("status", ReplyFilter, "target_market", "received_at")
    search_fields = ("reference", "product", "buyer_contact", "asaptic_id", "staff_notes")
    readonly_fields = (
        *IntakeAdmin.readonly_fields,
        "listing",
        "product_text",
        "quantity",
        "target_market",
        "buyer_contact",
    )
    fieldsets = (
        (
            "Request",
            {
                "fields": (
                    "reference",
                    "listing",
                    "product_text",
                    "quantity",
                    "target_market",
                    "buyer_contact",
                )
            },
        ),
        IntakeAdmin.queue_fieldset,
        IntakeAdmin.staff_fieldset,
        IntakeAdmin.abuse_fieldset,
    )

    @admin.display(description="listing", ordering="asaptic_id")
    def listing(self, obj: Rfq):
        """The listing the request is about, linked to its public page (which says when the
        row has left the feed since)."""
        if not obj.asaptic_id:
            return "—"
        with translation.override("en"):
            url = reverse("pages:tender", kwargs={"at_id": obj.asaptic_id})
        return format_html(
            '<a href="{}" target="_blank" rel="noopener">{}</a>', url, obj.asaptic_id
        )

    @admin.display(description="product")
    def product_text(self, obj: Rfq):
        return _paragraphs(obj.product)

    @admin.display(description="product", ordering="product")
    def product_line(self, obj: Rfq):
        flat = " ".join(obj.product.split())
        return flat if len(flat) <= 80 else flat[:79] + "…"


@admin.register(AccessRequest)
class AccessRequestAdmin(IntakeAdmin):
    set_status = staticmethod(services.access_request_set_status)
    list_display = (
        "reference",
        "reply_state",
        "reply_due_at",
        "age",
        "status",
        "organisation",
        "at_id",
    )
    search_fields = ("reference", "organisation", "contact", "at_id", "staff_notes")
    readonly_fields = (
        *IntakeAdmin.readonly_fields,
        "at_id",
        "organisation",
        "contact",
        "purpose_text",
    )
    fieldsets = (
        (
            "Request",
            {"fields": ("reference", "at_id", "organisation", "contact", "purpose_text")},
        ),
        IntakeAdmin.queue_fieldset,
        IntakeAdmin.staff_fieldset,
        IntakeAdmin.abuse_fieldset,
    )

    @admin.display(description="purpose")
    def purpose_text(self, obj: AccessRequest):
        return _paragraphs(obj.purpose)
