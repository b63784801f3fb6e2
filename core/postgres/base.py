"""PostgreSQL backend: databases created with UTF-8 character classes, and connections whose
waits honour a request's answer limit (``core.database``).

Django's test-database creation inherits the server's default locale. Under the ``C`` locale
PostgreSQL's trigram extension treats CJK characters as non-word characters and silently
indexes nothing for Chinese text, so every database this backend creates asks for ``C.UTF-8``
explicitly (from ``template0``, which accepts any locale).
"""

import psycopg
from django.db.backends.postgresql import base, creation

from core.database import LimitedConnection

UTF8_LOCALE = "C.UTF-8"


class DatabaseCreation(creation.DatabaseCreation):
    def _get_database_create_suffix(self, encoding=None, template=None):
        suffix = super()._get_database_create_suffix(
            encoding=encoding or "UTF8", template=template or "template0"
        )
        return f"{suffix} LC_COLLATE '{UTF8_LOCALE}' LC_CTYPE '{UTF8_LOCALE}'"


class _Driver:
    """psycopg as Django's backend sees it (``self.Database``), connecting with our class."""

    connect = LimitedConnection.connect

    def __getattr__(self, name):
        return getattr(psycopg, name)


class DatabaseWrapper(base.DatabaseWrapper):
    creation_class = DatabaseCreation
    Database = _Driver()
