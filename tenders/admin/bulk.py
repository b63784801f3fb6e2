"""The record list's bulk actions (approve, withhold, re-draft, check), each through a
confirmation page: the count, the first rows as they will be published, what will be refused
and why. Confirmed, a selection of up to ``TENDERS_BULK_INLINE_LIMIT`` records is done in the
request; a larger one is queued as a job whose progress the record list shows. Both call
``tenders.bulk.bulk_run``, so the result is the same either way."""

from datetime import timedelta

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from .. import bulk, curation, tasks
from ..curation import CurationError
from ..jobs import JobBusy
from ..models import Job
from .jobs import busy_message, job_panel

MESSAGE_LIMIT = 10
RECENT_SECONDS = 600  # a finished bulk job stays on the record list this long


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=curation.REASON_MAX_LENGTH,
        help_text="Why these records must not be published. Staff see it in the history and "
        "in the next publication's withheld list; it is never public.",
    )


INTRO = {
    "approve": "Approving publishes each record as it is, in the next issue. A record with a "
    "finding, a missing summary or an amount without a currency rate is refused.",
    "withhold": "These records will be held back from every publication until approved again. "
    "A row already published stays until the next publication; to take it down at once, use "
    "Issues → Withdraw a row.",
    "draft": "Each record's three summaries are drafted again from its own concepts, with the "
    "vocabulary's words only. Approved records go back to draft, so a person reads them first; "
    "summaries a person wrote are replaced.",
    "check": "Runs the publication gate on each record now and lists those with findings. "
    "Nothing is changed, except that approved records found clean keep their pass.",
}


class BulkActions:
    """Mixin of ``SourceTenderAdmin``: the bulk actions and their confirmation page."""

    actions = ("approve_records", "withhold_records", "draft_summaries", "check_records")

    @admin.action(description="Approve (records with findings are refused)")
    def approve_records(self, request, queryset):
        return self._bulk(request, queryset, "approve")

    @admin.action(description="Withhold from publication (asks for a reason)")
    def withhold_records(self, request, queryset):
        return self._bulk(request, queryset, "withhold")

    @admin.action(description="Re-draft the three summaries from each record's concepts")
    def draft_summaries(self, request, queryset):
        return self._bulk(request, queryset, "draft")

    @admin.action(description="Check against the publication gate")
    def check_records(self, request, queryset):
        return self._bulk(request, queryset, "check")

    def _bulk(self, request, queryset, action: str):
        confirmed = "apply" in request.POST
        form = ReasonForm(request.POST if confirmed else None) if action == "withhold" else None
        if confirmed and (form is None or form.is_valid()):
            reason = form.cleaned_data["reason"] if form else ""
            ids = list(queryset.order_by("pk").values_list("pk", flat=True))
            try:
                if len(ids) > bulk.inline_limit():
                    self._queue(request, action, ids, reason)
                else:
                    outcome = bulk.bulk_run(
                        action=action, ids=ids, user=request.user, reason=reason
                    )
                    self._report(request, outcome)
                return None
            except CurationError as exc:
                if form is None:
                    self.message_user(request, str(exc), messages.ERROR)
                    return None
                form.add_error("reason", str(exc))
        confirmation = bulk.bulk_confirmation(action, queryset)
        select_across = request.POST.get("select_across") == "1"
        verb = bulk.ACTIONS[action][0]
        what = f"{verb} {confirmation.count:,} record{'s' if confirmation.count != 1 else ''}"
        context = {
            **self.admin_site.each_context(request),
            "title": f"{what}?",
            "opts": self.opts,
            "c": confirmation,
            "refused": list(confirmation.refused.items())[:20],
            "form": form,
            "action": self._action_names[action],
            "intro": INTRO[action],
            "button": what,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            "select_across": select_across,
            "selected": request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME),
            "inline_limit": bulk.inline_limit(),
            "grace_days": settings.TENDERS_PASSED_GRACE_DAYS,
            "already": {"approve": "already approved", "withhold": "already withheld"}.get(
                action, ""
            ),
        }
        return TemplateResponse(request, "admin/tenders/sourcetender/bulk_confirm.html", context)

    _action_names = {
        "approve": "approve_records",
        "withhold": "withhold_records",
        "draft": "draft_summaries",
        "check": "check_records",
    }

    def _queue(self, request, action: str, ids: list[int], reason: str) -> None:
        try:
            job = tasks.bulk_enqueue(action=action, ids=ids, user=request.user, reason=reason)
        except JobBusy as busy:
            self.message_user(request, busy_message(busy), messages.WARNING)
            return
        self.message_user(
            request,
            format_html(
                '{} queued as <a href="{}">job #{}</a>: a worker does it; this page shows '
                "its progress.",
                job.label,
                reverse("admin:tenders_job_change", args=[job.pk]),
                job.pk,
            ),
            messages.SUCCESS,
        )

    def _report(self, request, outcome: bulk.BulkOutcome) -> None:
        dirty = outcome.action == "check" and outcome.refused
        if outcome.done or outcome.action == "check":
            self.message_user(
                request,
                self._first_sentence(outcome),
                messages.WARNING if dirty else messages.SUCCESS,
            )
        for listing_id, notes in list(outcome.notes.items())[:MESSAGE_LIMIT]:
            self.message_user(request, f"{listing_id}: {'; '.join(notes)}", messages.INFO)
        self._report_refusals(request, outcome.refused, bulk.ACTIONS[outcome.action][2])

    def _first_sentence(self, outcome: bulk.BulkOutcome) -> str:
        message = outcome.message()
        if outcome.action != "check" and outcome.refused:
            message = message[: message.rindex(f" {len(outcome.refused)} refused")]
        return message

    def _report_refusals(self, request, refused: dict[str, list[str]], what: str) -> None:
        for listing_id, reasons in list(refused.items())[:MESSAGE_LIMIT]:
            shown = "; ".join(reasons[:3]) + (" …" if len(reasons) > 3 else "")
            self.message_user(request, f"{listing_id} not {what}: {shown}", messages.ERROR)
        if len(refused) > MESSAGE_LIMIT:
            self.message_user(
                request, f"… and {len(refused) - MESSAGE_LIMIT} more not {what}.", messages.ERROR
            )

    def bulk_panels(self, request) -> list[dict]:
        """The record list's progress panels: bulk and re-draft jobs running, or finished in
        the last few minutes."""
        recent = timezone.now() - timedelta(seconds=RECENT_SECONDS)
        jobs = Job.objects.filter(kind__in=[tasks.BULK, tasks.REDRAFT]).select_related(
            "requested_by"
        )
        shown = list(jobs.filter(state__in=Job.ACTIVE_STATES)[:5])
        shown += list(jobs.exclude(state__in=Job.ACTIVE_STATES).filter(finished_at__gte=recent)[:3])
        return [job_panel(job, user=request.user) for job in shown]
