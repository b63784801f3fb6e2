"""``tenders``: the tender feed's public API from a terminal or a script.

    tenders [--base-url URL] [--json] [--timeout SECONDS] COMMAND [options]

    list      one page of tenders with any filter, or --all pages (table, or --json)
    get       one tender by id
    facets    every filter value with its row count
    health    the feed's health (exit code 0 ok, 5 degraded, 1 unavailable)
    export    every matching row as JSON Lines or CSV, to a file or standard output
    rfq       send a request for quote
    validate  check a flat file, an API page or a JSON Lines file against the schemas

The base URL is ``--base-url``, else the ``TENDERS_BASE_URL`` environment variable, else
http://127.0.0.1:8000. Only the public HTTP API is used, as any outside client would.

Tables are for people (aligned for Chinese text, cut to the terminal's width); ``--json``
prints the API's bodies as one line of JSON each, for scripts. ``list --all --json`` prints one
page per line (JSON Lines), which ``tenders validate`` checks as one crawl.

``list --all`` and ``export`` follow ``next_cursor`` to the last page. When the feed is
republished meanwhile (409 ``snapshot_changed``), they start again from the first page, at most
``--max-restarts`` times, and say so on standard error. Output is written to a temporary file
first and moved (or copied to standard output) only when every page is read, so a restart or a
failure never leaves partial or duplicate rows; memory stays bounded at any size.

Errors of the API are printed as ``error <code>: <message> (param <param>)`` on standard error.

Exit codes:
    0  success
    1  the API answered an error (400, 404, 409, 429, 503...), validation found problems,
       or the feed is unavailable (health)
    2  usage error: bad arguments, unreadable input file, unwritable output
    3  the service could not be reached, or answered something that is not the API's JSON
    4  the feed was republished more often than --max-restarts during list --all or export
    5  the feed is degraded (health: the current issue is older than 8 days)
"""

import argparse
import csv
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from . import __version__, csvrows
from . import validate as validation
from .console import CommonStart, after_start, clean, fit_widths, render
from .http import DEFAULT_BASE_URL, DEFAULT_TIMEOUT, Api, ApiError, NotTheApi, Unreachable

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_RESTARTS = 4
EXIT_DEGRADED = 5
DEFAULT_MAX_RESTARTS = 3
EXPORT_PAGE = 200  # the API's largest page: fewest requests for a whole crawl
MIN_SUMMARY = 12
MIN_CATEGORY = 10
DEFAULT_COLUMNS = 100


class Usage(Exception):
    """Arguments that parse but do not make sense together (exit code 2)."""


