"""An issue as staff read it in the admin, and the records a previewed one leaves out.

An issue as staff read it in the admin: which publication of its week it is, who published
it, its rows per market and category (from the counts kept at publication, so no snapshot
row is read), why records were withheld, what it followed and what replaced it.
Staff only: withheld records and their reasons are never public."""

from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Q, Sum

from .markets import MARKET_CHOICES
from .models import Category, Issue, IssueCount, SourceTender, WithheldRecord
from .publication import PublicationSummary
from .publication.planning import reason_kind

EXAMPLES = 5


@dataclass
class IssueReport:
    issue: Issue
    number_in_week: int  # 1 for the week's first publication, 2 for a republication...
    publications_in_week: int
    by_market: list[tuple[str, int]]
    by_category: list[tuple[str, int]]
    by_market_and_category: list[tuple[str, str, int]]
    withheld_by_reason: list[tuple[str, int, list[WithheldRecord]]] = field(default_factory=list)
    replaced_by: Issue | None = None
    followed: Issue | None = None  # the issue it replaced as current


def issue_name(issue: Issue, number: int | None = None) -> str:
    """An issue's name for people: its week, and which publication of the week it is when
    the week had more than one ("2026-W48, publication 3")."""
    if number is None:
        number = _number_in_week(issue)
    return f"{issue.issue_id}, publication {number}" if number > 1 else issue.issue_id


def _week(issue: Issue):
    return Issue.objects.filter(issue_id=issue.issue_id).exclude(state=Issue.State.FAILED)


def _number_in_week(issue: Issue) -> int:
    return _week(issue).filter(created_at__lt=issue.created_at).count() + 1


def issue_report(issue: Issue) -> IssueReport:
    counts = IssueCount.objects.filter(issue=issue)

    def summed(*fields):
        return [
            (*(row[f] for f in fields), row["n"])
            for row in counts.values(*fields).annotate(n=Sum("rows")).order_by(*fields)
        ]

    markets = dict(MARKET_CHOICES)
    categories = dict(Category.objects.values_list("slug", "name_en"))
    withheld = WithheldRecord.objects.filter(issue=issue).select_related("tender").order_by("pk")
    kinds: Counter = Counter()
    examples: dict[str, list[WithheldRecord]] = {}
    for record in withheld.iterator():
        for kind in {reason_kind(r) for r in record.reasons} or {"no reason recorded"}:
            kinds[kind] += 1
            if len(examples.setdefault(kind, [])) < EXAMPLES:
                examples[kind].append(record)
    published = Issue.objects.filter(state__in=[Issue.State.LIVE, Issue.State.REPLACED])
    later = published.filter(created_at__gt=issue.created_at)
    earlier = published.filter(created_at__lt=issue.created_at)
    return IssueReport(
        issue=issue,
        number_in_week=_number_in_week(issue),
        publications_in_week=_week(issue).count(),
        by_market=[(markets.get(m, m), n) for m, n in summed("market")],
        by_category=[(categories.get(c, c), n) for c, n in summed("category_slug")],
        by_market_and_category=[
            (markets.get(m, m), categories.get(c, c), n)
            for m, c, n in summed("market", "category_slug")
        ],
        withheld_by_reason=[(k, n, examples[k]) for k, n in kinds.most_common()],
        replaced_by=later.order_by("created_at", "pk").first()
        if issue.state == Issue.State.REPLACED
        else None,
        followed=earlier.order_by("-created_at", "-pk").first(),
    )


@dataclass
class Excluded:
    """A group of records a publication leaves out: why, how many, and the record list's
    filter that shows them (query parameters of the admin's list)."""

    reason: str
    count: int
    query: dict[str, str]


def unpublished_by_reason(summary: PublicationSummary) -> list[Excluded]:
    """The records the previewed publication ``summary`` leaves out, grouped by why (only the
    groups that hold records): deadlines long passed, withheld by staff or by the gate,
    closed at source, drafts without their summaries, drafts not approved yet."""
    status = SourceTender.Status
    cutoff = summary.generated - timedelta(days=settings.TENDERS_PASSED_GRACE_DAYS)
    missing = Q(summary_en="") | Q(summary_zh="") | Q(summary_zht="")
    records = SourceTender.objects.all()
    by_gate = sum(
        n for kind, n in summary.withheld_by_reason.items() if kind != "withheld by staff"
    )
    groups = [
        Excluded(
            f"Deadline passed over {settings.TENDERS_PASSED_GRACE_DAYS} days ago (approved)",
            records.filter(status=status.APPROVED, deadline__lt=cutoff).count(),
            {"status__exact": "approved", "closes": "out"},
        ),
        Excluded(
            "Withheld by the gate at publication (findings, missing summary or rate)",
            by_gate,
            {"status__exact": "approved", "findings": "yes"},
        ),
        Excluded(
            "Withheld by staff",
            records.filter(status=status.WITHHELD).count(),
            {"status__exact": "withheld"},
        ),
        Excluded(
            "Closed at source (cancelled, awarded or withdrawn)",
            records.filter(status=status.CLOSED).count(),
            {"status__exact": "closed"},
        ),
        Excluded(
            "No summary (drafts missing one or more)",
            records.filter(missing, status=status.DRAFT).count(),
            {"status__exact": "draft", "summary": "missing"},
        ),
        Excluded(
            "Not approved yet (drafts with their summaries)",
            records.filter(status=status.DRAFT).exclude(missing).count(),
            {"status__exact": "draft", "summary": "all"},
        ),
    ]
    return [g for g in groups if g.count]
