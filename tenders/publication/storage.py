"""Where snapshot rows live: the one storage interface of the feed.

Everything that depends on the database engine sits behind ``snapshot_store()``; publication,
withdrawal, the read path and search ask the store what to do, never which database they are
on. A publication talks to its store through a *build*: ``start``, ``write`` planned batches
(or ``copy_rows`` of another issue), ``finish_load``, ``index`` (running the flat file
alongside), then ``attach`` inside the switch transaction.

- ``PartitionStore`` (PostgreSQL): the snapshot table, and the private ``PlanDigest`` table,
  are partitioned by issue. A build creates bare tables, loads them with binary COPY (rows
  arrive already encoded from the planning workers) and copies reused rows from the last issue
  inside the database. When the caller has no transaction of its own, the load is committed
  (the bare tables are invisible to readers) and the indexes are built in parallel on their
  own connections while the flat file is written; the tables are attached at the switch.
  Retiring an issue drops its tables instead of deleting a million rows.
- ``TableStore`` (any other database, e.g. the embedded SQLite of ``dev.py run``): one plain
  table each, rows inserted in batches and deleted with DELETE.
"""

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager

from django.db import connection, connections
from django.db.migrations.operations import CreateModel
from django.db.models import QuerySet

from core.database import server_settings
from tenders.read import search
from tenders.read.rows import ROW_COLUMNS

from ..models import Issue, PlanDigest, SnapshotRow
from . import pgcopy
from .planning import DIGEST_VALUES, ROW_VALUES, WEEKLY_VALUES, PlannedBatch, batched

PARENT = SnapshotRow._meta.db_table
DIGESTS = PlanDigest._meta.db_table
# One publication or withdrawal at a time (the PostgreSQL advisory lock's key).
PUBLISH_LOCK = 7_246_001
# Backends of a publication stop within a second when its process is gone (PostgreSQL 14+).
CHECK_CLIENT = ("client_connection_check_interval", "1s")


def snapshot_store(*, bulk: bool = True) -> "TableStore":
    """The store of the default database. ``bulk=False`` loads with INSERTs even where the
    store has a faster path (tests compare both)."""
    if connection.vendor == "postgresql":
        return PartitionStore() if bulk else AttachedPartitionStore()
    return TableStore()


class TableStore:
    """One plain snapshot table, written through the ORM."""

    @contextmanager
    def lock(self) -> Iterator[bool]:
        """Yields whether this process holds the publication lock (SQLite serializes writers)."""
        yield True

    def stream(
        self, rows: QuerySet, size: int, hints: dict[str, str] | None = None
    ) -> Iterator[list[tuple]]:
        """A ``values_list`` queryset's rows, in batches, without holding them all; read with
        the planner settings ``hints`` where the database has them."""
        yield from batched(rows.iterator(chunk_size=size), size)

    def build(self, issue: Issue, *, last: Issue | None = None) -> "TableBuild":
        """A build of ``issue``'s snapshot; reused rows are copied from ``last``."""
        return TableBuild(issue, last)

    def drop_rows(self, issue: Issue) -> None:
        SnapshotRow.objects.filter(issue=issue).delete()
        PlanDigest.objects.filter(issue=issue).delete()


class TableBuild:
    """Rows and digests inserted through the ORM, in the caller's transaction."""

    encoded = False  # planned batches carry tuples

    def __init__(self, issue: Issue, last: Issue | None):
        self.issue = issue
        self.last = last

    def start(self) -> None:
        pass

    def write(self, batch: PlannedBatch) -> None:
        issue = self.issue
        rows = [_row(issue, values) for values in batch.rows]
        if batch.reused:
            weekly = {r[0]: r[1:] for r in batch.reused}
            for row in SnapshotRow.objects.filter(issue=self.last, asaptic_id__in=weekly):
                row.issue = issue
                row.value_band, row.closing_bucket, row.new_this_issue = weekly[row.asaptic_id]
                rows.append(row)
        SnapshotRow.objects.bulk_create(rows)
        PlanDigest.objects.bulk_create(
            PlanDigest(issue=issue, tender_id=pk, digest=digest) for pk, digest in batch.digests
        )

    def copy_rows(self, source: Issue, *, except_listing: str) -> None:
        """Fill the build with ``source``'s rows and digests, leaving one listing out."""
        rows = SnapshotRow.objects.filter(issue=source).exclude(asaptic_id=except_listing)
        for chunk in batched(rows.values_list(*ROW_VALUES).iterator(chunk_size=2000), 2000):
            SnapshotRow.objects.bulk_create(_row(self.issue, values) for values in chunk)
        digests = PlanDigest.objects.filter(issue=source).exclude(tender__listing_id=except_listing)
        PlanDigest.objects.bulk_create(
            PlanDigest(issue=self.issue, tender_id=t, digest=d)
            for t, d in digests.values_list("tender_id", "digest")
        )

    def finish_load(self) -> None:
        pass

    def index(self, alongside: Callable[[], None]) -> None:
        """Build the indexes, running ``alongside()`` meanwhile where the store can;
        ``alongside`` reads ``rows_by_sort_key``."""
        alongside()

    def rows_by_sort_key(self, size: int) -> Iterator[list[tuple]]:
        """The build's rows as ``ROW_COLUMNS`` tuples, ordered by sort_key, in batches."""
        rows = SnapshotRow.objects.filter(issue=self.issue).order_by("sort_key")
        yield from batched(rows.values_list(*ROW_COLUMNS).iterator(chunk_size=size), size)

    def attach(self) -> None:
        pass


