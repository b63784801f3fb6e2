"""Where pieces come from and how they are grouped by procedure, in bounded memory.

- ``open_files``: a file (``.gz`` decompressed on the fly) or every matching file of a folder,
  in name order;
- ``Utf8Repair``: a byte stream whose text is mislabelled as UTF-8 (Latin-1 / Windows-1252
  bytes inside) is repaired on the fly, so one bad byte does not lose a whole file;
- ``group_pieces``: pieces of one procedure can be anywhere in a source (a release early, its
  amendment at the end), so they are spilled to a temporary SQLite file and read back grouped;
  memory holds one procedure at a time, whatever the size of the source.
"""

import codecs
import gzip
import io
import pickle
import sqlite3
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from . import http
from .notice import Failure, Piece, ReadError

CHUNK = 1 << 16
SPILL_BATCH = 2000


def is_url(location: str) -> bool:
    return location.lower().startswith(("http://", "https://"))


def _cp1252_fallback(error: UnicodeError):
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start : error.end]
    return bad.decode("cp1252", errors="replace"), error.end


codecs.register_error("tenders-cp1252", _cp1252_fallback)


class Utf8Repair(io.RawIOBase):
    """A readable byte stream of valid UTF-8: bytes that are not UTF-8 are read as cp1252."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="tenders-cp1252")
        self.pending = b""
        self.done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending and not self.done:
            chunk = self.raw.read(CHUNK)
            self.done = not chunk
            self.pending = self.decoder.decode(chunk, final=self.done).encode("utf-8")
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        return size


@contextmanager
def opened(path: Path, *, repair: bool = True):
    """A file's bytes, gunzipped when its name ends in ``.gz``, repaired to UTF-8 unless the
    format declares its own encoding (XML)."""
    with gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb") as handle:
        yield io.BufferedReader(Utf8Repair(handle), CHUNK) if repair else handle


def files(location: str, suffixes: tuple[str, ...]) -> list[Path]:
    """The file, or the folder's files whose names end in one of ``suffixes`` (sorted)."""
    path = Path(location)
    if path.is_dir():
        found = sorted(
            p for p in path.rglob("*") if p.is_file() and p.name.lower().endswith(suffixes)
        )
        if not found:
            raise ReadError(f"{location} has no {', '.join(suffixes)} files.")
        return found
    if path.is_file():
        return [path]
    raise ReadError(f"{location} is neither a file nor a folder here; check the path.")


def streams(
    location: str,
    suffixes: tuple[str, ...],
    *,
    accept: str,
    repair: bool = True,
    policy: http.HttpPolicy | None = None,
    sleep: Callable[[float], None] | None = None,
    session: http.Session | None = None,
) -> Iterator[tuple[str, BinaryIO]]:
    """(name, byte stream) of a URL, a file or each matching file of a folder."""
    if is_url(location):
        opened_url = http.open_url(
            location, policy=policy, sleep=sleep, accept=accept, session=session
        )
        with opened_url as response:
            yield location, io.BufferedReader(Utf8Repair(response), CHUNK) if repair else response
        return
    for path in files(location, suffixes):
        with opened(path, repair=repair) as stream:
            yield path.name, stream


# --- grouping by procedure ----------------------------------------------------------------


def group_pieces(
    items: Iterable[Piece | Failure],
    *,
    on_item: Callable[[Piece | Failure], bool],
    on_grouped: Callable[[int], None] | None = None,
) -> Iterator[tuple[str, list[Piece]]]:
    """Every procedure's pieces together, in read order within a procedure.

    ``on_item`` sees each item as it is read (to count it, report it, keep a failure) and
    returns whether a piece is kept; ``on_grouped`` gets the number of procedures once all
    are read. Procedures come out in ``notice_id`` order.
    """
    with tempfile.TemporaryDirectory(prefix="tenders-import-") as folder:
        db = sqlite3.connect(Path(folder) / "pieces.sqlite")
        try:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")
            db.execute("CREATE TABLE piece (seq INTEGER PRIMARY KEY, notice_id TEXT, data BLOB)")
            batch = []
            for item in items:
                keep = on_item(item)
                if isinstance(item, Piece) and keep:
                    batch.append((item.notice_id, zlib.compress(pickle.dumps(item), 1)))
                    if len(batch) >= SPILL_BATCH:
                        db.executemany("INSERT INTO piece (notice_id, data) VALUES (?, ?)", batch)
                        batch = []
            if batch:
                db.executemany("INSERT INTO piece (notice_id, data) VALUES (?, ?)", batch)
            db.execute("CREATE INDEX piece_notice ON piece (notice_id, seq)")
            if on_grouped:
                on_grouped(db.execute("SELECT COUNT(DISTINCT notice_id) FROM piece").fetchone()[0])
            current, group = None, []
            rows = db.execute("SELECT notice_id, data FROM piece ORDER BY notice_id, seq")
            for notice_id, data in rows:
                if notice_id != current and group:
                    yield current, group
                    group = []
                current = notice_id
                group.append(pickle.loads(zlib.decompress(data)))
            if group:
                yield current, group
        finally:
            db.close()


def read_notices(reader, location: str, *, market: str) -> Iterator:
    """Every procedure of a source as its reader builds it (a ``Notice`` or a ``Skip``), with
    no database: for benches and the vocabulary's learning from samples."""
    items = reader.pieces(location, market=market) if market else reader.pieces(location)
    groups = group_pieces(items, on_item=lambda item: not isinstance(item, Failure))
    for notice_id, group in groups:
        payloads = [piece.payload for piece in group]
        yield reader.build(notice_id, payloads, **({"market": market} if market else {}))
