"""The digest of a source record's planning inputs, kept by the database with the record.

``SourceTender.plan_digest`` is a stored generated column over ``PLANNING_INPUTS`` (every
field publication's planning reads, but the primary key): the database computes it on every
insert and update, whatever wrote the row (the ORM's save, bulk_create, bulk_update,
queryset.update, a raw UPDATE), so it is never stale. Publication compares it, keyed with its
planning context, with the digest each published row was planned from
(``tenders.publication.sources``) instead of hashing every record's texts each week.

Each field is written as ``<length>:<text>;`` (NULL as ``-``), so no two different records
spell the same text, and hashed with SHA-256: a digest nobody can make two different records
share on purpose, so no key is needed here.
"""

from django.db.models import CharField, F, Func

# The fields planning reads, in ``publication.planning.CANDIDATE_FIELDS`` order (without the
# primary key; ``publication.sources`` checks that the two agree).
PLANNING_INPUTS = (
    "listing_id",
    "status",
    "withheld_reason",
    "market",
    "category_id",
    "deadline",
    "amount",
    "currency",
    "lead_ok",
    "buyer_name",
    "reference",
    "source_url",
    "title",
    "description",
    "summary_en",
    "summary_zh",
    "summary_zht",
)


class RecordDigest(Func):
    """SHA-256 (64 hex digits) of the named fields, each length-prefixed.

    Immutable on PostgreSQL, as a generated column needs: no cast that reads a setting (a
    timestamp is written as seconds since the epoch in UTC, not in the session's time zone),
    and the text reaches ``sha256`` as bytes through ``bytea``'s escape format (backslashes
    doubled, so every text maps to its own bytes). On SQLite (``dev.py run``), Django's
    deterministic ``SHA256`` function over the same framing.
    """

    def __init__(self, *fields: str, **extra):
        super().__init__(*(F(name) for name in fields), output_field=CharField(max_length=64))

    def _joined(self, compiler, connection, as_text) -> tuple[str, list]:
        parts, params = [], []
        for expression in self.get_source_expressions():
            sql, more = compiler.compile(expression)
            kind = expression.output_field.get_internal_type()
            text = f"COALESCE({as_text(sql, kind)}, '-')"
            parts.append(f"CAST(LENGTH({text}) AS TEXT) || ':' || {text} || ';'")
            params += [*more, *more]
        return " || ".join(parts), params

    def as_postgresql(self, compiler, connection, **extra):
        def as_text(sql: str, kind: str) -> str:
            if kind == "DateTimeField":
                return f"(EXTRACT(EPOCH FROM ({sql} AT TIME ZONE 'UTC')))::text"
            return f"({sql})::text"

        joined, params = self._joined(compiler, connection, as_text)
        return f"ENCODE(SHA256(REPLACE({joined}, '\\', '\\\\')::bytea), 'hex')", params

    def as_sql(self, compiler, connection, **extra):
        def as_text(sql: str, kind: str) -> str:
            return f"CAST({sql} AS TEXT)"

        joined, params = self._joined(compiler, connection, as_text)
        return f"SHA256({joined})", params