class TooManyRestarts(Exception):
    def __init__(self, restarts: int):
        super().__init__(restarts)
        self.restarts = restarts


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def dumps(body: Any) -> str:
    """One line of JSON, UTF-8 text kept as is."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Context:
    args: argparse.Namespace
    stdout: TextIO
    stderr: TextIO
    _api: Api | None = None

    @property
    def api(self) -> Api:
        if self._api is None:
            base = self.args.base_url or os.environ.get("TENDERS_BASE_URL") or DEFAULT_BASE_URL
            try:
                self._api = Api(base, timeout=self.args.timeout)
            except ValueError as exc:
                raise Usage(str(exc)) from None
        return self._api

    @property
    def json(self) -> bool:
        return self.args.json

    def out(self, text: str = "") -> None:
        print(text, file=self.stdout)

    def err(self, text: str) -> None:
        print(text, file=self.stderr)


# --- filters --------------------------------------------------------------------------------

LIST_FILTERS = ("market", "category", "closing_bucket", "value_band")


def add_filters(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "filters", "As GET /api/v1/tenders takes them; the service judges every value."
    )
    group.add_argument(
        "--market", action="append", metavar="CODES", help="e.g. HK,SG (any case); repeatable"
    )
    group.add_argument(
        "--category", action="append", metavar="NAMES", help="slug or name (en/zh/zht); repeatable"
    )
    group.add_argument(
        "--closing-bucket",
        action="append",
        metavar="BUCKETS",
        help="le_2w, 2_4w, gt_4w, deadline_passed or all (default: the open ones)",
    )
    group.add_argument(
        "--value-band",
        action="append",
        metavar="BANDS",
        help="lt_500k, 500k_2m, 2m_10m, gt_10m, unspecified",
    )
    group.add_argument(
        "--new",
        action=argparse.BooleanOptionalAction,
        help="--new: only rows new in this issue; --no-new: only older ones",
    )
    group.add_argument(
        "--lead-ok",
        action=argparse.BooleanOptionalAction,
        help="--lead-ok: rows accepting supplier interest; --no-lead-ok: the others",
    )
    group.add_argument("-q", "--q", metavar="TEXT", help="substring of summaries and categories")
    group.add_argument("--lang", metavar="LANG", help="en, zh or zht: rows in one language")


def filter_params(args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name in LIST_FILTERS:
        values = getattr(args, name)
        if values:
            params[name] = ",".join(values)
    for name in ("new", "lead_ok"):
        if getattr(args, name) is not None:
            params[name] = getattr(args, name)
    for name in ("q", "lang"):
        if getattr(args, name) is not None:
            params[name] = getattr(args, name)
    return params


# --- rows as text -----------------------------------------------------------------------------

TABLE_HEADER = ("ID", "MKT", "CLOSING", "VALUE", "LEAD", "NEW", "CATEGORY", "SUMMARY")
TABLE_LIMITS = (None, None, None, None, None, None, 28, None)


def yes_no(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "-" if value is None else str(value)


def text(value: Any) -> str:
    if isinstance(value, bool):
        return yes_no(value)
    if value is None:
        return "-"
    return value if isinstance(value, str) else dumps(value)


def row_cells(row: Any) -> tuple[str, ...]:
    """A table line of a full or one-language row (English for full rows)."""
    if not isinstance(row, dict):
        return (text(row), "", "", "", "", "", "", "")
    category = row.get("category") if isinstance(row.get("category"), dict) else {}
    name = category.get("name", category.get("name_en"))
    summary = row.get("summary", row.get("summary_en"))
    return (
        text(row.get("asaptic_id")),
        text(row.get("market")),
        text(row.get("closing_bucket")),
        text(row.get("value_band")),
        yes_no(row.get("lead_ok")),
        yes_no(row.get("new_this_issue")),
        text(name),
        text(summary),
    )


def terminal_columns() -> int:
    return shutil.get_terminal_size((DEFAULT_COLUMNS, 24)).columns


def print_table(ctx: Context, rows: Callable[[], Iterator[Any]]) -> None:
    """Rows as an aligned table as wide as the terminal. ``rows`` is called twice (widths
    first), so a table of a whole export is read back from its file, not held in memory.

    When the summaries do not fit, category and summary share the room left (the summary
    three fifths of it), and each summary is shortened from the end of what tells it apart: the
    start every summary of the table shares is left out (said once, after the table), so a
    narrow column does not show the same template words on every line."""
    shared = CommonStart()

    def cells() -> Iterator[tuple[str, ...]]:
        for row in rows():
            line = row_cells(row)
            shared.add(clean(line[-1]))
            yield line

    widths = fit_widths(TABLE_HEADER, cells(), TABLE_LIMITS)
    room = terminal_columns() - sum(widths[:-2]) - 2 * (len(widths) - 1)
    category, summary = widths[-2:]
    start = ""
    if category + summary > room:
        most = max(MIN_SUMMARY, room * 3 // 5)
        category = min(category, max(MIN_CATEGORY, room - most))
        summary = max(room - category, MIN_SUMMARY)
        start = shared.value()
    widths[-2:] = [category, summary]
    ctx.out(render(TABLE_HEADER, [], widths)[0])
    for row in rows():
        line = row_cells(row)
        line = (*line[:-1], after_start(clean(line[-1]), start))
        ctx.out(render((), [line], widths)[0])
    if start:
        ctx.err(f'summaries shortened: each starts with "{start.strip()}", left out above')


def flatten(value: dict, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, item in value.items():
        if isinstance(item, dict):
            yield from flatten(item, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", item


def print_record(ctx: Context, pairs: list[tuple[str, Any]]) -> None:
    """Name and value lines, the values in full."""
    width = max((len(name) for name, _ in pairs), default=0)
    for name, value in pairs:
        ctx.out(f"{name.ljust(width)}  {clean(text(value))}")


# --- list, get, facets, health, rfq ---------------------------------------------------------


def cmd_list(ctx: Context) -> int:
    args = ctx.args
    params = filter_params(args)
    if args.all:
        if args.cursor:
            raise Usage("--all reads from the first page; leave out --cursor")
        params["limit"] = args.limit if args.limit is not None else EXPORT_PAGE
        writer = PagesWriter() if ctx.json else TableWriter()
        return run_crawl(ctx, params, writer, output=None)
    params.update(limit=args.limit, cursor=args.cursor)
    page = ctx.api.list_page(params)
    if ctx.json:
        ctx.out(dumps(page))
        return EXIT_OK
    print_table(ctx, lambda: iter(page["data"]))
    meta = page["meta"]
    ctx.err(
        f"{meta.get('returned', len(page['data'])):,} of {meta.get('total', 0):,} rows, "
        f"issue {meta.get('issue_id')}"
    )
    if meta.get("next_cursor"):
        ctx.err(f"next page: --cursor {meta['next_cursor']}")
    return EXIT_OK


def cmd_get(ctx: Context) -> int:
    body = ctx.api.tender(ctx.args.at_id, ctx.args.lang)
    if ctx.json:
        ctx.out(dumps(body))
        return EXIT_OK
    row = body.get("data") if isinstance(body, dict) else None
    if not isinstance(row, dict):
        raise NotTheApi("the answer has no row in data")
    meta = body.get("meta") if isinstance(body.get("meta"), dict) else {}
    print_record(ctx, [*flatten(row), ("issue_id", meta.get("issue_id"))])
    return EXIT_OK


FACET_GROUPS = (
    ("markets", "code", ("name_en", "name_zh", "name_zht")),
    ("categories", "slug", ("name_en", "name_zh", "name_zht")),
    ("closing_buckets", "value", ()),
    ("value_bands", "value", ()),
)


def cmd_facets(ctx: Context) -> int:
    body = ctx.api.facets()
    if ctx.json:
        ctx.out(dumps(body))
        return EXIT_OK
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise NotTheApi("the answer has no facets in data")
    for index, (group, key, names) in enumerate(FACET_GROUPS):
        items = [item for item in data.get(group, []) if isinstance(item, dict)]
        lines = [
            (text(item.get(key)), *(text(item.get(n)) for n in names), f"{item.get('count', 0):,}")
            for item in items
        ]
        limits = (None, *([32] * len(names)), None)
        if index:
            ctx.out()
        ctx.out(group.replace("_", " "))
        widths = fit_widths((), lines, limits)
        right = [False] * (len(limits) - 1) + [True]
        for line in render((), lines, widths, right):
            ctx.out("  " + line)
    meta = body.get("meta", {})
    ctx.err(f"issue {meta.get('issue_id')}, {meta.get('rows_total', 0):,} rows")
    return EXIT_OK


HEALTH_FIELDS = ("status", "issue_id", "generated", "rows_total", "feed_fresh", "schema")


def cmd_health(ctx: Context) -> int:
    answer = ctx.api.health()
    body = answer.body if isinstance(answer.body, dict) else {}
    status = body.get("status")
    if status not in ("ok", "degraded", "unavailable"):
        raise NotTheApi("the health answer has no status ok, degraded or unavailable")
    if ctx.json:
        ctx.out(dumps(answer.body))
    else:
        print_record(ctx, [(name, body.get(name)) for name in HEALTH_FIELDS])
    if status == "degraded":
        ctx.err("warning: the feed is degraded: its current issue is older than 8 days")
        return EXIT_DEGRADED
    if status == "unavailable":
        ctx.err(f"error: the feed is unavailable (HTTP {answer.status})")
        return EXIT_FAILED
    return EXIT_OK


def cmd_rfq(ctx: Context) -> int:
    args = ctx.args
    payload = {"product": args.product, "buyer_contact": args.buyer_contact}
    if args.quantity is not None:
        payload["quantity"] = args.quantity
    if args.target_market is not None:
        payload["target_market"] = args.target_market
    if args.asaptic_id is not None:
        payload["asaptic_id"] = args.asaptic_id
    body = ctx.api.submit_rfq(payload, idempotency_key=args.idempotency_key)
    if ctx.json:
        ctx.out(dumps(body))
    else:
        print_record(ctx, [("reference", body.get("reference")), ("next", body.get("next"))])
    return EXIT_OK


def cmd_validate(ctx: Context) -> int:
    args = ctx.args
    if args.max_problems < 0:
        raise Usage("--max-problems must be 0 or more")
    try:
        return validation.validate_source(
            args.file,
            out=ctx.stdout,
            max_problems=args.max_problems,
            as_json=ctx.json,
            schema=args.schema,
        )
    except validation.SourceError as exc:
        raise Usage(str(exc)) from None


# --- crawling every page: list --all and export ----------------------------------------------


class Spool:
    """Where a crawl writes: a temporary file, moved to ``target`` (or copied to standard
    output) by ``commit()`` once every page is in, and emptied by ``reset()`` on a restart."""

    def __init__(self, target: str | None):
        self.target = Path(target) if target else None
        folder = None
        if self.target is not None:
            folder = self.target.resolve().parent
            if not folder.is_dir():
                raise Usage(f"cannot write {target}: there is no folder {folder}")
        prefix = f".{self.target.name}." if self.target else "tenders-"
        try:
            handle, self.name = tempfile.mkstemp(prefix=prefix, suffix=".part", dir=folder)
        except OSError as exc:
            raise Usage(f"cannot write {target or 'a temporary file'}: {exc.strerror}") from None
        self.file = open(handle, "w+", encoding="utf-8", newline="")  # noqa: SIM115

    def reset(self) -> None:
        self.file.seek(0)
        self.file.truncate()

    def lines(self) -> Iterator[str]:
        self.file.flush()
        self.file.seek(0)
        yield from self.file

    def commit(self, stdout: TextIO) -> None:
        self.file.flush()
        if self.target is None:
            self.file.seek(0)
            binary = getattr(stdout, "buffer", None)
            if binary is not None:
                stdout.flush()
                with open(self.name, "rb") as raw:
                    shutil.copyfileobj(raw, binary)
                binary.flush()
            else:
                shutil.copyfileobj(self.file, stdout)
            return
        self.file.close()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.name, 0o666 & ~umask)  # mkstemp makes 0600; an export is a normal file
        try:
            os.replace(self.name, self.target)
        except OSError as exc:
            raise Usage(f"cannot write {self.target}: {exc.strerror}") from None

    def discard(self) -> None:
        if not self.file.closed:
            self.file.close()
        with suppress(FileNotFoundError):  # already moved to its target
            os.unlink(self.name)


class Writer:
    """How pages become output text. ``start`` runs again after a restart."""

    def start(self, spool: Spool) -> None:
        pass

    def page(self, spool: Spool, body: dict) -> None:
        raise NotImplementedError

    def finish(self, ctx: Context, spool: Spool) -> None:
        spool.commit(ctx.stdout)


class PagesWriter(Writer):
    """``list --all --json``: each page body on its own line."""

    def page(self, spool: Spool, body: dict) -> None:
        spool.file.write(dumps(body) + "\n")


class RowsWriter(Writer):
    """``export --format jsonl``: one row per line, serialized as the flat file serializes
    it, so the lines equal the flat file's rows."""

    def page(self, spool: Spool, body: dict) -> None:
        spool.file.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in body["data"])


