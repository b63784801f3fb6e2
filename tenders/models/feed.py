"""The two worlds of the feed.

Private side: ``SourceTender`` holds everything staff know about a notice (buyer, reference,
exact deadline, amount, source). It never leaves the admin.

Public side: an ``Issue`` is one publication of the weekly feed; its ``SnapshotRow``s hold the
eleven public fields exactly as served, denormalized and immutable. Every change to what is
public (a publication, a same-week republish, an emergency withdrawal) makes a new ``Issue``
with a new etag, so a reader bound to one issue never sees a mix. Public surfaces read only the
current issue's rows and the counts computed when it was published.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from .. import ids
from ..buckets import CLOSING_BUCKETS, VALUE_BANDS
from ..markets import MARKET_CHOICES
from .digest import PLANNING_INPUTS, RecordDigest


def new_real_listing_id() -> str:
    return ids.new_listing_id()


class Category(models.Model):
    slug = models.SlugField(max_length=64, unique=True, help_text="Stable public identifier.")
    name_en = models.CharField("English name", max_length=120)
    name_zh = models.CharField("Simplified Chinese name", max_length=60)
    name_zht = models.CharField("Traditional Chinese name", max_length=60)
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in facet lists.")

    class Meta:
        ordering = ["position", "slug"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name_en


class CurrencyRate(models.Model):
    currency = models.CharField(
        max_length=3, unique=True, help_text="ISO 4217 code, upper case (e.g. HKD)."
    )
    usd_per_unit = models.DecimalField(
        "USD per unit",
        max_digits=18,
        decimal_places=8,
        help_text="How many US dollars one unit of this currency is worth. Used only to put "
        "amounts into public value bands; exact amounts are never published.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["currency"]
        constraints = [
            models.CheckConstraint(condition=Q(usd_per_unit__gt=0), name="currencyrate_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.currency} = {self.usd_per_unit} USD"


class SourceTender(models.Model):
    """A tender notice as staff hold it. Private: never serialized to a public surface."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        APPROVED = "approved", "Approved"
        WITHHELD = "withheld", "Withheld"
        # Cancelled, awarded, completed or withdrawn at the source (an import found it): out
        # of every later issue; the reason is on the record's imported notice.
        CLOSED = "closed", "Closed at source"

    listing_id = models.CharField(
        max_length=18,
        unique=True,
        default=new_real_listing_id,
        editable=False,
        help_text="Public listing id, assigned at creation and never reused.",
    )
    market = models.CharField(max_length=2, choices=MARKET_CHOICES)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="tenders")
    buyer_name = models.CharField(max_length=300, help_text="Private. Never published.")
    reference = models.CharField(
        max_length=120, blank=True, help_text="The buyer's notice reference. Private."
    )
    source_url = models.URLField(
        max_length=500, blank=True, help_text="Where the notice came from. Private."
    )
    deadline = models.DateTimeField(help_text="Exact closing time. Private; published as a bucket.")
    amount = models.DecimalField(
        max_digits=18,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="Estimated value. Private; published only as a value band.",
    )
    currency = models.CharField(max_length=3, blank=True, help_text="ISO 4217 code of the amount.")
    title = models.CharField(max_length=500, help_text="Raw title from the notice. Private.")
    description = models.TextField(blank=True, help_text="Raw description. Private.")
    concepts = models.JSONField(
        default=list,
        blank=True,
        help_text="CPV codes of what is bought, the main one first (at most three): the "
        "summaries are built from their labels.",
    )
    summary_en = models.TextField("English summary", blank=True)
    summary_zh = models.TextField("Simplified Chinese summary", blank=True)
    summary_zht = models.TextField("Traditional Chinese summary", blank=True)
    lead_ok = models.BooleanField(
        default=True, help_text="Whether supplier interest is accepted for this listing."
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    withheld_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Kept by the database on every write (``digest``): publication reuses a record's row while
    # it holds.
    plan_digest = models.GeneratedField(
        expression=RecordDigest(*PLANNING_INPUTS),
        output_field=models.CharField(max_length=64),
        db_persist=True,
        editable=False,
    )
    # The record's ``plan_digest`` when it last passed the gate (at approval, or by
    # ``check_gate``), and the gate's code and data it passed (``publication.passes``):
    # publication trusts the pass while the digest holds and no change of the gate since can
    # affect the record. A pass only ever spares the gate a record; it never withholds one.
    gate_passed = models.CharField(max_length=64, blank=True, editable=False)
    gate_check = models.ForeignKey(
        "tenders.GateCheck",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        db_index=False,
        related_name="+",
    )
    # The number of the gate's findings when the record was last scanned for the admin's
    # "has findings" filter (``tenders.findings``), its ``plan_digest`` then and the
    # gate's rules and data (``findings.findings_key``): trusted only while both hold.
    findings = models.PositiveIntegerField(null=True, blank=True, editable=False)
    findings_digest = models.CharField(max_length=64, blank=True, editable=False)
    findings_gate = models.CharField(max_length=64, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "deadline"], name="sourcetender_status_deadline")]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="withheld") | ~Q(withheld_reason=""),
                name="sourcetender_withheld_has_reason",
            ),
            models.CheckConstraint(
                condition=(Q(amount__isnull=True) & Q(currency=""))
                | (Q(amount__isnull=False) & ~Q(currency="")),
                name="sourcetender_amount_with_currency",
            ),
            models.CheckConstraint(
                condition=~Q(status="approved")
                | (~Q(summary_en="") & ~Q(summary_zh="") & ~Q(summary_zht="")),
                name="sourcetender_approved_has_summaries",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.listing_id} {self.title[:60]}"


