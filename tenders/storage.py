"""``DatabaseStorage``: Django's file storage over ``StoredFile`` rows (``tenders.models.files``).

Used as the default storage when ``TENDERS_FILE_STORAGE=database`` (the default), so a flat file
written by a worker is served by any web server that reaches the database. Files are written
and read in chunks of ``CHUNK`` bytes; an open file reads one chunk per query, as the reader
asks for it. Files have no public URL: the views that serve them stream them.
"""

import io

from django.core.files.base import File
from django.core.files.storage import Storage
from django.db import transaction
from django.utils.deconstruct import deconstructible

from .models import StoredFile, StoredFileChunk

CHUNK = 1 << 20


@deconstructible
class DatabaseStorage(Storage):
    def _save(self, name: str, content) -> str:
        with transaction.atomic():
            stored = StoredFile.objects.create(name=name)
            size = 0
            for seq, data in enumerate(_pieces(content)):
                StoredFileChunk.objects.create(file=stored, seq=seq, data=data)
                size += len(data)
            stored.size = size
            stored.save(update_fields=["size"])
        return name

    def _open(self, name: str, mode: str = "rb") -> File:
        if any(flag in mode for flag in "wa+"):
            raise ValueError("files in the database are written with save(), not open()")
        try:
            stored = StoredFile.objects.only("pk", "size").get(name=name)
        except StoredFile.DoesNotExist:
            raise FileNotFoundError(name) from None
        reader = io.BufferedReader(_ChunkReader(stored.pk, stored.size), buffer_size=CHUNK)
        return File(reader, name)

    def exists(self, name: str) -> bool:
        return StoredFile.objects.filter(name=name).exists()

    def delete(self, name: str) -> None:
        StoredFile.objects.filter(name=name).delete()

    def size(self, name: str) -> int:
        try:
            return StoredFile.objects.values_list("size", flat=True).get(name=name)
        except StoredFile.DoesNotExist:
            raise FileNotFoundError(name) from None

    def listdir(self, path: str):
        prefix = path.rstrip("/") + "/" if path else ""
        names = StoredFile.objects.filter(name__startswith=prefix).values_list("name", flat=True)
        directories, files = set(), []
        for name in names:
            head, _, rest = name[len(prefix) :].partition("/")
            (directories.add(head) if rest else files.append(head))
        return sorted(directories), sorted(files)

    def url(self, name: str) -> str:
        raise NotImplementedError("files in the database are streamed by the views, not linked")


def _pieces(content):
    """``content``'s bytes in pieces of exactly CHUNK bytes (the last one shorter)."""
    if hasattr(content, "seek"):
        content.seek(0)
    pending = b""
    for data in content.chunks(CHUNK) if hasattr(content, "chunks") else [content.read()]:
        pending += data
        while len(pending) >= CHUNK:
            yield pending[:CHUNK]
            pending = pending[CHUNK:]
    if pending:
        yield pending


class _ChunkReader(io.RawIOBase):
    """Reads a stored file's chunks in order, one query per chunk."""

    def __init__(self, file_id: int, size: int):
        self.file_id, self.size = file_id, size
        self.seq, self.position = 0, 0
        self.pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if not self.pending and self.position >= self.size:
            return 0
        if not self.pending:
            data = (
                StoredFileChunk.objects.filter(file_id=self.file_id, seq=self.seq)
                .values_list("data", flat=True)
                .first()
            )
            if data is None:
                return 0
            self.pending = memoryview(bytes(data))
            self.seq += 1
        count = min(len(buffer), len(self.pending))
        buffer[:count] = self.pending[:count]
        self.pending = self.pending[count:]
        self.position += count
        return count