class TableWriter(RowsWriter):
    """``list --all`` for people: rows kept in the spool, drawn as one table at the end."""

    def finish(self, ctx: Context, spool: Spool) -> None:
        print_table(ctx, lambda: (json.loads(line) for line in spool.lines()))


class CsvWriter(Writer):
    """``export --format csv``: one column per field, category as one column per language.

    The columns follow the published schema of the row asked for (full, or one language);
    ``csvrows`` defines them, for ``tenders validate`` too."""

    def __init__(self, one_language: bool):
        self.one_language = one_language
        self.fields = csvrows.header(one_language)

    def start(self, spool: Spool) -> None:
        self.csv = csv.writer(spool.file)
        self.csv.writerow(self.fields)

    def page(self, spool: Spool, body: dict) -> None:
        for row in body["data"]:
            self.csv.writerow(csvrows.cells(row, self.one_language))


class Progress:
    """A bar on standard error when it is a terminal; silent otherwise."""

    WIDTH = 24

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.drawn = 0

    def update(self, rows: int, total: int) -> None:
        if not self.tty:
            return
        share = rows / total if total else 1.0
        filled = round(share * self.WIDTH)
        line = (
            f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {share:4.0%} {rows:,} of {total:,} rows"
        )
        self.stream.write("\r" + line.ljust(self.drawn))
        self.stream.flush()
        self.drawn = len(line)

    def clear(self) -> None:
        if self.tty and self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0


