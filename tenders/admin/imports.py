"""Staff admin of imports: configured sources, "Import now", file upload, and the runs.

Thin by design: forms check what staff typed and call ``tenders.importers.service``; the run
record is the report. Importing needs the *Can import notices* permission (superusers have
it); everyone with the view permission can read the runs and their failures.
"""

import zipfile
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from .. import tasks
from ..importers import checkpoints
from ..importers.presets import presets_install
from ..importers.service import UPLOAD_SUFFIXES, ImportFailed, check_market
from ..jobs import JobBusy
from ..markets import MARKET_CHOICES
from ..models import ImportedNotice, ImportFormat, ImportRun, ImportSource, Job, SourceTender
from .jobs import busy_message, job_panel

PERMISSION = "tenders.run_import"


def imported_notice_html(tender: SourceTender):
    """What a record's page says about the notice it was imported from (staff only)."""
    try:
        notice = tender.imported
    except (ImportedNotice.DoesNotExist, AttributeError):
        return "Entered by staff (not imported)."
    run = ""
    if notice.last_run_id:
        link = reverse("admin:tenders_importrun_change", args=[notice.last_run_id])
        run = format_html(' (last import: <a href="{}">run {}</a>)', link, notice.last_run_id)
    closed = (
        format_html("<p><strong>Closed at source:</strong> {}</p>", notice.closed_reason)
        if notice.closed_reason
        else ""
    )
    notes = (
        format_html(
            "<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((n,) for n in notice.notes))
        )
        if notice.notes
        else ""
    )
    return format_html(
        "<p>{} notice <code>{}</code>, state at source: {}{}</p>{}{}",
        notice.scheme.upper(),
        notice.notice_id,
        notice.state_at_source,
        run,
        closed,
        notes,
    )


def _clean_market(form: forms.Form, data: dict) -> None:
    """The market the chosen format needs (implied, or the one given), or a field error."""
    if data.get("format"):
        try:
            data["market"] = check_market(data["format"], data.get("market"))
        except ImportFailed as exc:
            form.add_error("market", str(exc))


# --- sources ------------------------------------------------------------------------------


class ImportSourceForm(forms.ModelForm):
    class Meta:
        model = ImportSource
        fields = (
            "name", "format", "market", "url", "enabled", "every_hours", "request_interval",
            "options", "checkpoint", "note",
        )  # fmt: skip

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["request_interval"].required = False

    def clean_request_interval(self):
        return self.cleaned_data.get("request_interval") or 0

    # An emptied box means "nothing": a fresh start for a checkpoint, no options.
    def clean_options(self):
        return self.cleaned_data.get("options") or {}

    def clean_checkpoint(self):
        return self.cleaned_data.get("checkpoint") or {}

    def clean(self):
        data = super().clean()
        _clean_market(self, data)
        # A new address drops the old one's cursor and validators, unless staff wrote a
        # checkpoint themselves (the instance still holds the stored values here).
        stored = self.instance
        if (
            stored.pk
            and data.get("url") != stored.url
            and data.get("checkpoint") == stored.checkpoint
        ):
            data["checkpoint"] = checkpoints.for_new_address(stored.checkpoint)
        url = (data.get("url") or "").strip()
        if url and not url.lower().startswith(("http://", "https://", "/")):
            self.add_error("url", "Give an http(s) address, or an absolute path on the server.")
        return data


