"""An incremental reader of JSON documents whose big part is one array, in bounded memory.

The flat file is one object ``{generated, issue_id, total, withheld, rows: [...]}`` that reaches
a gigabyte at a million rows, on a single line. :class:`JsonReader` walks the top-level object
member by member and hands the elements of a chosen array to a callback one at a time, so memory
holds one buffer (64 KiB by default) and one element, never the document. Everything else (a
member's value, one element, one JSON Lines record) is parsed whole by the standard library's
``json.JSONDecoder.raw_decode`` over the buffer; a value cut by the end of the buffer is retried
after reading more, up to ``max_value`` characters.

Stricter than ``json.loads`` where a validator should be: ``NaN``/``Infinity`` are refused, the
text must be UTF-8, and repeated member names are recorded (``json`` keeps the last silently).
"""

import codecs
import http.client
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

WHITESPACE = re.compile(r"[ \t\n\r]*")
CHUNK = 64 * 1024
MAX_VALUE = 16 * 1024 * 1024
# A decoding error this close to the end of the buffer may only mean that the value goes on.
NEAR_END = 8


class JsonSyntaxError(ValueError):
    """The text is not JSON (or not UTF-8, or a value is too long), at ``line``/``column``."""

    def __init__(self, message: str, line: int, column: int, *, truncated: bool = False):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.truncated = truncated

    def __str__(self) -> str:
        return f"{self.message} at line {self.line}, column {self.column}"


class _Constant(ValueError):
    pass


def _refuse_constant(name: str):
    raise _Constant(name)


@dataclass(frozen=True)
class Streamed:
    """Stands in for an array whose elements went to the callback: how many there were."""

    count: int