@dataclass
class Crawl:
    rows: int
    pages: int
    issue_id: str | None
    snapshot_etag: str | None
    restarts: int


def crawl(
    api: Api,
    params: dict,
    writer: Writer,
    spool: Spool,
    *,
    progress: Progress,
    max_restarts: int,
    notify: Callable[[str], None],
) -> Crawl:
    """Every page of the listing into ``spool``; restarts from page 1 on snapshot_changed."""
    restarts = 0
    while True:
        spool.reset()
        writer.start(spool)
        try:
            return _read_all(api, params, writer, spool, progress, restarts)
        except ApiError as exc:
            if exc.code != "snapshot_changed":
                raise
            progress.clear()
            restarts += 1
            if restarts > max_restarts:
                raise TooManyRestarts(restarts) from None
            notify(
                "the feed was republished while reading (snapshot_changed): starting again "
                f"from the first page (restart {restarts} of at most {max_restarts})"
            )


def _read_all(
    api: Api, params: dict, writer: Writer, spool: Spool, progress: Progress, restarts: int
) -> Crawl:
    cursor, rows, pages, first = None, 0, 0, None
    while True:
        page = api.list_page({**params, "cursor": cursor})
        meta = page["meta"]
        snapshot = (meta.get("issue_id"), meta.get("snapshot_etag"))
        if first is None:
            first = snapshot
        elif snapshot != first:
            # The service answers 409 for a stale cursor; this guards a mixed crawl anyway.
            raise ApiError(409, "snapshot_changed", "the snapshot changed between pages")
        writer.page(spool, page)
        rows += len(page["data"])
        pages += 1
        total = meta.get("total")
        progress.update(rows, total if isinstance(total, int) else rows)
        cursor = meta.get("next_cursor")
        if not cursor:
            progress.clear()
            return Crawl(rows, pages, first[0], first[1], restarts)


