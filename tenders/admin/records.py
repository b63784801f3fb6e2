"""Staff admin of source records: the gate's findings, drafting, approval and withholding.

Thin by design: actions and views validate what staff typed and call the services in
``tenders.curation``, then report. Every help text is written for curators. Findings are shown
here and nowhere public.
"""

from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpRequest, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from core.signin import require_recent_authentication

from .. import allowances, curation, tasks
from ..curation import CurationError
from ..jobs import JobBusy
from ..models import SourceTender
from ..sanitize import KIND_LABELS, Finding, clean_text
from ..sanitize.allow import NEVER_ALLOWED
from ..vocabulary.classify import search as search_concepts
from ..vocabulary.cpv import concept
from ..vocabulary.summaries import CATEGORY_CONCEPTS
from .bulk import BulkActions
from .imports import imported_notice_html
from .jobs import busy_message
from .record_filters import (
    ClosingFilter,
    EditedFilter,
    FindingsFilter,
    RunFilter,
    SourceFilter,
    SummaryFilter,
)


def _finding_rows(findings: list[Finding]) -> list[dict]:
    return [
        {
            "kind": f.kind,
            "label": f.label,
            "field": f.field,
            "excerpt": f.excerpt,
            "why": f.why,
            "start": f.start,
            "end": f.end,
        }
        for f in findings
    ]


def _allow_link(finding: Finding, texts: dict[str, str], allow_url: str):
    """A link to mark the finding as not a leak (never for addresses or markup)."""
    if not allow_url or finding.kind in NEVER_ALLOWED:
        return ""
    query = urlencode(
        {
            "kind": finding.kind,
            "phrase": (texts.get(finding.lang) or "")[finding.start : finding.end],
        }
    )
    return format_html(' <a class="gate-allow" href="{}?{}">Not a leak?</a>', allow_url, query)


def _findings_html(findings: list[Finding], texts: dict[str, str] | None = None, allow_url=""):
    if not findings:
        return mark_safe('<p class="gate-clean">The gate finds nothing: ready to approve.</p>')
    texts = texts or {}
    items = format_html_join(
        "",
        '<li><strong>{}</strong> in <code>{}</code>: <span class="excerpt">{}</span>'
        '<span class="why">{}</span>{}</li>',
        (
            (
                f.label,
                f.field,
                f.excerpt,
                f" ({f.why})" if f.why else "",
                _allow_link(f, texts, allow_url),
            )
            for f in findings
        ),
    )
    return format_html(
        '<p class="gate-findings-count">{} finding(s): fix them before approving.</p><ul>{}</ul>',
        len(findings),
        items,
    )


# --- source records -----------------------------------------------------------------------

SUMMARY_HELP = (
    "Public text in generic procurement language: what is bought, never who buys it. No buyer "
    "name or acronym, reference, exact date, amount, contact, phone, e-mail or web address. "
    "HTML and control characters are removed when you save."
)


class ConceptsWidget(forms.Widget):
    """The record's concepts as a list, with a search-as-you-type field in three languages
    (the admin's ``concepts/`` view); posts the codes comma-separated, main first."""

    template_name = "tenders/widgets/concepts.html"

    def format_value(self, value):
        if isinstance(value, list | tuple):
            return ", ".join(value)
        return value or ""

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        codes = [c.strip() for c in (context["widget"]["value"] or "").split(",") if c.strip()]
        context["widget"]["chosen"] = [c for c in map(concept, codes) if c]
        context["widget"]["search_url"] = reverse("admin:tenders_sourcetender_concepts")
        return context


class ConceptsField(forms.Field):
    widget = ConceptsWidget

    def to_python(self, value):
        if isinstance(value, list):
            return value
        return [c.strip() for c in (value or "").replace(";", ",").split(",") if c.strip()]

    def validate(self, value):
        super().validate(value)
        if problem := curation.concept_problem(value):
            raise forms.ValidationError(problem)


