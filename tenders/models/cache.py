"""The tables of the database caches (``CACHES`` without Redis), made by ``migrate``.

Django's cache backend reads and writes them with its own SQL, and its ``createcachetable``
would make them too; these models exist so that ``migrate`` alone sets up every table the
service needs. Nothing else uses them.
"""

from django.db import models


class CacheTable(models.Model):
    """The columns ``django.core.cache.backends.db.DatabaseCache`` expects."""

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.cache_key


class SharedCacheEntry(CacheTable):
    """The ``default`` cache: rate-limit slots of every server process."""

    class Meta:
        db_table = "django_cache"


class AnswerCacheEntry(CacheTable):
    """The ``answers`` cache: bodies of the public read path (``tenders.read.answers``)."""

    class Meta:
        db_table = "tenders_answer_cache"