def run_crawl(ctx: Context, params: dict, writer: Writer, output: str | None) -> int:
    args = ctx.args
    if args.max_restarts < 0:
        raise Usage("--max-restarts must be 0 or more")
    api = ctx.api
    spool = Spool(output)
    progress = Progress(ctx.stderr)
    try:
        result = crawl(
            api,
            params,
            writer,
            spool,
            progress=progress,
            max_restarts=args.max_restarts,
            notify=ctx.err,
        )
        writer.finish(ctx, spool)
    except TooManyRestarts as exc:
        ctx.err(
            f"error: the feed was republished {exc.restarts} times while reading; nothing was "
            "written. Try again later, or allow more with --max-restarts."
        )
        return EXIT_RESTARTS
    finally:
        progress.clear()
        spool.discard()
    written = f", written to {output}" if output else ""
    ctx.err(
        f"{plural(result.rows, 'row')} in {plural(result.pages, 'page')}, "
        f"issue {result.issue_id}{written}"
    )
    return EXIT_OK


def cmd_export(ctx: Context) -> int:
    args = ctx.args
    params = filter_params(args)
    params["limit"] = args.limit if args.limit is not None else EXPORT_PAGE
    output = None if args.output in (None, "-") else args.output
    if args.format == "csv":
        writer: Writer = CsvWriter(one_language=args.lang is not None)
    else:
        writer = RowsWriter()
    return run_crawl(ctx, params, writer, output)


# --- the command line ---------------------------------------------------------------------------


def _common(top: bool) -> argparse.ArgumentParser:
    """Options accepted before and after the command (``tenders --json list`` and
    ``tenders list --json``): defaults only on the top level, so a sub-command leaves them."""
    parser = argparse.ArgumentParser(add_help=False)

    def default(value):
        return value if top else argparse.SUPPRESS

    parser.add_argument(
        "--base-url",
        default=default(None),
        metavar="URL",
        help=f"the service (default: $TENDERS_BASE_URL or {DEFAULT_BASE_URL})",
    )
    parser.add_argument(
        "--json", action="store_true", default=default(False), help="print JSON for scripts"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=default(DEFAULT_TIMEOUT),
        metavar="SECONDS",
        help=f"per request (default {DEFAULT_TIMEOUT:g})",
    )
    return parser