class SourceTenderForm(forms.ModelForm):
    concepts = ConceptsField(
        required=False,
        help_text="What is bought, the main concept first (at most three). The summaries are "
        "built from their labels when you save with the summaries unchanged.",
    )
    source_url = forms.URLField(
        label="Source URL",
        required=False,
        max_length=500,
        assume_scheme="https",
        help_text="Private. Where the notice came from; its site must not be named.",
    )

    class Meta:
        model = SourceTender
        fields = (
            "market",
            "category",
            "concepts",
            "lead_ok",
            "summary_en",
            "summary_zh",
            "summary_zht",
            "buyer_name",
            "reference",
            "source_url",
            "deadline",
            "amount",
            "currency",
            "title",
            "description",
        )
        help_texts = {
            "market": "Where the buyer is; sets the phone-number rules the gate uses.",
            "category": "Public category of the row; drafting uses it.",
            "lead_ok": "Tick when the buyer accepts supplier interest for this listing.",
            "summary_en": SUMMARY_HELP,
            "summary_zh": SUMMARY_HELP + " Simplified Chinese.",
            "summary_zht": SUMMARY_HELP + " Traditional Chinese, Hong Kong wording.",
            "buyer_name": "Private. The gate looks for it in every summary, with its case, "
            "punctuation and acronym variants, in both Chinese scripts.",
            "reference": "Private. The buyer's notice reference; the gate looks for it.",
            "deadline": "Private. Published only as a closing bucket, never as a date.",
            "amount": "Private. Published only as a value band (converted with Currency rates).",
            "currency": "ISO 4217 code of the amount, e.g. HKD. Needs a rate under Currency rates.",
            "title": "Private. The raw title of the notice.",
            "description": "Private. The raw notice text; contact names in it (Mr …, "
            "first.last@…) are looked for in the summaries too.",
        }

    def clean_summary_en(self):
        return clean_text(self.cleaned_data.get("summary_en", ""))

    def clean_summary_zh(self):
        return clean_text(self.cleaned_data.get("summary_zh", ""))

    def clean_summary_zht(self):
        return clean_text(self.cleaned_data.get("summary_zht", ""))

    def clean_currency(self):
        return (self.cleaned_data.get("currency") or "").strip().upper()

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if (data.get("amount") is None) != (not data.get("currency")):
            raise forms.ValidationError("Give both an amount and its currency, or neither.")
        candidate = self.instance
        for name, value in data.items():
            if hasattr(candidate, name) and name != "category":
                setattr(candidate, name, value)
        candidate.category = data.get("category")
        self.findings = curation.tender_findings(candidate)
        if candidate.status == SourceTender.Status.APPROVED:
            problems = curation.approval_problems(candidate, findings=self.findings)
            if problems:
                for finding in self.findings:
                    self.add_error(
                        finding.field,
                        f"{finding.label}: {finding.excerpt}. An approved record must have no "
                        "findings; fix the text or withhold the record.",
                    )
                if not self.findings:
                    raise forms.ValidationError(
                        "An approved record must pass every check: " + "; ".join(problems)
                    )
        return data


