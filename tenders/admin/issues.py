"""Staff admin of issues: history, preview, publication and withdrawal of a row."""

from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from .. import curation, tasks
from ..calendar import rfc3339
from ..curation import CurationError
from ..issue_report import issue_name, issue_report, unpublished_by_reason
from ..jobs import JobBusy
from ..models import Issue, Job, SourceTender, WithheldRecord
from ..publication import PublicationError
from .jobs import busy_message, job_panel


@admin.register(Issue)
class IssueAdmin(admin.ModelAdmin):
    change_list_template = "admin/tenders/issue/change_list.html"
    list_display = (
        "name",
        "state",
        "current",
        "generated",
        "rows",
        "withheld",
        "new",
        "continuing",
        "dropped",
        "short_etag",
        "reason",
        "short_note",
        "by",
    )
    list_filter = ("state", "reason", "is_current")
    list_select_related = ("published_by",)
    search_fields = ("issue_id", "snapshot_etag", "note")
    exclude = ("facets", "previous")
    readonly_fields = ("withheld_list",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="issue", ordering="created_at")
    def name(self, obj: Issue) -> str:
        return f"{issue_name(obj)} (#{obj.pk})"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The issue for people: what it published, where and why not, and its history."""
        issue = self.get_object(request, object_id)
        if issue is None or not self.has_view_permission(request, issue):
            return super().change_view(request, object_id, form_url, extra_context)
        report = issue_report(issue)
        public = ""
        if issue.is_current:
            public = reverse("pages:tender-list")
        context = self._context(
            request,
            f"Issue {issue_name(issue, report.number_in_week)}",
            report=report,
            original=issue,
            public_url=public,
            generated=rfc3339(issue.generated),
            by=issue.published_by.get_username() if issue.published_by else "a command",
            replaced_by_name=issue_name(report.replaced_by) if report.replaced_by else "",
            followed_name=issue_name(report.followed) if report.followed else "",
            withheld=[
                (
                    kind,
                    count,
                    [
                        (
                            w.tender.listing_id,
                            reverse("admin:tenders_sourcetender_change", args=[w.tender_id]),
                            "; ".join(w.reasons),
                        )
                        for w in examples
                    ],
                )
                for kind, count, examples in report.withheld_by_reason
            ],
        )
        return TemplateResponse(request, "admin/tenders/issue/detail.html", context)

    def get_readonly_fields(self, request, obj=None):
        names = [f.name for f in self.opts.fields if f.name not in self.exclude]
        return [*names, "withheld_list"]

    @admin.display(description="current", boolean=True)
    def current(self, obj: Issue) -> bool:
        return obj.is_current

    @admin.display(description="rows", ordering="rows_total")
    def rows(self, obj: Issue) -> int:
        return obj.rows_total

    @admin.display(description="new", ordering="new_count")
    def new(self, obj: Issue) -> int:
        return obj.new_count

    @admin.display(description="continuing", ordering="continuing_count")
    def continuing(self, obj: Issue) -> int:
        return obj.continuing_count

    @admin.display(description="dropped", ordering="dropped_count")
    def dropped(self, obj: Issue) -> int:
        return obj.dropped_count

    @admin.display(description="etag")
    def short_etag(self, obj: Issue) -> str:
        return obj.snapshot_etag[:12]

    @admin.display(description="note")
    def short_note(self, obj: Issue) -> str:
        return obj.note if len(obj.note) <= 60 else obj.note[:59] + "…"

    @admin.display(description="by", ordering="published_by__username")
    def by(self, obj: Issue) -> str:
        return obj.published_by.get_username() if obj.published_by else "command"

    @admin.display(description="withheld records and why")
    def withheld_list(self, obj: Issue):
        records = list(
            WithheldRecord.objects.filter(issue=obj).select_related("tender").order_by("pk")[:200]
        )
        if not records:
            return "None."
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                '<li><a href="{}">{}</a>: {}</li>',
                (
                    (
                        reverse("admin:tenders_sourcetender_change", args=[w.tender_id]),
                        w.tender.listing_id,
                        "; ".join(w.reasons),
                    )
                    for w in records
                ),
            ),
        )

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("preview/", view(self.preview_view), name="tenders_issue_preview"),
            path("publish/", view(self.publish_view), name="tenders_issue_publish"),
            path("withdraw/", view(self.withdraw_view), name="tenders_issue_withdraw"),
            *super().get_urls(),
        ]

    def _require(self, request, perm: str) -> None:
        if not request.user.has_perm(perm):
            raise PermissionDenied

    def _context(self, request, title: str, **extra) -> dict:
        return {**self.admin_site.each_context(request), "title": title, "opts": self.opts, **extra}

    def preview_view(self, request):
        self._require(request, "tenders.view_issue")
        try:
            summary = curation.issue_preview(user=request.user)
        except PublicationError as exc:
            self.message_user(request, f"Cannot preview: {exc}", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:tenders_issue_changelist"))
        return TemplateResponse(
            request,
            "admin/tenders/issue/preview.html",
            self._context(
                request,
                "Preview of the next publication",
                summary=summary,
                generated=rfc3339(summary.generated),
                reasons=summary.withheld_by_reason.most_common(),
                samples=self._samples(summary.withheld_samples),
                excluded=[
                    {
                        "reason": group.reason,
                        "count": group.count,
                        "url": reverse("admin:tenders_sourcetender_changelist")
                        + "?"
                        + urlencode(group.query),
                    }
                    for group in unpublished_by_reason(summary)
                ],
                can_publish=request.user.has_perm("tenders.add_issue"),
            ),
        )

    def _samples(self, samples: list[tuple[str, list[str]]]) -> list[dict]:
        pks = dict(
            SourceTender.objects.filter(listing_id__in=[lid for lid, _ in samples]).values_list(
                "listing_id", "pk"
            )
        )
        return [
            {
                "listing_id": lid,
                "url": reverse("admin:tenders_sourcetender_change", args=[pks[lid]])
                if lid in pks
                else "",
                "reasons": reasons,
            }
            for lid, reasons in samples
        ]

    def publish_view(self, request):
        self._require(request, "tenders.add_issue")
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:tenders_issue_preview"))
        try:
            job = tasks.publication_enqueue(user=request.user)
        except JobBusy as busy:
            self.message_user(request, busy_message(busy), messages.WARNING)
        else:
            self.message_user(
                request,
                f"Publication queued as job #{job.pk}. A worker publishes it; this page shows "
                "its progress and the new issue when it is done.",
                messages.SUCCESS,
            )
        return HttpResponseRedirect(reverse("admin:tenders_issue_changelist"))

    def changelist_view(self, request, extra_context=None):
        job = Job.objects.filter(kind=tasks.PUBLISH).select_related("requested_by").first()
        return super().changelist_view(request, {**(extra_context or {}), "panel": job_panel(job)})

    def withdraw_view(self, request):
        self._require(request, "tenders.add_issue")
        form = WithdrawForm(request.POST or None, initial={"listing_id": request.GET.get("id")})
        if request.method == "POST" and form.is_valid():
            try:
                issue = curation.issue_withdraw_row(user=request.user, **form.cleaned_data)
            except CurationError as exc:
                form.add_error(None, str(exc))
            else:
                self.message_user(
                    request,
                    f"Withdrew {form.cleaned_data['listing_id'].strip().upper()} from "
                    f"{issue.issue_id}; new snapshot etag {issue.snapshot_etag}. It is gone "
                    "from every public surface and older cursors now get 409.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:tenders_issue_changelist"))
        current = Issue.objects.filter(is_current=True).first()
        return TemplateResponse(
            request,
            "admin/tenders/issue/withdraw.html",
            self._context(
                request, "Withdraw a row from the current snapshot", form=form, current=current
            ),
        )


class WithdrawForm(forms.Form):
    listing_id = forms.CharField(
        label="Listing id",
        max_length=40,
        help_text="The public id of the row, e.g. AT-1A2B3C4D5E.",
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=curation.REASON_MAX_LENGTH,
        help_text="What leaked or why the row must go. Staff only; the record is also "
        "withheld from later publications with this reason.",
    )