class Issue(models.Model):
    """One publication of the weekly feed: an immutable snapshot and its counts."""

    class State(models.TextChoices):
        BUILDING = "building", "Building"
        LIVE = "live", "Live"
        REPLACED = "replaced", "Replaced"
        FAILED = "failed", "Failed"

    class Reason(models.TextChoices):
        PUBLISH = "publish", "Weekly publication"
        WITHDRAW = "withdraw", "Emergency withdrawal"

    issue_id = models.CharField(max_length=8, help_text="ISO week of publication, YYYY-Www.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.BUILDING)
    is_current = models.BooleanField(default=False)
    reason = models.CharField(max_length=10, choices=Reason.choices, default=Reason.PUBLISH)
    note = models.TextField(blank=True)
    generated = models.DateTimeField()
    snapshot_etag = models.CharField(max_length=64, blank=True)
    previous = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The earlier issue that new_this_issue was computed against.",
    )
    rows_total = models.PositiveIntegerField(default=0)
    withheld = models.PositiveIntegerField(default=0)
    new_count = models.PositiveIntegerField(default=0)
    continuing_count = models.PositiveIntegerField(default=0)
    dropped_count = models.PositiveIntegerField(default=0)
    facets = models.JSONField(default=dict, blank=True)
    flat_file = models.CharField(max_length=200, blank=True)
    flat_file_bytes = models.PositiveBigIntegerField(default=0)
    rows_pruned = models.BooleanField(default=False)
    plan_gate = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="Private: the gate's data the rows were planned against (the highest "
        "directory name and a fingerprint of the names up to it, the allowances), so the next "
        "publication reuses the rows no change since can affect.",
    )
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    replaced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_current"], condition=Q(is_current=True), name="issue_one_current"
            ),
            models.UniqueConstraint(
                fields=["issue_id"], condition=Q(state="live"), name="issue_one_live_per_week"
            ),
            models.UniqueConstraint(
                fields=["snapshot_etag"], condition=~Q(snapshot_etag=""), name="issue_etag_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.issue_id} ({self.get_state_display()}, {self.rows_total} rows)"


CATEGORY_CELL = [
    "issue",
    "category_slug",
    "market",
    "value_band",
    "closing_bucket",
    "lead_ok",
    "new_this_issue",
]
MARKET_CELL = ["issue", "market", "value_band", "closing_bucket", "lead_ok", "new_this_issue"]


class SnapshotRow(models.Model):
    """One public row of one issue: the eleven public fields, plus the search column.

    On PostgreSQL the table is partitioned by issue: each publication loads and indexes its own
    partition, then attaches it, and dropping an old issue is dropping a table.
    """

    pk = models.CompositePrimaryKey("issue", "sort_key")
    issue = models.ForeignKey(
        Issue, on_delete=models.DO_NOTHING, db_constraint=False, related_name="rows"
    )
    sort_key = models.CharField(max_length=64)
    asaptic_id = models.CharField(max_length=18)
    market = models.CharField(max_length=2)
    category_slug = models.CharField(max_length=64)
    category_name_en = models.CharField(max_length=120)
    category_name_zh = models.CharField(max_length=60)
    category_name_zht = models.CharField(max_length=60)
    summary_en = models.TextField()
    summary_zh = models.TextField()
    summary_zht = models.TextField()
    value_band = models.CharField(max_length=8, null=True, choices=[(b, b) for b in VALUE_BANDS])
    closing_bucket = models.CharField(max_length=16, choices=[(b, b) for b in CLOSING_BUCKETS])
    lead_ok = models.BooleanField()
    new_this_issue = models.BooleanField()
    # Derived search columns (see tenders/read/search.py); never served.
    search_text = models.TextField()
    search_latin = models.TextField(default="")
    search_cjk = models.JSONField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issue", "asaptic_id"], name="snapshotrow_issue_id"),
        ]
        # Selective filter combinations: the planner reads the matching rows straight from
        # these (then sorts the few it found) instead of walking sort_key order past rows that
        # do not match. Every filter column is in the key, so non-matches never touch the heap.
        # Unselective filters keep using the primary key (issue, sort_key) in order.
        indexes = [
            models.Index(fields=CATEGORY_CELL, name="snapshotrow_category_cell"),
            models.Index(fields=MARKET_CELL, name="snapshotrow_market_cell"),
        ]

    def __str__(self) -> str:
        return self.asaptic_id


# The filter dimensions of a row, in IssueCount field order (and a planned row's ``cell``).
CELL_FIELDS = (
    "market",
    "category_slug",
    "closing_bucket",
    "value_band",
    "lead_ok",
    "new_this_issue",
)


class IssueCount(models.Model):
    """Row counts of an issue for every combination of the list filters (except ``q``).

    Computed once at publication: the total of any filtered listing without ``q`` is a sum over
    these cells, and the facets are their margins, so no request ever counts snapshot rows.
    """

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="counts")
    market = models.CharField(max_length=2)
    category_slug = models.CharField(max_length=64)
    closing_bucket = models.CharField(max_length=16)
    value_band = models.CharField(max_length=8, null=True)
    lead_ok = models.BooleanField()
    new_this_issue = models.BooleanField()
    rows = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["issue", "market"], name="issuecount_issue_market")]

    def __str__(self) -> str:
        return f"{self.market}/{self.category_slug}/{self.closing_bucket}: {self.rows}"


class WithheldRecord(models.Model):
    """Why a record eligible for an issue was held back (for staff only)."""

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="withheld_records")
    tender = models.ForeignKey(SourceTender, on_delete=models.CASCADE, related_name="+")
    reasons = models.JSONField(default=list)

    class Meta:
        indexes = [models.Index(fields=["issue"], name="withheldrecord_issue")]

    def __str__(self) -> str:
        return "; ".join(self.reasons)