@admin.register(ImportSource)
class ImportSourceAdmin(admin.ModelAdmin):
    form = ImportSourceForm
    list_display = (
        "name", "format", "market", "url", "enabled", "every_hours", "request_interval",
        "preset", "last_run",
    )  # fmt: skip
    list_filter = ("format", "market", "enabled", "preset")
    search_fields = ("name", "url")
    actions = ("import_now", "install_presets")
    # Actions that need no selection: they act on the ready-made sources, not the chosen ones.
    actions_without_selection = ("install_presets",)

    def changelist_view(self, request, extra_context=None):
        if (
            request.method == "POST"
            and request.POST.get("action") in self.actions_without_selection
            and not request.POST.getlist(ACTION_CHECKBOX_NAME)
        ):
            post = request.POST.copy()
            post.setlist(ACTION_CHECKBOX_NAME, ["0"])
            request.POST = post
        return super().changelist_view(request, extra_context)

    @admin.action(
        description="Add or update the ready-made sources of the publishers (disabled)",
        permissions=["run_import"],
    )
    def install_presets(self, request, queryset):
        done = presets_install()
        created = [s.name for s, new in done if new]
        updated = [s.name for s, new in done if not new]
        parts = []
        if created:
            parts.append(f"added {len(created)} (disabled: enable them once checked)")
        if updated:
            parts.append(f"updated {len(updated)}")
        messages.success(
            request,
            f"Ready-made sources: {', '.join(parts)}. Each one's note gives its licence and "
            "limits; imports from them need TENDERS_IMPORT_CONTACT set.",
        )

    @admin.display(description="last run")
    def last_run(self, source: ImportSource):
        run = source.runs.order_by("-started_at", "-id").first()
        if run is None:
            return "never"
        link = reverse("admin:tenders_importrun_change", args=[run.pk])
        return format_html(
            '<a href="{}">{} {}</a>', link, run.started_at.strftime("%Y-%m-%d %H:%M"), run.state
        )

    @admin.action(description="Import now from the selected sources", permissions=["run_import"])
    def import_now(self, request, queryset):
        queued = []
        for source in queryset.order_by("name"):
            try:
                queued.append(tasks.import_enqueue(source=source, user=request.user))
            except JobBusy as busy:
                messages.warning(request, busy_message(busy))
        if queued:
            numbers = ", ".join(f"#{job.pk}" for job in queued)
            messages.success(
                request,
                f"Queued {len(queued)} import(s) as job(s) {numbers}. A worker runs them; this "
                "page shows their progress and the runs when they are done.",
            )
            return HttpResponseRedirect(reverse("admin:tenders_importrun_changelist"))
        return None

    def has_run_import_permission(self, request) -> bool:
        return request.user.has_perm(PERMISSION)