def _row(issue: Issue, values: tuple) -> SnapshotRow:
    return SnapshotRow(issue=issue, **dict(zip(ROW_VALUES, values, strict=True)))


class PartitionStore(TableStore):
    """PostgreSQL: one partition per issue, loaded bare and indexed in bulk before ATTACH."""

    # Batches read ahead by a reader on a connection of its own.
    READ_AHEAD = 2

    def __init__(self):
        # Outside a caller's transaction, what a publication reads is committed: a reader on
        # another connection sees it, and reads while this connection loads rows. Inside one
        # (tests), only this connection sees the caller's records. The load takes no lock the
        # read needs: its tables are bare until the switch.
        self.read_apart = not connection.in_atomic_block

    @contextmanager
    def lock(self) -> Iterator[bool]:
        """The advisory lock of this session. While it is held, the server checks every
        second that this process is still there: the backend of a killed publication stops
        its statement (and frees the lock) at once, instead of running it to its end."""
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [PUBLISH_LOCK])
            acquired = cursor.fetchone()[0]
            if acquired:
                cursor.execute("SELECT set_config(%s, %s, false)", [*CHECK_CLIENT])
        try:
            yield acquired
        finally:
            if acquired:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [PUBLISH_LOCK])
                    cursor.execute(f"RESET {CHECK_CLIENT[0]}")

    def stream(
        self, rows: QuerySet, size: int, hints: dict[str, str] | None = None
    ) -> Iterator[list[tuple]]:
        sql, params = rows.query.get_compiler(connection=connection).as_sql()
        hints = hints or {}
        if not self.read_apart:
            yield from _fetch(sql, params, size, hints)
            return
        # A thread reads the next batches while the caller loads this one (on its connection).
        chunks: queue.Queue = queue.Queue(maxsize=self.READ_AHEAD)
        stop = threading.Event()

        def put(item) -> bool:
            while not stop.is_set():
                try:
                    chunks.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def read() -> None:
            try:
                # Closed here, in this thread, before its connection is.
                with closing(_fetch(sql, params, size, hints)) as fetched:
                    for chunk in fetched:
                        if not put(chunk):
                            return
                put(None)
            except BaseException as exc:
                put(exc)
            finally:
                connections["default"].close()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            while (item := chunks.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            reader.join()

    def build(self, issue: Issue, *, last: Issue | None = None) -> "PartitionBuild":
        return PartitionBuild(issue, last)

    def drop_rows(self, issue: Issue) -> None:
        with connection.cursor() as cursor:
            for parent in (PARENT, DIGESTS):
                cursor.execute(f"DROP TABLE IF EXISTS {partition_name(issue.pk, parent)}")


class AttachedPartitionStore(PartitionStore):
    """PostgreSQL loaded through the ORM: partitions attached at once, rows INSERTed."""

    def __init__(self):
        # Attaching locks the parents the read joins (the last issue's digests): one
        # connection, or the reader would wait for the load that waits for it.
        self.read_apart = False

    def build(self, issue: Issue, *, last: Issue | None = None) -> TableBuild:
        return AttachedPartitionBuild(issue, last)


class AttachedPartitionBuild(TableBuild):
    def start(self) -> None:
        with connection.cursor() as cursor:
            for parent in (PARENT, DIGESTS):
                cursor.execute(
                    f"CREATE TABLE {partition_name(self.issue.pk, parent)} PARTITION OF {parent} "
                    f"FOR VALUES IN ({int(self.issue.pk)})"
                )


class PartitionBuild:
    """Bare partitions, loaded by binary COPY, indexed in bulk, attached at the switch."""

    encoded = True  # planning workers send rows as COPY tuples

    def __init__(self, issue: Issue, last: Issue | None):
        self.issue = issue
        self.last = last
        self.table = partition_name(issue.pk)
        self.digests = partition_name(issue.pk, DIGESTS)

    def start(self) -> None:
        """Create the bare tables, and the table of this week's parts of reused rows."""
        pk = int(self.issue.pk)
        with connection.cursor() as cursor:
            for table, parent in ((self.table, PARENT), (self.digests, DIGESTS)):
                cursor.execute(f"CREATE TABLE {table} (LIKE {parent} INCLUDING DEFAULTS)")
                # Rows are written without their issue: every row of the table has this one.
                cursor.execute(f"ALTER TABLE {table} ALTER issue_id SET DEFAULT {pk}")
                cursor.execute(f"ALTER TABLE {table} ADD CHECK (issue_id = {pk})")
            # Rows stay whole in the page up to 8 kB: a row of about 2 kB is not compressed on
            # its way in (pglz gains next to nothing on these texts, at a cost on every write and
            # read).
            cursor.execute(f"ALTER TABLE {self.table} SET (toast_tuple_target = 8160)")
            if self.last is not None:
                cursor.execute(
                    "CREATE TEMPORARY TABLE publication_weekly (asaptic_id text, "
                    "value_band text, closing_bucket text, new_this_issue bool) ON COMMIT DROP"
                )

    def write(self, batch: PlannedBatch) -> None:
        with connection.cursor() as cursor:
            _copy_in(cursor, self.table, ROW_VALUES, batch.rows)
            _copy_in(cursor, "publication_weekly", WEEKLY_VALUES, batch.reused)
            _copy_in(cursor, self.digests, DIGEST_VALUES, batch.digests)

    def copy_rows(self, source: Issue, *, except_listing: str) -> None:
        columns = ", ".join(ROW_VALUES)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {self.table} ({columns}) SELECT {columns} FROM {PARENT} "
                "WHERE issue_id = %s AND asaptic_id <> %s",
                [source.pk, except_listing],
            )
            cursor.execute(
                f"INSERT INTO {self.digests} (tender_id, digest) SELECT d.tender_id, d.digest "
                f"FROM {DIGESTS} d JOIN tenders_sourcetender t ON t.id = d.tender_id "
                "WHERE d.issue_id = %s AND t.listing_id <> %s",
                [source.pk, except_listing],
            )

    def finish_load(self) -> None:
        """Copy the reused rows from the last issue, with this week's parts."""
        if self.last is None:
            return
        weekly = set(WEEKLY_VALUES)
        columns = ", ".join(ROW_VALUES)
        chosen = ", ".join(f"w.{c}" if c in weekly else f"r.{c}" for c in ROW_VALUES)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {self.table} ({columns}) SELECT {chosen} "
                f"FROM {PARENT} r JOIN publication_weekly w USING (asaptic_id) "
                "WHERE r.issue_id = %s",
                [self.last.pk],
            )
            cursor.execute("DROP TABLE publication_weekly")

    def index(self, alongside: Callable[[], None]) -> None:
        """ANALYZE, then every index; ``alongside()`` (the flat file) starts as soon as the
        sort_key index is there. In parallel on separate connections when the load could be
        committed, else one after the other in the caller's transaction."""
        first, *plain, digests = self._plain_indexes()
        found = self._search_indexes()
        # The digests too: the next publication joins them (autovacuum may not have come yet).
        analyze = f"ANALYZE {self.table}, {self.digests}"
        if connection.in_atomic_block:
            _run([analyze, first, *plain, digests, *found])
            alongside()
            return
        ready = threading.Event()
        # The trigram index costs most (about as much as every other index and the flat file
        # together): it has a lane (a core) of its own from the start; the other lane builds
        # the rest while the flat file is written.
        latin, others = found[:1], found[1:]
        lanes = [
            _Lane([analyze, first], then=ready.set, more=[*plain, digests, *others]),
            _Lane(latin),
        ]
        for lane in lanes:
            lane.start()
        ready.wait()
        try:
            alongside()
        finally:
            for lane in lanes:
                lane.join()
        for lane in lanes:
            if lane.error is not None:
                raise lane.error

    def _plain_indexes(self) -> list[str]:
        """Each matches one of the parent's, so ATTACH adopts it: the primary key's first (the
        flat file reads along it), the digests' last."""
        table, meta = self.table, SnapshotRow._meta
        statements = [
            f"CREATE UNIQUE INDEX {table}_pkey ON {table} (issue_id, sort_key)",
            f"CREATE UNIQUE INDEX {table}_listing ON {table} (issue_id, asaptic_id)",
        ]
        for index in meta.indexes:
            columns = ", ".join(meta.get_field(f).column for f in index.fields)
            statements.append(f"CREATE INDEX {table}_{index.name} ON {table} ({columns})")
        digests = self.digests
        statements.append(f"CREATE UNIQUE INDEX {digests}_pk ON {digests} (issue_id, tender_id)")
        return statements

    def _search_indexes(self) -> list[str]:
        """The trigram index first (the costliest)."""
        table = self.table
        names = sorted(search.INDEXES, key=lambda name: name != "latin")
        return [f"CREATE INDEX {table}_{n} ON {table} {search.INDEXES[n]}" for n in names]

    def rows_by_sort_key(self, size: int) -> Iterator[list[tuple]]:
        columns = ", ".join(ROW_COLUMNS)
        connection.ensure_connection()
        with (
            # Along the sort_key index, not a sort of the whole table.
            server_settings({"enable_sort": "off"}),
            connection.connection.cursor(name="publication_rows", binary=True) as cursor,
        ):
            cursor.itersize = size
            cursor.execute(f"SELECT {columns} FROM {self.table} ORDER BY sort_key")
            while chunk := cursor.fetchmany(size):
                yield chunk

    def attach(self) -> None:
        """Make the built tables partitions (in the switch transaction): their indexes and
        constraints are adopted by the parents', so nothing is built here."""
        pk = int(self.issue.pk)
        table, digests = self.table, self.digests
        with connection.cursor() as cursor:
            cursor.execute(
                f"ALTER TABLE {table} ADD PRIMARY KEY USING INDEX {table}_pkey, "
                # A constraint (not a bare unique index) so ATTACH adopts it for the parent's.
                f"ADD CONSTRAINT {table}_listing UNIQUE USING INDEX {table}_listing"
            )
            cursor.execute(f"ALTER TABLE {digests} ADD PRIMARY KEY USING INDEX {digests}_pk")
            for part, parent in ((table, PARENT), (digests, DIGESTS)):
                cursor.execute(f"ALTER TABLE {parent} ATTACH PARTITION {part} FOR VALUES IN ({pk})")


