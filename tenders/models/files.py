"""Files kept in the database: the flat file of each issue and pending uploads.

With ``TENDERS_FILE_STORAGE=database`` (the default) PostgreSQL is the only state the web
servers and workers share: a worker on one machine writes a flat file that a web server on
another streams. A file is a row and its bytes are chunks of at most 1 MB, written and read one
at a time, so no process holds a whole file in memory. ``tenders.storage.DatabaseStorage`` is
the Django storage over these tables.
"""

from django.db import models


class StoredFile(models.Model):
    name = models.CharField(max_length=300, unique=True)
    size = models.PositiveBigIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "stored file"

    def __str__(self) -> str:
        return self.name


class StoredFileChunk(models.Model):
    file = models.ForeignKey(StoredFile, on_delete=models.CASCADE, related_name="chunks")
    seq = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["file", "seq"], name="stored_file_chunk_unique")
        ]

    def __str__(self) -> str:
        return f"{self.file_id}#{self.seq}"