# --- runs and uploads ---------------------------------------------------------------------


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """One or more files (Django's documented pattern for ``multiple``)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(d, initial) for d in data]
        return [single(data, initial)] if data else single(data, initial)


class UploadForm(forms.Form):
    format = forms.ChoiceField(
        choices=[
            (value, label) for value, label in ImportFormat.choices if value in UPLOAD_SUFFIXES
        ],
        help_text="OCDS: .json, .json.gz or .jsonl; eForms and GLD: .xml; CSV: .csv with the "
        "documented columns (docs/importing.md); CanadaBuys: its tender notice .csv files.",
    )
    market = forms.ChoiceField(
        choices=[("", "(implied by the format)"), *MARKET_CHOICES],
        required=False,
        help_text="Required for OCDS and CSV; eForms is always EU and GLD always HK.",
    )
    file = MultipleFileField(
        label="Files",
        help_text="The notices to import: one file, several (select them together) or a .zip "
        "of them. They are imported as one run, with counts for each file.",
    )
    since = forms.DateField(
        required=False,
        help_text="Only items published on or after this date (YYYY-MM-DD); empty for all.",
    )
    dry_run = forms.BooleanField(
        required=False, help_text="Read, classify and draft everything, and report; write nothing."
    )

    def clean(self):
        data = super().clean()
        _clean_market(self, data)
        uploads = data.get("file") or []
        if uploads and data.get("format"):
            try:
                upload_check(uploads, UPLOAD_SUFFIXES[data["format"]], data["format"])
            except forms.ValidationError as exc:
                self.add_error("file", exc)
        return data


def upload_check(uploads, suffixes: tuple[str, ...], fmt: str) -> None:
    """Refuse uploads the import could not read, or larger than the limit (the files' sizes,
    and a zip's files as they unpack: a small zip cannot hide a huge import)."""
    limit = settings.TENDERS_IMPORT_UPLOAD_MAX_BYTES
    too_large = forms.ValidationError(
        f"The files are larger than {limit // 1_000_000} MB together: import them with "
        "manage.py import_notices on the server instead."
    )
    if sum(u.size for u in uploads) > limit:
        raise too_large
    unpacked, count = 0, 0
    for upload in uploads:
        name = upload.name.lower()
        if name.endswith(".zip"):
            try:
                members = zip_members(upload, suffixes)
            except zipfile.BadZipFile:
                raise forms.ValidationError(f"{upload.name} is not a readable .zip file.") from None
            if not members:
                raise forms.ValidationError(
                    f"{upload.name} holds no {fmt} files (names ending in {' or '.join(suffixes)})."
                )
            unpacked += sum(m.file_size for m in members)
            count += len(members)
        elif not name.endswith(suffixes):
            raise forms.ValidationError(
                f"{upload.name}: a {fmt} file ends in {' or '.join(suffixes)} (or upload a .zip)."
            )
        else:
            unpacked += upload.size
            count += 1
    if unpacked > limit:
        raise too_large
    if count > settings.TENDERS_IMPORT_UPLOAD_MAX_FILES:
        raise forms.ValidationError(
            f"{count} files: upload at most {settings.TENDERS_IMPORT_UPLOAD_MAX_FILES} at once."
        )


def zip_members(upload, suffixes: tuple[str, ...]) -> list[zipfile.ZipInfo]:
    """The files of an uploaded zip whose names end in ``suffixes`` (folders and others left)."""
    upload.seek(0)
    with zipfile.ZipFile(upload) as archive:
        found = [
            m
            for m in archive.infolist()
            if not m.is_dir()
            and m.filename.lower().endswith(suffixes)
            and not Path(m.filename).name.startswith((".", "__MACOSX"))
            and "__MACOSX" not in m.filename
        ]
    upload.seek(0)
    return found


@admin.register(ImportRun)
class ImportRunAdmin(admin.ModelAdmin):
    change_list_template = "admin/tenders/importrun/change_list.html"
    list_display = (
        "started_at",
        "where",
        "format",
        "market",
        "state",
        "read",
        "created",
        "updated",
        "unchanged",
        "closed",
        "skipped_count",
        "failed",
        "started_by",
    )
    list_filter = ("state", "format", "market", "source")
    list_select_related = ("source", "started_by")
    search_fields = ("location", "source__name", "error")
    date_hierarchy = "started_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        hidden = ("failures", "skipped", "files")
        names = [f.name for f in self.opts.fields if f.name not in hidden]
        return [*names, "skipped_by_reason", "failure_list", "file_counts"]

    def get_fields(self, request, obj=None):
        return self.get_readonly_fields(request, obj)

    @admin.display(description="source")
    def where(self, run: ImportRun) -> str:
        return run.source.name if run.source else run.location

    @admin.display(description="skipped")
    def skipped_count(self, run: ImportRun) -> int:
        return run.skipped_total

    @admin.display(description="skipped, by reason")
    def skipped_by_reason(self, run: ImportRun):
        if not run.skipped:
            return "none"
        return format_html(
            "<ul>{}</ul>",
            format_html_join("", "<li>{}: {}</li>", sorted(run.skipped.items())),
        )

    @admin.display(description="counts of each file")
    def file_counts(self, run: ImportRun):
        if not run.files:
            return "One file: the counts above."
        columns = ("read", "created", "updated", "unchanged", "skipped", "failed")
        rows = format_html_join(
            "",
            "<tr><td>{}</td>" + "<td>{}</td>" * len(columns) + "</tr>",
            (
                (name, *(counts.get(c, 0) for c in columns))
                for name, counts in sorted(run.files.items())
            ),
        )
        head = "".join(f"<th>{c}</th>" for c in columns)
        return format_html(
            '<table class="import-files"><thead><tr><th>file</th>{}</tr></thead><tbody>{}</tbody>'
            "</table>",
            mark_safe(head),
            rows,
        )

    @admin.display(description="failures")
    def failure_list(self, run: ImportRun):
        if not run.failures:
            return "none"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((f["place"], f["notice_id"], f["message"]) for f in run.failures),
        )
        more = run.failed - len(run.failures)
        tail = format_html("<p>… and {} more.</p>", more) if more > 0 else ""
        return format_html(
            '<table class="import-failures"><thead><tr><th>where</th><th>notice</th>'
            "<th>what to do</th></tr></thead><tbody>{}</tbody></table>{}",
            rows,
            tail,
        )

    def get_urls(self):
        return [
            path(
                "upload/",
                self.admin_site.admin_view(self.upload_view),
                name="tenders_importrun_upload",
            ),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        # The imports queued or running, else the last one, so its outcome stays in view.
        recent = Job.objects.filter(kind=tasks.IMPORT).select_related("requested_by")
        jobs = list(recent.filter(state__in=Job.ACTIVE_STATES)) or list(recent[:1])
        extra = {
            "can_import": request.user.has_perm(PERMISSION),
            "panels": [job_panel(job, user=request.user) for job in jobs],
            "refresh": any(job.active for job in jobs),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context=extra)

    def upload_view(self, request):
        if not request.user.has_perm(PERMISSION):
            raise PermissionDenied
        form = UploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            job = tasks.upload_import_enqueue(
                uploads=data["file"],
                fmt=data["format"],
                market=data["market"],
                since=data["since"],
                dry_run=data["dry_run"],
                user=request.user,
            )
            messages.success(
                request,
                f"Queued {job.label} as job #{job.pk}; a worker runs it, and this page shows "
                "its progress and outcome.",
            )
            return HttpResponseRedirect(reverse("admin:tenders_importrun_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Import notices from a file",
            "form": form,
        }
        return TemplateResponse(request, "admin/tenders/importrun/upload.html", context)
