"""Validate a flat file, an API page or a JSON Lines export against ``service.tender.v1``.

    tenders-validate FILE            (or: python -m tenders_client.validate FILE; tenders validate)

``FILE`` is a path, ``-`` for standard input, or an http(s) URL; gzip is recognised by its magic
bytes. What it is, is detected from the content:

- a flat file ``{generated, issue_id, total, withheld, rows}`` (``/tender/rows.json``)
- an API page ``{data, meta}`` (``GET /api/v1/tenders``)
- JSON Lines of rows (``tenders export --format jsonl``), full or one-language
- JSON Lines of API pages (``tenders list --all --json``): one crawl

Rules, each named in the report:

- ``schema`` rules by their JSON Schema keyword (``type``, ``required``,
  ``additionalProperties``, ``pattern``, ``enum``, ``minLength``...): every row against the
  published row schema (or the one-language one), the document against the flat-file or page
  schema
- ``unique-id``: no ``asaptic_id`` twice; ``unique-sort-key``: no ``sort_key`` twice;
  ``ordering``: rows in strictly ascending ``sort_key`` order
- ``count``: ``total`` equals the number of rows (flat file, complete crawl); ``returned``
  equals the rows of its page
- ``one-issue``: one ``issue_id`` and one ``snapshot_etag`` per document or crawl
- ``shape``: full and one-language rows not mixed, and matching ``meta.lang``
- ``duplicate-member``: a member name given twice in one object
- ``json``: not JSON, not UTF-8, truncated, or records not one per line

Each problem is one line: ``row 17 (AT-TEST-0000000017): sort_key: not after the previous
row's, row 16 (ordering)``. Rows are numbered from 1 across the whole file. Exit code: 0 valid,
1 invalid, 2 usage error (no such file, bad option).

Memory stays bounded whatever the file's size: the document is read as a stream (see
``jsonstream``), ``sort_key`` uniqueness follows from the strict ordering (a duplicate in an
ordered file is next to its twin), and the ``asaptic_id`` values seen are kept compactly
(:class:`IdSet`, about 25 bytes per id).
"""

import argparse
import csv
import gzip
import io
import json
import sys
import urllib.error
import urllib.request
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, BinaryIO, TextIO

from jsonschema import Draft202012Validator, ValidationError, validators

from . import __version__, contract, csvrows
from .fastcheck import compile_schema, pattern_search
from .jsonstream import CHUNK, JsonReader, JsonSyntaxError, Streamed
from .jsontypes import a_type, explained, wanted

EXIT_VALID, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
DEFAULT_MAX_PROBLEMS = 100
FLAT_FILE, PAGE, ROWS, PAGES = "flat file", "API page", "JSON Lines of rows", "JSON Lines of pages"
CSV_ROWS = "CSV of rows"
FULL, ONE_LANGUAGE = "full", "one-language"


# --- asaptic_ids seen -------------------------------------------------------------------------

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_TO_BASE32 = str.maketrans(_CROCKFORD, "0123456789abcdefghijklmnopqrstuv")
_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def id_number(at_id: str) -> int | None:
    """A well-formed listing id as a number below 2**51 (10 base32 digits and the TEST flag)."""
    if len(at_id) == 13 and at_id.startswith("AT-"):
        digits, flag = at_id[3:], 0
    elif len(at_id) == 18 and at_id.startswith("AT-TEST-"):
        digits, flag = at_id[8:], 1
    else:
        return None
    if any(c not in _CROCKFORD for c in digits):
        return None
    return int(digits.translate(_TO_BASE32), 32) << 1 | flag


