"""Staff admin of the sanitization gate's inputs: the directory of public bodies and the
allow-lists. Both are private; the admin log records every change (who, when, what).
"""

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from core.signin import require_recent_authentication

from .. import allowances
from ..models import GateAllowance, PublicBody, PublicBodyName
from ..sanitize import KIND_LABELS, clean_text
from ..sanitize.allow import NEVER_ALLOWED


class PublicBodyNameInline(admin.TabularInline):
    model = PublicBodyName
    extra = 1
    fields = ("name", "form", "lang")


@admin.register(PublicBody)
class PublicBodyAdmin(admin.ModelAdmin):
    """Every name the gate looks for in every summary, whoever the record's buyer is."""

    list_display = ("name", "market", "kind", "origin", "spellings")
    list_filter = ("market", "kind", "origin")
    search_fields = ("name", "names__name")
    inlines = (PublicBodyNameInline,)
    fields = ("name", "market", "kind", "origin", "notes")

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("names")

    @admin.display(description="spellings")
    def spellings(self, obj: PublicBody) -> str:
        names = [n.name for n in obj.names.all()]
        return ", ".join(names[:6]) + (" …" if len(names) > 6 else "")


ALLOWABLE = [(k, f"{label} ({k})") for k, label in KIND_LABELS.items() if k not in NEVER_ALLOWED]


class GateAllowanceForm(forms.ModelForm):
    kind = forms.ChoiceField(choices=ALLOWABLE, help_text=GateAllowance.kind.field.help_text)

    class Meta:
        model = GateAllowance
        fields = ("tender", "kind", "phrase", "reason")

    def clean(self):
        data = super().clean()
        if not self.errors and (
            refusal := allowances.allowance_refusal(
                kind=data.get("kind", ""),
                phrase=clean_text(data.get("phrase", "")),
                reason=clean_text(data.get("reason", "")),
                tender=data.get("tender"),
            )
        ):
            raise forms.ValidationError(refusal)
        return data


@admin.register(GateAllowance)
class GateAllowanceAdmin(admin.ModelAdmin):
    """The allow-lists: added from a record's findings (or here), never edited, removed with a
    log entry. An allowance without a record applies to every record."""

    form = GateAllowanceForm
    list_display = ("phrase", "kind", "scope", "reason", "created_by", "created_at")
    list_filter = ("kind", ("tender", admin.EmptyFieldListFilter))
    search_fields = ("phrase", "reason", "tender__listing_id")
    raw_id_fields = ("tender",)
    readonly_fields = ("created_by", "created_at")

    @admin.display(description="applies to")
    def scope(self, obj: GateAllowance) -> str:
        return obj.tender.listing_id if obj.tender_id else "every record"

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # allowances are added or removed, never rewritten

    def add_view(self, request, form_url="", extra_context=None):
        if self.has_add_permission(request) and (
            again := require_recent_authentication(request, request.get_full_path())
        ):
            return again
        return super().add_view(request, form_url, extra_context)

    def save_model(self, request, obj, form, change):
        created = allowances.allowance_add(
            kind=obj.kind,
            phrase=obj.phrase,
            reason=obj.reason,
            tender=obj.tender,
            user=request.user,
        )
        obj.pk = created.pk

    def log_addition(self, request, obj, message):
        pass  # allowance_add wrote the entry, with the reason

    def log_deletion(self, request, obj, object_repr):
        pass  # delete_model's service call wrote it

    def delete_model(self, request, obj):
        allowances.allowance_remove(allowance=obj, user=request.user)

    def delete_queryset(self, request, queryset):
        for allowance in queryset:
            allowances.allowance_remove(allowance=allowance, user=request.user)
