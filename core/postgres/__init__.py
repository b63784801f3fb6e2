"""PostgreSQL backend that creates databases with UTF-8 character classes.

Django's test-database creation inherits the server's default locale. Under the ``C`` locale
PostgreSQL's trigram extension treats CJK characters as non-word characters and silently
indexes nothing for Chinese text, so every database this backend creates asks for ``C.UTF-8``
explicitly (from ``template0``, which accepts any locale).
"""