class IdSet:
    """The listing ids seen so far and the row of each, in an open-addressing table.

    A Python set of a million id strings costs about 100 MB; this table keeps each well-formed
    id as one 64-bit number and its row as a 32-bit one, at most half full: about 25 bytes per
    id (25 MB at a million). Ids that are not well formed (already a schema problem) go to a
    plain dict.
    """

    def __init__(self, capacity: int = 1 << 12):
        self._bits = max(capacity - 1, 1).bit_length()
        self._keys = array("Q", [0]) * (1 << self._bits)
        self._rows = array("I", [0]) * (1 << self._bits)
        self._size = 0
        self._other: dict[str, int] = {}

    def __len__(self) -> int:
        return self._size + len(self._other)

    def nbytes(self) -> int:
        return self._keys.itemsize * len(self._keys) + self._rows.itemsize * len(self._rows)

    def add(self, at_id: str, row: int) -> int | None:
        """Remember ``at_id`` at ``row``; if it was seen before, the row it was first seen on."""
        number = id_number(at_id)
        if number is None:
            first = self._other.setdefault(at_id, row)
            return None if first == row else first
        key = number + 1  # 0 marks an empty slot
        found = self._find(key)
        if found is not None:
            return found
        if 2 * (self._size + 1) > len(self._keys):
            self._grow()
        self._insert(key, row)
        return None

    def _slot(self, key: int) -> int:
        return ((key * _GOLDEN) & _MASK64) >> (64 - self._bits)

    def _find(self, key: int) -> int | None:
        keys, mask = self._keys, len(self._keys) - 1
        slot = self._slot(key)
        while keys[slot]:
            if keys[slot] == key:
                return self._rows[slot]
            slot = (slot + 1) & mask
        return None

    def _insert(self, key: int, row: int) -> None:
        keys, mask = self._keys, len(self._keys) - 1
        slot = self._slot(key)
        while keys[slot]:
            slot = (slot + 1) & mask
        keys[slot] = key
        self._rows[slot] = row
        self._size += 1

    def _grow(self) -> None:
        old_keys, old_rows = self._keys, self._rows
        self._bits += 1
        self._keys = array("Q", [0]) * (1 << self._bits)
        self._rows = array("I", [0]) * (1 << self._bits)
        self._size = 0
        for key, row in zip(old_keys, old_rows, strict=True):
            if key:
                self._insert(key, row)


# --- problems and the report ------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    where: str  # "row 17 (AT-…)", "page 2", "page", "file"
    field: str  # "sort_key", "meta.total", "category.name_zh", or "" for the whole
    message: str
    rule: str
    row: int | None = None
    asaptic_id: str | None = None
    line: int | None = None  # the row's line in JSON Lines and CSV

    def __str__(self) -> str:
        field_part = f"{self.field}: " if self.field else ""
        line = f", line {self.line}" if self.line is not None else ""
        return f"{self.where}{line}: {field_part}{self.message} ({self.rule})"

    def as_dict(self) -> dict:
        return {
            "where": self.where,
            "field": self.field,
            "message": self.message,
            "rule": self.rule,
            "row": self.row,
            "asaptic_id": self.asaptic_id,
            "line": self.line,
        }


@dataclass
class Report:
    """Problems as they are found: the first ``limit`` kept (and printed to ``out``)."""

    out: TextIO | None = None
    limit: int = DEFAULT_MAX_PROBLEMS
    count: int = 0
    shown: list[Problem] = field(default_factory=list)

    def add(self, problem: Problem) -> None:
        self.count += 1
        if self.count <= self.limit:
            self.shown.append(problem)
            if self.out is not None:
                print(problem, file=self.out)


@dataclass
class Summary:
    kind: str | None
    rows: int
    problems: int
    issue_id: str | None = None
    pages: int = 0

    @property
    def valid(self) -> bool:
        return self.problems == 0


# --- schema problems ---------------------------------------------------------------------------