class AllowForm(forms.Form):
    kind = forms.ChoiceField(
        choices=[(k, v) for k, v in KIND_LABELS.items() if k not in NEVER_ALLOWED],
        label="Kind of finding",
        help_text="Only this kind is allowed on the phrase; anything else in it is still found.",
    )
    phrase = forms.CharField(
        max_length=200,
        help_text="The text as it stands in the summary. Widen it to the words around the "
        "finding when they make it harmless, e.g. 'HP LaserJet' rather than 'HP'.",
    )
    scope = forms.ChoiceField(
        choices=[("record", "This record only"), ("everywhere", "Every record")],
        initial="record",
        widget=forms.RadioSelect,
        help_text="Every record needs the permission to add gate allowances; a record's own "
        "buyer, reference, deadline, amount or contact can only be allowed for that record.",
    )
    reason = forms.CharField(
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="Why this is not a leak (e.g. 'R410A is a refrigerant'). Kept in the log.",
    )

    def __init__(self, *args, everywhere: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not everywhere:
            self.fields["scope"].choices = [("record", "This record only")]


BROAD_CONCEPTS = frozenset(CATEGORY_CONCEPTS.values())


class ConceptFilter(admin.SimpleListFilter):
    """Records whose summary names only their category's broad concept (the classifier
    abstained, or nobody picked one): the ones a curator should give a concept."""

    title = "concept"
    parameter_name = "concept"

    def lookups(self, request, model_admin):
        return [("broad", "Broad or none: pick one"), ("specific", "Specific")]

    def queryset(self, request, queryset):
        broad = Q(concepts=[]) | Q(concepts__0__in=sorted(BROAD_CONCEPTS))
        if self.value() == "broad":
            return queryset.filter(broad)
        if self.value() == "specific":
            return queryset.exclude(broad)
        return queryset


@admin.register(SourceTender)
class SourceTenderAdmin(BulkActions, admin.ModelAdmin):
    form = SourceTenderForm
    change_form_template = "admin/tenders/sourcetender/change_form.html"
    change_list_template = "admin/tenders/sourcetender/change_list.html"
    list_display = (
        "listing_id",
        "short_title",
        "public_en",
        "public_zh",
        "findings_badge",
        "market",
        "category",
        "status",
        "deadline",
    )
    list_filter = (
        "status",
        FindingsFilter,
        ClosingFilter,
        SourceFilter,
        RunFilter,
        EditedFilter,
        SummaryFilter,
        ConceptFilter,
        "market",
        "category",
    )
    search_fields = (
        "listing_id",
        "title",
        "buyer_name",
        "reference",
        "summary_en",
        "summary_zh",
        "summary_zht",
    )
    list_select_related = ("category",)
    list_per_page = 50
    readonly_fields = (
        "listing_id",
        "status",
        "withheld_reason",
        "gate_findings",
        "imported_from",
        "created_at",
        "updated_at",
    )
    fieldsets = (
        (
            "Status and sanitization",
            {
                "fields": (
                    "listing_id",
                    "status",
                    "withheld_reason",
                    "gate_findings",
                    "imported_from",
                ),
                "classes": ("gate-status",),
                "description": "Findings are what the publication gate would withhold this "
                "record for. They update as you type; staff only, never public.",
            },
        ),
        (
            "Public row: published as written",
            {
                "fields": (
                    "market",
                    "category",
                    "concepts",
                    "lead_ok",
                    "summary_en",
                    "summary_zh",
                    "summary_zht",
                ),
                "classes": ("public-side",),
            },
        ),
        (
            "Private notice: never published",
            {
                "fields": (
                    "buyer_name",
                    "reference",
                    "source_url",
                    "deadline",
                    "amount",
                    "currency",
                    "title",
                    "description",
                    "created_at",
                    "updated_at",
                ),
                "classes": ("private-side",),
            },
        ),
    )

    def has_delete_permission(self, request, obj=None):
        # Records are withheld, not deleted: publication history points at them.
        return False

    @admin.display(description="private title", ordering="title")
    def short_title(self, obj: SourceTender) -> str:
        return obj.title if len(obj.title) <= 40 else obj.title[:39] + "…"

    def _concepts_text(self, obj: SourceTender, lang: str) -> str:
        found = [c for c in map(concept, obj.concepts or []) if c]
        if not found:
            return ""
        broad = " (broad: pick one)" if found[0].code in BROAD_CONCEPTS else ""
        return "; ".join(getattr(c, lang) for c in found) + broad

    def _public(self, obj: SourceTender, field: str, lang: str):
        """The summary as it will be published, with the concepts it names below (or the
        concepts alone when there is no summary yet)."""
        text, concepts = getattr(obj, field), self._concepts_text(obj, lang)
        if not text:
            return format_html(
                '<span class="public-missing">No summary</span><br>'
                '<small class="public-concepts">concepts: {}</small>',
                concepts or "none",
            )
        return format_html(
            '<span class="public-text" lang="{}">{}</span><br><small class="public-concepts">{}'
            "</small>",
            lang,
            text,
            concepts,
        )

    @admin.display(description="public English (as published)")
    def public_en(self, obj: SourceTender):
        return self._public(obj, "summary_en", "en")

    @admin.display(description="public Chinese (as published)")
    def public_zh(self, obj: SourceTender):
        return self._public(obj, "summary_zh", "zh")

    @admin.display(description="findings")
    def findings_badge(self, obj: SourceTender):
        count = len(curation.tender_findings(obj))
        if not count:
            return format_html(
                '<span class="findings-badge clean" title="{}">{}</span>',
                "The gate finds nothing",
                "clean",
            )
        return format_html(
            '<span class="findings-badge has-findings" style="background:#ba2121;color:#fff;'
            'padding:1px 6px;border-radius:8px;white-space:nowrap" title="{}">{}</span>',
            "The gate would withhold this record; open it to see why",
            f"{count} finding{'s' if count != 1 else ''}",
        )

    @admin.display(description="findings")
    def gate_findings(self, obj: SourceTender):
        if obj is None or obj.pk is None:
            return "Shown once the record is saved."
        return format_html(
            '<div id="gate-findings">{}</div>',
            _findings_html(
                curation.tender_findings(obj), curation.summaries_of(obj), self._allow_url(obj.pk)
            ),
        )

    def _allow_url(self, pk) -> str:
        info = self.opts.app_label, self.opts.model_name
        return reverse(
            "admin:{}_{}_allow".format(*info), args=[pk], current_app=self.admin_site.name
        )

    @admin.display(description="imported from")
    def imported_from(self, obj: SourceTender):
        return imported_notice_html(obj)

    # --- the change form: live findings and "save and approve" ----------------------------

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "redraft/",
                self.admin_site.admin_view(self.redraft_view),
                name="{}_{}_redraft".format(*info),
            ),
            path(
                "concepts/",
                self.admin_site.admin_view(self.concepts_view),
                name="{}_{}_concepts".format(*info),
            ),
            path(
                "<path:object_id>/findings/",
                self.admin_site.admin_view(self.findings_view),
                name="{}_{}_findings".format(*info),
            ),
            path(
                "<path:object_id>/allow/",
                self.admin_site.admin_view(self.allow_view),
                name="{}_{}_allow".format(*info),
            ),
            *super().get_urls(),
        ]

    def redraft_view(self, request: HttpRequest):
        """Queue the re-draft of every imported record from the vocabulary (a job)."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        page = reverse("admin:tenders_sourcetender_changelist", current_app=self.admin_site.name)
        if request.method != "POST":
            return HttpResponseRedirect(page)
        try:
            job = tasks.redraft_enqueue(user=request.user)
        except JobBusy as busy:
            self.message_user(request, busy_message(busy), messages.WARNING)
        else:
            link = reverse("admin:tenders_job_change", args=[job.pk])
            self.message_user(
                request,
                format_html(
                    'Re-drafting imported summaries: <a href="{}">job #{}</a> shows its '
                    "progress; its message lists the records a person edited.",
                    link,
                    job.pk,
                ),
                messages.SUCCESS,
            )
        return HttpResponseRedirect(page)

    def concepts_view(self, request: HttpRequest):
        """Concepts whose code or label holds ``q``, in any of the three languages (JSON)."""
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        found = search_concepts(request.GET.get("q", ""), limit=20)
        rows = [{"code": c.code, "en": c.en, "zh": c.zh, "zht": c.zht} for c in found]
        return JsonResponse({"concepts": rows})

    def findings_view(self, request: HttpRequest, object_id: str):
        """The gate's findings for the form as typed (JSON, staff only, nothing saved)."""
        if request.method != "POST":
            return JsonResponse({"error": "POST the form fields."}, status=405)
        tender = self.get_object(request, object_id)
        if tender is None or not self.has_view_or_change_permission(request, tender):
            raise PermissionDenied
        form = self.get_form(request, tender)(request.POST, instance=tender)
        form.is_valid()  # runs clean(), which computes the findings even when invalid
        findings = getattr(form, "findings", None)
        summaries = {
            lang: clean_text(request.POST.get(name, ""))
            for lang, name in curation.SUMMARY_FIELDS.items()
        }
        if findings is None:  # another field is invalid: check the summaries as they are
            findings = curation.tender_findings(tender, summaries)
        html = _findings_html(findings, summaries, self._allow_url(tender.pk))
        return JsonResponse({"findings": _finding_rows(findings), "html": str(html)})

    def allow_view(self, request: HttpRequest, object_id: str):
        """Mark a finding as not a leak: for this record, or for every record (with the
        permission to add gate allowances). The service logs who, when, what and why."""
        tender = self.get_object(request, object_id)
        if tender is None or not self.has_change_permission(request, tender):
            raise PermissionDenied
        if again := require_recent_authentication(request, back=request.get_full_path()):
            return again
        may_add_words = request.user.has_perm("tenders.add_vocabulary_word")
        may_allow_everywhere = request.user.has_perm("tenders.add_gateallowance")
        form = AllowForm(
            request.POST or None,
            initial={"kind": request.GET.get("kind", ""), "phrase": request.GET.get("phrase", "")},
            everywhere=may_allow_everywhere or may_add_words,
        )
        if request.method == "POST" and form.is_valid():
            everywhere = form.cleaned_data.get("scope") == "everywhere"
            word = form.cleaned_data["kind"] == "out_of_vocabulary"
            if word and not may_add_words:
                form.add_error(
                    None,
                    "Adding a word to the public vocabulary needs a second person with the "
                    "*Can add vocabulary word* permission; or rewrite the summary with words "
                    "of the vocabulary (pick concepts).",
                )
            elif everywhere and not word and not may_allow_everywhere:
                form.add_error("scope", "Every record needs the permission to add allowances.")
        if request.method == "POST" and form.is_valid():
            everywhere = form.cleaned_data.get("scope") == "everywhere"
            try:
                allowances.allowance_add(
                    kind=form.cleaned_data["kind"],
                    phrase=form.cleaned_data["phrase"],
                    reason=form.cleaned_data["reason"],
                    tender=None if everywhere else tender,
                    user=request.user,
                )
            except allowances.AllowanceError as exc:
                form.add_error(None, str(exc))
            else:
                scope = "every record" if everywhere else tender.listing_id
                self.message_user(
                    request,
                    f"Allowed {form.cleaned_data['phrase']!r} for {scope}. The gate no longer "
                    "reports it there; the admin log keeps who allowed it and why.",
                    messages.SUCCESS,
                )
                info = self.opts.app_label, self.opts.model_name
                return HttpResponseRedirect(
                    reverse("admin:{}_{}_change".format(*info), args=[tender.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "title": "Mark a finding as not a leak",
            "opts": self.opts,
            "original": tender,
            "form": form,
            "findings": curation.tender_findings(tender),
        }
        return TemplateResponse(request, "admin/tenders/sourcetender/allow.html", context)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            info = self.opts.app_label, self.opts.model_name
            context["findings_url"] = reverse(
                "admin:{}_{}_findings".format(*info),
                args=[obj.pk],
                current_app=self.admin_site.name,
            )
            context["can_approve"] = self.has_change_permission(request, obj)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        summaries = {"summary_en", "summary_zh", "summary_zht"}
        if "concepts" in form.changed_data and not summaries & set(form.changed_data):
            try:
                curation.tender_set_concepts(
                    tender_id=obj.pk,
                    codes=obj.concepts,
                    user=request.user,
                    keep_category="category" in form.changed_data,
                )
            except CurationError as exc:
                self.message_user(request, str(exc), messages.ERROR)
            else:
                obj.refresh_from_db()
                form.findings = curation.tender_findings(obj)
                self.message_user(
                    request, "Summaries drafted from the concepts: read them.", messages.INFO
                )
        findings = getattr(form, "findings", [])
        if findings and "_approve" not in request.POST:
            self.message_user(
                request,
                f"Saved with {len(findings)} finding(s): the gate will withhold this record "
                "until they are fixed.",
                messages.WARNING,
            )

    def response_change(self, request, obj):
        if "_approve" in request.POST:
            self._report_approval(
                request, curation.tenders_approve(ids=[obj.pk], user=request.user)
            )
            return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)

    def changelist_view(self, request, extra_context=None):
        panels = self.bulk_panels(request)
        refresh = any(p["job"].active for p in panels)
        return super().changelist_view(
            request, {**(extra_context or {}), "panels": panels, "refresh": refresh}
        )

    def _report_approval(self, request, result: curation.BulkResult) -> None:
        if result.done:
            self.message_user(request, f"Approved {len(result.done)} record(s).", messages.SUCCESS)
        self._report_refusals(request, result.refused, "approved")