def build_parser() -> argparse.ArgumentParser:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(
        prog="tenders",
        description="The tender feed's public API from the command line.",
        epilog=doc[doc.index("Exit codes:") :],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_common(top=True)],
    )
    parser.add_argument("--version", action="version", version=f"tenders {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = [_common(top=False)]

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help_text, description=help_text, parents=common)

    def restarts(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--max-restarts",
            type=int,
            default=DEFAULT_MAX_RESTARTS,
            metavar="N",
            help="start again at most N times when the feed is republished meanwhile "
            f"(default {DEFAULT_MAX_RESTARTS})",
        )

    sub = command("list", "list tenders (one page, or --all)")
    add_filters(sub)
    sub.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help=f"rows per page, 1 to 200 (default 50; with --all {EXPORT_PAGE})",
    )
    sub.add_argument("--cursor", metavar="CURSOR", help="meta.next_cursor of the previous page")
    sub.add_argument(
        "--all", action="store_true", help="every page (with --json: one page per line)"
    )
    restarts(sub)

    sub = command("get", "one tender by its id")
    sub.add_argument("at_id", metavar="ID", help="asaptic_id, e.g. AT-7K2M9Q4XZC")
    sub.add_argument("--lang", metavar="LANG", help="en, zh or zht")

    command("facets", "every filter value with its row count")
    command("health", "the feed's health")

    sub = command("export", "every matching row as JSON Lines or CSV")
    add_filters(sub)
    sub.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    sub.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    sub.add_argument(
        "--limit", type=int, metavar="N", help=f"rows per request (default {EXPORT_PAGE})"
    )
    restarts(sub)

    sub = command("rfq", "send a request for quote")
    sub.add_argument("--product", required=True, help="what you want quoted")
    sub.add_argument(
        "--buyer-contact",
        required=True,
        help="e-mail, +phone, or 'WeChat: <id>', 'WhatsApp: +<number>', 'Line: <id>', "
        "'Telegram: @<name>' for the reply",
    )
    sub.add_argument("--quantity", help="e.g. '2,000 units'")
    sub.add_argument("--target-market", help="ISO country code or HK, MO, SG, GB, EU, AU, CA")
    sub.add_argument("--asaptic-id", help="the listing the request is about (current issue)")
    sub.add_argument("--idempotency-key", help="send again with the same key: stored once")

    sub = command("validate", "check a file against the published schemas and rules")
    validation.add_arguments(sub)
    return parser


COMMANDS: dict[str, Callable[[Context], int]] = {
    "list": cmd_list,
    "get": cmd_get,
    "facets": cmd_facets,
    "health": cmd_health,
    "export": cmd_export,
    "rfq": cmd_rfq,
    "validate": cmd_validate,
}


def main(
    argv: list[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run one command; returns the exit code (see the module docstring)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    for stream in (stdout, stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")  # a terminal without UTF-8 gets "?"
    parser = build_parser()
    try:
        with redirect_stdout(stdout), redirect_stderr(stderr):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not args.command:
        parser.print_usage(stderr)
        print("error: give a command, e.g. tenders list --market HK", file=stderr)
        return EXIT_USAGE
    ctx = Context(args, stdout, stderr)
    try:
        return COMMANDS[args.command](ctx)
    except Usage as exc:
        print(f"error: {exc}", file=stderr)
        return EXIT_USAGE
    except ApiError as exc:
        print(exc, file=stderr)
        return EXIT_FAILED
    except (Unreachable, NotTheApi) as exc:
        print(f"error: {exc}", file=stderr)
        return EXIT_UNREACHABLE
    except KeyboardInterrupt:
        print("interrupted", file=stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (tenders list | head): stop quietly, and point standard output
        # at /dev/null so that Python's flush at exit does not fail again.
        with suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    finally:
        if ctx._api is not None:
            ctx._api.close()


if __name__ == "__main__":
    sys.exit(main())
