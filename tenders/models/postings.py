"""The search postings of a snapshot (``tenders.read.postings``): built by a job after publication,
read by the count of a ``q``. Everything is keyed by the snapshot etag it was built from, so a
withdrawal or a same-week replacement is never counted from another snapshot's postings."""

from django.db import models

from .feed import Issue


class SearchPostings(models.Model):
    """A finished build of an issue's postings: the count path uses them only while the issue
    still has this snapshot etag and the keys are those of ``tenders.read.postings.SCHEME``
    (postings of an older scheme lack keys a plan may name). ``cells``: [[IssueCount pk, rows],
    ...] in ordinal order."""

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="+")
    snapshot_etag = models.CharField(max_length=64)
    scheme = models.PositiveSmallIntegerField()
    rows = models.PositiveIntegerField()
    keys = models.PositiveIntegerField()
    cells = models.JSONField(default=list)
    seconds = models.FloatField(default=0)
    built_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issue", "snapshot_etag"], name="searchpostings_once")
        ]

    def __str__(self) -> str:
        return f"postings of issue #{self.issue_id} ({self.snapshot_etag}): {self.keys} keys"


class SearchPosting(models.Model):
    """The rows (ordinals) holding one key: a bitmap (``dense``) or packed uint32 ordinals."""

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="+")
    snapshot_etag = models.CharField(max_length=64)
    key = models.TextField()
    dense = models.BooleanField()
    ords = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["issue", "snapshot_etag", "key"], name="searchposting_key"
            )
        ]

    def __str__(self) -> str:
        return self.key
