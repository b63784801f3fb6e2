"""Private bookkeeping of publication: what each published row was planned from, and the gate
checks records passed."""

from django.db import models

from .feed import Issue, SourceTender


class PlanDigest(models.Model):
    """The digest of the planning inputs a published row of an issue was planned from.

    One per published row. The next publication reuses the row (copies it, recomputing only its
    weekly parts) for every record whose digest is still the same and that no change of the
    gate's data since affects: see ``tenders.publication.sources``. Private (a digest of
    private fields); partitioned by issue on PostgreSQL like the snapshot, and dropped with it.
    """

    pk = models.CompositePrimaryKey("issue", "tender")
    issue = models.ForeignKey(
        Issue, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    # Read by one hash join per publication: no index to build.
    tender = models.ForeignKey(
        SourceTender,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="plans",
    )
    digest = models.CharField(max_length=64)

    def __str__(self) -> str:
        return self.digest


class GateCheck(models.Model):
    """One state of the sanitization gate that records were checked against and passed.

    ``code`` identifies the gate's rules (``GATE_VERSION`` and the source of the ``sanitize``
    package); ``data`` its directory and allow-lists, as an issue records them
    (``Issue.plan_gate``). A record that passed keeps its ``plan_digest`` and this check
    (``SourceTender.gate_passed``, ``gate_check``); see ``tenders.publication.passes``.
    """

    key = models.CharField(max_length=64, unique=True)
    code = models.CharField(max_length=64)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"gate check {self.key[:12]}"