class _Lane(threading.Thread):
    """Statements run in order on a connection of their own (Django gives each thread one)."""

    def __init__(self, statements: list[str], *, then=None, more: list[str] = ()):
        super().__init__(daemon=True)
        self.statements, self.then, self.more = statements, then, list(more)
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            _run(self.statements)
            if self.then:
                self.then()
            _run(self.more)
        except BaseException as exc:
            self.error = exc
            if self.then:
                self.then()  # never leave the main thread waiting
        finally:
            connections["default"].close()


def _fetch(sql: str, params, size: int, hints: dict[str, str]) -> Iterator[list[tuple]]:
    """Rows of a query on this thread's connection, in batches: a server-side cursor in binary
    (C loaders for every column; Django's own iterator reads text, and parses each timestamp
    in Python), with the planner settings ``hints``."""
    connection.ensure_connection()
    with (
        server_settings(hints),
        connection.connection.cursor(name="publication_read", binary=True) as cursor,
    ):
        cursor.itersize = size
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(size):
            yield chunk


def _run(statements: list[str]) -> None:
    # Sorting and GIN builds go faster with more memory (per build, in the server).
    hints = {"maintenance_work_mem": "256MB", CHECK_CLIENT[0]: CHECK_CLIENT[1]}
    with server_settings(hints), connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


def _copy_in(cursor, table: str, columns, data: bytes) -> None:
    if not data:
        return
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT binary)"
    with cursor.cursor.copy(statement) as copy:
        copy.write(pgcopy.framed(data))


def partition_name(issue_pk: int, parent: str = PARENT) -> str:
    return f"{parent}_i{int(issue_pk)}"


class CreatePartitionedModel(CreateModel):
    """CreateModel that makes the table ``PARTITION BY LIST (<column>)`` on PostgreSQL."""

    def __init__(self, *args, partition_column: str, **kwargs):
        self.partition_column = partition_column
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, args, kwargs = super().deconstruct()
        kwargs["partition_column"] = self.partition_column
        return name, args, kwargs

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        model = to_state.apps.get_model(app_label, self.name)
        sql, params = schema_editor.table_sql(model)
        column = schema_editor.quote_name(self.partition_column)
        schema_editor.execute(f"{sql} PARTITION BY LIST ({column})", params or None)
