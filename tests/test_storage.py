"""Files in the database (``tenders.storage.DatabaseStorage``), the default file storage."""

import gzip
import os

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tenders import storage
from tenders.models import StoredFile, StoredFileChunk

pytestmark = pytest.mark.django_db


def test_the_default_storage_is_the_database():
    assert isinstance(default_storage, storage.DatabaseStorage)


def test_a_file_round_trips_across_chunk_boundaries():
    data = os.urandom(storage.CHUNK * 2 + 12345)
    name = default_storage.save("feeds/x.bin", ContentFile(data))
    assert name == "feeds/x.bin" and default_storage.exists(name)
    assert default_storage.size(name) == len(data)
    assert StoredFileChunk.objects.filter(file__name=name).count() == 3
    with default_storage.open(name, "rb") as handle:
        assert handle.read() == data
    # A second file of the same name gets a name of its own; the first is untouched.
    other = default_storage.save("feeds/x.bin", ContentFile(b"other"))
    assert other != name and default_storage.open(other).read() == b"other"
    files = sorted(n.removeprefix("feeds/") for n in (name, other))
    assert default_storage.listdir("feeds") == ([], files)
    assert default_storage.listdir("") == (["feeds"], [])
    default_storage.delete(name)
    assert not default_storage.exists(name) and not StoredFileChunk.objects.filter(file__name=name)
    with pytest.raises(FileNotFoundError):
        default_storage.open(name)
    with pytest.raises(FileNotFoundError):
        default_storage.size(name)


def test_reading_asks_for_one_chunk_at_a_time():
    data = os.urandom(storage.CHUNK * 3)
    name = default_storage.save("feeds/big.bin", ContentFile(data))
    with CaptureQueriesContext(connection) as queries:
        handle = default_storage.open(name, "rb")
        assert handle.read(10) == data[:10]
    assert len(queries) == 2  # the file's row, then its first chunk only
    with CaptureQueriesContext(connection) as queries:
        rest = handle.read()
    assert rest == data[10:] and len(queries) == 2  # chunks 2 and 3; the size says no more
    handle.close()


def test_a_gzip_stream_inflates_from_the_database():
    document = b'{"rows": [' + b",".join(b'{"n": %d}' % i for i in range(200_000)) + b"]}"
    name = default_storage.save("feeds/rows.json.gz", ContentFile(gzip.compress(document)))
    with default_storage.open(name, "rb") as handle:
        assert gzip.GzipFile(fileobj=handle).read() == document


def test_files_cannot_be_opened_for_writing():
    name = default_storage.save("uploads/a.csv", ContentFile(b"a,b\n"))
    with pytest.raises(ValueError, match="save"):
        default_storage.open(name, "wb")
    assert StoredFile.objects.get(name=name).size == 4