def _pattern(validator, pattern: str, instance: Any, schema: dict) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not pattern_search(pattern)(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# Draft 2020-12 with patterns read as the specification says (see fastcheck.pattern_search).
Checker = validators.extend(Draft202012Validator, {"pattern": _pattern})


@cache
def _validator(name: str, *, empty: str | None = None) -> Draft202012Validator:
    schema = contract.load(name)
    if empty:
        # Documents are checked without their rows (those are checked one by one).
        schema["properties"][empty] = {"type": "array"}
    return Checker(schema)


def clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


@cache
def _quick(name: str):
    """The compiled shortcut of a row schema (see ``fastcheck``), or None."""
    return compile_schema(contract.load(name))


def short(value: Any, width: int = 40) -> str:
    """A value as JSON, cut to ``width`` characters for a report line."""
    return clip(json.dumps(value, ensure_ascii=False), width)


def _words(values: list) -> str:
    return ", ".join("null" if v is None else str(v) for v in values)


def schema_problems(validator: Draft202012Validator, instance: Any) -> Iterator[tuple]:
    """``(field, message, rule)`` for each way ``instance`` breaks the schema, one per field."""
    done: set[str] = set()
    for error in validator.iter_errors(instance):
        path = ".".join(str(p) for p in error.absolute_path)
        keyword = error.validator
        here = error.instance
        if keyword == "required":
            if (path, keyword) in done:
                continue
            done.add((path, keyword))
            for name in error.validator_value:
                if isinstance(here, dict) and name not in here:
                    yield _join(path, name), "missing", keyword
            continue
        if keyword == "additionalProperties":
            if (path, keyword) in done:
                continue
            done.add((path, keyword))
            known = error.schema.get("properties", {})
            owner = path.rsplit(".", 1)[-1] if path else error.schema.get("title", "the schema")
            for name in here:
                if name not in known:
                    yield _join(path, name), f"not a field of {owner}", keyword
            continue
        if path in done:
            continue  # one problem per field: a wrong type makes the enum moot
        done.add(path)
        cause = explained(error)
        if cause is None:  # no branch of an anyOf takes this type
            keyword = "type"
        else:
            error, keyword, here = cause, cause.validator, cause.instance
        value = short(here)
        if keyword == "type":
            message = f"{value} is not {wanted(error.schema)}"
        elif keyword == "enum":
            message = f"{value} is not one of {_words(error.validator_value)}"
        elif keyword == "const":
            message = f"{value} is not {short(error.validator_value)}"
        elif keyword == "pattern":
            message = f"{value} does not match {error.validator_value}"
        elif keyword == "minLength" and here == "":
            message = "is empty"
        else:
            message = error.message
        yield path, message, keyword


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# --- the validation ---------------------------------------------------------------------------


class Validation:
    """One file's validation; ``run()`` reads it and returns the summary."""

    def __init__(self, report: Report):
        self.report = report
        self.kind: str | None = None
        self.rows = 0
        self.shape: str | None = None
        self.previous_key: str | None = None
        self.ids = IdSet()
        self.pages = 0
        self.page_rows = 0
        self.page_shape: str | None = None
        self.first_page_meta: dict | None = None
        self.issue_id: str | None = None
        self.last_cursor: Any = None
        # The line of the row being checked (JSON Lines and CSV), asked only for a problem
        # that is shown.
        self.line_of: Callable[[], int] | None = None
        # Problems of the first JSON document, held until it is known whether the file is
        # JSON Lines (then its rows' lines are shown): at most the report's limit kept.
        self.pending: list[Problem] | None = None
        self.pending_count = 0

    def problem(self, where: str, field: str, message: str, rule: str, **row) -> None:
        shown = self.report.count + self.pending_count < self.report.limit
        if row and shown and self.line_of is not None:
            row["line"] = self.line_of()
        found = Problem(where, field, message, rule, **row)
        if self.pending is None:
            self.report.add(found)
            return
        self.pending_count += 1
        if shown:
            self.pending.append(found)

    def flush(self, lines: bool) -> None:
        """Report the held problems, with their rows' lines when the file has lines of its
        own (JSON Lines), without them otherwise (one document)."""
        if self.pending is None:
            return
        held, extra = self.pending, self.pending_count - len(self.pending)
        self.pending = None
        self.pending_count = 0
        for found in held:
            self.report.add(found if lines else replace(found, line=None))
        self.report.count += extra

    # rows

    def check_row(self, row: Any, repeated: list[str], *, full_only: bool = False) -> None:
        self.rows += 1
        self.page_rows += 1
        number = self.rows
        if not isinstance(row, dict):
            found = a_type(row)
            self.problem(f"row {number}", "", f"is {found}, not an object", "type", row=number)
            return
        at_id = row.get("asaptic_id")
        at_id = at_id if isinstance(at_id, str) else None
        shown = at_id if at_id is None or at_id.isprintable() else json.dumps(at_id)[1:-1]
        where = f"row {number} ({clip(shown, 30)})" if shown else f"row {number}"

        def add(field: str, message: str, rule: str) -> None:
            self.problem(where, field, message, rule, row=number, asaptic_id=at_id)

        for name in dict.fromkeys(repeated):
            add(name, "given twice in one object", "duplicate-member")
        shape = ONE_LANGUAGE if "summary" in row and "summary_en" not in row else FULL
        expected = FULL if full_only else (self.shape or shape)
        self.shape = self.shape or expected
        self.page_shape = self.page_shape or shape
        if shape != expected:
            if full_only:
                add("", f"a {shape} row: the flat file has full rows only", "shape")
            else:
                add("", f"a {shape} row among {expected} rows", "shape")
        else:
            schema = contract.ROW if shape == FULL else contract.LANG_ROW
            quick = _quick(schema)
            if quick is None or not quick(row):
                for path, message, rule in schema_problems(_validator(schema), row):
                    add(path, message, rule)
        if at_id is not None:
            first = self.ids.add(at_id, number)
            if first is not None:
                add("asaptic_id", f"also on row {first}", "unique-id")
        key = row.get("sort_key")
        if isinstance(key, str):
            if self.previous_key is not None:
                if key == self.previous_key:
                    add("sort_key", f"the same as row {number - 1}'s", "unique-sort-key")
                elif key < self.previous_key:
                    add("sort_key", f"not after the previous row's, row {number - 1}", "ordering")
            self.previous_key = key

    # documents

    def _document_schema(self, where: str, name: str, rows_member: str, members: dict) -> None:
        instance = {k: ([] if isinstance(v, Streamed) else v) for k, v in members.items()}
        checker = _validator(name, empty=rows_member)
        for path, message, rule in schema_problems(checker, instance):
            self.problem(where, path, message, rule)

    def _repeated_members(self, where: str, repeated: list[tuple[str, Any, Any]]) -> None:
        for name, first, second in repeated:
            if name == "issue_id":
                message = f"a second issue_id {short(second)} after {short(first)}"
                self.problem(where, "issue_id", message, "one-issue")
            else:
                self.problem(where, name, "given twice in one object", "duplicate-member")

    def check_flat_file(self, members: dict, repeated: list) -> None:
        self._repeated_members("file", repeated)
        self._document_schema("file", contract.FLAT_FILE, "rows", members)
        total = members.get("total")
        if isinstance(total, int) and not isinstance(total, bool) and total != self.rows:
            self.problem("file", "total", f"says {total}, the file has {self.rows} rows", "count")
        issue = members.get("issue_id")
        self.issue_id = issue if isinstance(issue, str) else None

    def check_page(self, members: dict, repeated: list, *, many: bool) -> None:
        self.pages += 1
        where = f"page {self.pages}" if many else "page"
        self._repeated_members(where, repeated)
        self._document_schema(where, contract.PAGE, "data", members)
        meta = members.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        returned = meta.get("returned")
        if _is_int(returned) and returned != self.page_rows:
            message = f"says {returned}, data has {self.page_rows} rows"
            self.problem(where, "meta.returned", message, "count")
        total = meta.get("total")
        if not many and _is_int(total) and _is_int(returned) and total < returned:
            message = f"{total} is less than the {returned} rows returned"
            self.problem(where, "meta.total", message, "count")
        lang = meta.get("lang")
        if self.page_rows and self.page_shape:
            wanted = ONE_LANGUAGE if lang is not None else FULL
            if self.page_shape != wanted:
                said = f"is {short(lang)}" if lang is not None else "is missing"
                message = f"{said} but the rows are {self.page_shape} rows"
                self.problem(where, "meta.lang", message, "shape")
        first = self.first_page_meta
        if first is None:
            self.first_page_meta = meta
            self.issue_id = meta.get("issue_id") if isinstance(meta.get("issue_id"), str) else None
        else:
            for name in ("issue_id", "snapshot_etag"):
                if meta.get(name) != first.get(name):
                    message = (
                        f"{short(meta.get(name))} differs from page 1's {short(first.get(name))}"
                    )
                    self.problem(where, f"meta.{name}", message, "one-issue")
            if meta.get("total") != first.get("total"):
                message = (
                    f"{short(meta.get('total'))} differs from page 1's {short(first.get('total'))}"
                )
                self.problem(where, "meta.total", message, "count")
        self.last_cursor = meta.get("next_cursor")
        self.page_rows = 0
        self.page_shape = None

    def finish_pages(self) -> None:
        total = (self.first_page_meta or {}).get("total")
        if _is_int(total) and total != self.rows:
            message = f"the pages say {total}, they hold {self.rows} rows"
            if self.last_cursor:
                message += " (the last page has a next_cursor: pages are missing)"
            self.problem("file", "meta.total", message, "count")

    # reading

    def run(self, stream: BinaryIO, *, chunk: int = CHUNK) -> Summary:
        if not hasattr(stream, "peek"):
            stream = io.BufferedReader(stream)
        if csvrows_start(stream):
            self.kind = CSV_ROWS
            self._read_csv(stream)
            return Summary(self.kind, self.rows, self.report.count, None, 0)
        reader = JsonReader(stream, chunk=chunk)
        self.line_of = lambda: reader.position()[0]
        try:
            self._read(reader)
        except JsonSyntaxError as exc:
            self.flush(lines=self.kind in (ROWS, PAGES))
            after = f", after row {self.rows}" if self.rows else ""
            message = f"not valid JSON: {exc.message} (line {exc.line}, column {exc.column}{after})"
            self.problem("file", "", message, "json")
        self.flush(lines=False)
        return Summary(self.kind, self.rows, self.report.count, self.issue_id, self.pages)

    def _read_csv(self, stream: BinaryIO) -> None:
        """``tenders export --format csv``: the header names the shape (full or one
        language); each line is read back into its row and checked as a row of JSON Lines is,
        its problems named with the line it starts on."""
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        reader = csv.reader(text, strict=True)
        try:
            self._csv_rows(reader)
        except csv.Error as exc:
            self.problem("file", "", f"not valid CSV: {exc} (line {reader.line_num})", "csv")
        except UnicodeDecodeError as exc:
            after = f", after row {self.rows}" if self.rows else ""
            self.problem("file", "", f"the text is not UTF-8 ({exc.reason}{after})", "csv")
        finally:
            text.detach()  # the stream is its opener's to close

    def _csv_rows(self, reader) -> None:
        names = next(reader, [])
        one_language = csvrows.shape_of(names)
        if one_language is None:
            starts = (",".join(csvrows.header(one)[:3]) for one in (False, True))
            wanted = " or ".join(f"{start},..." for start in starts)
            self.problem("line 1", "", f"is not the header of a row export ({wanted})", "csv")
            return
        self.shape = ONE_LANGUAGE if one_language else FULL
        line = 1
        self.line_of = lambda: line
        while True:
            line = reader.line_num + 1  # where the next record starts
            values = next(reader, None)
            if values is None:
                return
            if not values:
                continue  # a blank line
            if len(values) != len(names):
                self.rows += 1
                message = f"has {len(values)} fields, the header {len(names)}"
                self.problem(f"row {self.rows}", "", message, "csv", row=self.rows)
                continue
            self.check_row(csvrows.row(names, values, one_language), [])

    def _on_array(self, name: str) -> None:
        # Known for sure at the end of the document; named now for a report cut short.
        self.kind = self.kind or (FLAT_FILE if name == "rows" else PAGE)

    def _on_element(self, name: str, index: int, element: Any, repeated: list[str]) -> None:
        self.check_row(element, repeated, full_only=name == "rows")

    def _read(self, reader: JsonReader) -> None:
        self.pending = []
        first = reader.peek()
        if not first:
            self.problem("file", "", "is empty", "json")
            return
        if first != "{":
            what = "an array" if first == "[" else "not an object"
            self.problem(
                "file",
                "",
                f"is {what}: expected a flat file {{…, rows}}, an API page {{data, meta}} or "
                "JSON Lines of rows or pages",
                "shape",
            )
            return
        members, repeated = reader.document(
            frozenset({"rows", "data"}), self._on_element, self._on_array
        )
        if "rows" in members:
            self.kind = FLAT_FILE
            self.check_flat_file(members, repeated)
            if not reader.at_end():
                self.problem("file", "", "more text after the end of the flat file", "json")
            return
        if "data" in members or "meta" in members:
            if self._next_record(reader):
                self.kind = PAGE
                self.check_page(members, repeated, many=False)
                return
            self.kind = PAGES
            self.flush(lines=True)
            self.check_page(members, repeated, many=True)
            while True:
                members, repeated = reader.document(frozenset({"data"}), self._on_element)
                if not isinstance(members, dict) or "data" not in members:
                    self.pages += 1
                    self.problem(f"page {self.pages}", "", "is not a page", "shape")
                    if self._next_record(reader):
                        break
                    continue
                self.check_page(members, repeated, many=True)
                if self._next_record(reader):
                    break
            self.finish_pages()
            return
        self.kind = ROWS
        self.flush(lines=True)
        nested = reader.take_repeated()
        self.check_row(members, [name for name, _, _ in repeated] + nested)
        while not self._next_record(reader):
            row = reader.value()
            self.check_row(row, reader.take_repeated())

    def _next_record(self, reader: JsonReader) -> bool:
        """Skip to the next JSON Lines record; True at the end of the file."""
        newline = reader.skip_space()
        if reader.at_end():
            return True
        if not newline:
            line, column = reader.position()
            message = f"two records on one line (line {line}, column {column})"
            self.problem("file", "", message, "json")
        return False


def csvrows_start(stream: BinaryIO) -> bool:
    """Whether ``stream`` starts as a CSV export does (with its header), without reading."""
    head = stream.peek(len(csvrows.HEADER_START) + 3)
    return head.removeprefix(b"\xef\xbb\xbf").startswith(csvrows.HEADER_START.encode())


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_stream(stream: BinaryIO, report: Report, *, chunk: int = CHUNK) -> Summary:
    """Validate an open binary stream of JSON; problems go to ``report``."""
    return Validation(report).run(stream, chunk=chunk)


def summary_line(summary: Summary, report: Report) -> str:
    """``valid: flat file, 84 rows, issue 2026-W48`` or ``invalid: 3 problems; ...``."""
    kind = summary.kind or "unreadable file"
    if summary.kind == PAGES:
        kind = f"JSON Lines of {summary.pages:,} page{'' if summary.pages == 1 else 's'}"
    facts = f"{kind}, {summary.rows:,} row{'' if summary.rows == 1 else 's'}"
    if summary.kind in contract.PUBLISHED:
        facts = f"one document of {summary.kind}"
    if summary.issue_id:
        facts += f", issue {summary.issue_id}"
    if summary.valid:
        return f"valid: {facts}"
    count = f"{summary.problems:,} problem{'' if summary.problems == 1 else 's'}"
    shown = f" (first {report.limit:,} shown)" if summary.problems > report.limit else ""
    return f"invalid: {count}{shown}; {facts}"


# --- sources ------------------------------------------------------------------------------------


class SourceError(Exception):
    """The file cannot be opened (a usage error, not a validation failure)."""


@contextmanager
def open_source(source: str, stdin: BinaryIO | None = None) -> Iterator[BinaryIO]:
    """A path, ``-`` (standard input) or an http(s) URL, as a binary stream; gzip is undone."""
    if source == "-":
        raw = stdin if stdin is not None else sys.stdin.buffer
        close = False
    elif source.startswith(("http://", "https://")):
        request = urllib.request.Request(
            source,
            headers={
                "Accept-Encoding": "gzip",
                "User-Agent": f"tenders-validate/{__version__}",
            },
        )
        try:
            raw = urllib.request.urlopen(request, timeout=60)
        except urllib.error.HTTPError as exc:
            raise SourceError(f"cannot read {source}: HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise SourceError(f"cannot read {source}: {reason}") from None
        close = True
    else:
        try:
            raw = open(source, "rb")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise SourceError(f"cannot read {source}: {exc.strerror or exc}") from None
        close = True
    try:
        buffered = raw if hasattr(raw, "peek") else io.BufferedReader(raw)
        stream = (
            gzip.GzipFile(fileobj=buffered) if buffered.peek(2)[:2] == b"\x1f\x8b" else buffered
        )
        yield stream
    finally:
        if close:
            raw.close()


MAX_DOCUMENT = 64 * 1024 * 1024


def validate_document(stream: BinaryIO, report: Report, name: str) -> Summary:
    """One JSON document (a facets answer, a health record, an error body...) against the
    published schema ``name``."""
    raw = stream.read(MAX_DOCUMENT + 1)
    try:
        if len(raw) > MAX_DOCUMENT:
            raise ValueError(f"larger than {MAX_DOCUMENT // 2**20} MiB")
        document = json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # also UnicodeDecodeError and JSONDecodeError
        report.add(Problem("document", "", f"not a JSON document: {exc}", "json"))
        return Summary(name, 0, report.count)
    for field_name, message, rule in schema_problems(Checker(contract.load(name)), document):
        report.add(Problem("document", field_name, message, rule))
    return Summary(name, 0, report.count)


def validate_source(
    source: str,
    *,
    out: TextIO,
    max_problems: int = DEFAULT_MAX_PROBLEMS,
    as_json: bool = False,
    stdin: BinaryIO | None = None,
    schema: str | None = None,
) -> int:
    """Validate ``source`` (against ``schema`` when given, else by its kind) and print the
    report; the exit code. ``SourceError`` if unreadable or the schema is unknown."""
    if schema is not None and schema not in contract.PUBLISHED:
        raise SourceError(f"no published schema {schema!r}; known: {', '.join(contract.PUBLISHED)}")
    report = Report(out=None if as_json else out, limit=max_problems)
    with open_source(source, stdin) as stream:
        if schema is None:
            summary = validate_stream(stream, report)
        else:
            summary = validate_document(stream, report, schema)
    if as_json:
        body = {
            "valid": summary.valid,
            "kind": summary.kind,
            "rows": summary.rows,
            "pages": summary.pages,
            "issue_id": summary.issue_id,
            "problem_count": summary.problems,
            "problems": [p.as_dict() for p in report.shown],
        }
        print(json.dumps(body, ensure_ascii=False, separators=(",", ":")), file=out)
    else:
        print(summary_line(summary, report), file=out)
    return EXIT_VALID if summary.valid else EXIT_INVALID


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a flat file, an API page or JSON Lines: a path, - for stdin, or a URL"
    )
    parser.add_argument(
        "--max-problems",
        type=int,
        default=DEFAULT_MAX_PROBLEMS,
        metavar="N",
        help=f"report at most N problems (all are counted; default {DEFAULT_MAX_PROBLEMS})",
    )
    parser.add_argument(
        "--schema",
        metavar="NAME",
        help="check one JSON document against this published schema instead, e.g. "
        "service.tender.v1.facets.json or service.error.v1.json",
    )


def main(
    argv: list[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = argparse.ArgumentParser(
        prog="tenders-validate",
        description="Validate a flat file, an API page or a JSON Lines export against the "
        "service.tender.v1 schemas and the cross-row rules.",
        epilog="Exit codes: 0 valid, 1 invalid, 2 usage error.",
    )
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--version", action="version", version=f"tenders-validate {__version__}")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.max_problems < 0:
        print("error: --max-problems must be 0 or more", file=stderr)
        return EXIT_USAGE
    try:
        return validate_source(
            args.file,
            out=stdout,
            max_problems=args.max_problems,
            as_json=args.json,
            schema=args.schema,
        )
    except SourceError as exc:
        print(f"error: {exc}", file=stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