class JsonReader:
    """JSON values read one after another from a binary stream (see the module docstring)."""

    def __init__(self, stream: BinaryIO, *, chunk: int = CHUNK, max_value: int = MAX_VALUE):
        self._stream = stream
        self._chunk = chunk
        self._max_value = max_value
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._buf = ""
        self._pos = 0
        self._eof = False
        # Where the buffer starts in the text, for messages: lines and column dropped so far.
        self._lines_dropped = 0
        self._column_dropped = 0
        self._decoder = json.JSONDecoder(
            object_pairs_hook=self._object, parse_constant=_refuse_constant
        )
        # Member names repeated inside objects decoded since take_repeated() was last called
        # (json keeps the last value silently).
        self._repeated: list[str] = []

    # --- the buffer -----------------------------------------------------------------------

    def _fill(self) -> bool:
        """Read one more chunk into the buffer; False at the end of the stream."""
        if self._eof:
            return False
        dropped = self._buf[: self._pos]
        newlines = dropped.count("\n")
        if newlines:
            self._lines_dropped += newlines
            self._column_dropped = len(dropped) - dropped.rfind("\n") - 1
        else:
            self._column_dropped += len(dropped)
        try:
            data = self._stream.read(self._chunk)
        except (OSError, EOFError, http.client.HTTPException) as exc:
            # A broken gzip member, a dropped connection: the text ends here, unfinished.
            raise self._error(
                f"the data cannot be read to its end ({exc})", truncated=True
            ) from None
        try:
            text = self._utf8.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise self._error(f"the text is not UTF-8 ({exc.reason})") from None
        self._buf = self._buf[self._pos :] + text
        self._pos = 0
        if not data:
            self._eof = True
        return bool(data)

    def position(self, pos: int | None = None) -> tuple[int, int]:
        """Line and column (1-based) of a buffer position, by default the current one."""
        pos = self._pos if pos is None else pos
        newlines = self._buf.count("\n", 0, pos)
        if newlines:
            return self._lines_dropped + newlines + 1, pos - self._buf.rfind("\n", 0, pos)
        return self._lines_dropped + 1, self._column_dropped + pos + 1

    def _error(self, message: str, pos: int | None = None, *, truncated=False) -> JsonSyntaxError:
        line, column = self.position(pos)
        return JsonSyntaxError(message, line, column, truncated=truncated)

    def _object(self, pairs: list[tuple[str, Any]]) -> dict:
        value = dict(pairs)
        if len(value) != len(pairs):
            seen: set[str] = set()
            for name, _ in pairs:
                if name in seen:
                    self._repeated.append(name)
                seen.add(name)
        return value

    # --- tokens -----------------------------------------------------------------------------

    def skip_space(self) -> bool:
        """Skip whitespace (reading on as needed); True when it held a line break."""
        newline = False
        while True:
            end = WHITESPACE.match(self._buf, self._pos).end()
            newline = newline or self._buf.find("\n", self._pos, end) >= 0
            self._pos = end
            if end < len(self._buf) or not self._fill():
                return newline

    def peek(self) -> str:
        """The next character after whitespace, or '' at the end of the stream."""
        self.skip_space()
        return self._buf[self._pos] if self._pos < len(self._buf) else ""

    def at_end(self) -> bool:
        return self.peek() == ""

    def _expected(self, what: str) -> JsonSyntaxError:
        found = self.peek()
        if not found:
            return self._error(f"the text ends early (truncated): expected {what}", truncated=True)
        return self._error(f"expected {what}, found {found!r}")

    def _take(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise self._expected(what)
        self._pos += 1

    def value(self) -> Any:
        """The next complete JSON value, parsed whole."""
        if not self.peek():
            raise self._expected("a value")
        mark = len(self._repeated)
        while True:
            del self._repeated[mark:]  # a retry decodes the same objects again
            try:
                value, end = self._decoder.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                near_end = exc.pos >= len(self._buf) - NEAR_END
                cut = near_end or exc.msg.startswith("Unterminated string")
                offset = exc.pos - self._pos  # reading more moves the value in the buffer
                if cut and self._read_more():
                    continue
                if cut:
                    raise self._error(
                        "the text ends early (truncated) inside a value",
                        len(self._buf),
                        truncated=True,
                    ) from None
                raise self._error(exc.msg, self._pos + offset) from None
            except _Constant as exc:
                raise self._error(f"{exc} is not JSON") from None
            # A number at the very end of the buffer may go on in the next chunk.
            if end == len(self._buf) and self._read_more():
                continue
            self._pos = end
            return value

    def _read_more(self) -> bool:
        if len(self._buf) - self._pos > self._max_value:
            raise self._error(f"a single value is longer than {self._max_value:,} characters")
        return self._fill()

    def take_repeated(self) -> list[str]:
        """Member names found repeated inside decoded objects since the last call."""
        names, self._repeated = self._repeated, []
        return names

    # --- documents --------------------------------------------------------------------------

    def document(
        self,
        stream: frozenset[str],
        each: Callable[[str, int, Any, list[str]], None],
        start: Callable[[str], None] | None = None,
    ) -> tuple[Any, list[tuple[str, Any, Any]]]:
        """The next top-level value, and its own members that are repeated (name, first, second).

        In an object, a member named in ``stream`` whose value is an array is not kept: each
        element goes to ``each(name, index, element, repeated)`` as it is read (``repeated``:
        member names repeated inside the element) and the member's value is a
        :class:`Streamed` count, after ``start(name)`` is called as the array opens. Any other
        value comes back as ``value()`` gives it; names repeated deeper inside it wait in
        ``take_repeated()``.
        """
        if self.peek() != "{":
            return self.value(), []
        self._pos += 1
        members: dict[str, Any] = {}
        repeated: list[tuple[str, Any, Any]] = []
        if self.peek() == "}":
            self._pos += 1
            return members, repeated
        while True:
            if self.peek() != '"':
                raise self._expected("a member name in double quotes")
            name = self.value()
            self._take(":", "':' after a member name")
            if name in stream and self.peek() == "[":
                if start is not None:
                    start(name)
                value = Streamed(self._array(name, each))
            else:
                value = self.value()
            if name in members:
                repeated.append((name, members[name], value))
            members[name] = value
            char = self.peek()
            if char == ",":
                self._pos += 1
            elif char == "}":
                self._pos += 1
                return members, repeated
            else:
                raise self._expected("',' or '}' after a member")

    def _array(self, name: str, each: Callable[[str, int, Any, list[str]], None]) -> int:
        self._pos += 1
        if self.peek() == "]":
            self._pos += 1
            return 0
        index = 0
        while True:
            mark = len(self._repeated)
            element = self.value()
            repeated = self._repeated[mark:]
            del self._repeated[mark:]
            each(name, index, element, repeated)
            index += 1
            char = self.peek()
            if char == ",":
                self._pos += 1
            elif char == "]":
                self._pos += 1
                return index
            else:
                raise self._expected(f"',' or ']' after element {index} of {name}")
