from django.db.backends.postgresql import base, creation

UTF8_LOCALE = "C.UTF-8"


class DatabaseCreation(creation.DatabaseCreation):
    def _get_database_create_suffix(self, encoding=None, template=None):
        suffix = super()._get_database_create_suffix(
            encoding=encoding or "UTF8", template=template or "template0"
        )
        return f"{suffix} LC_COLLATE '{UTF8_LOCALE}' LC_CTYPE '{UTF8_LOCALE}'"


class DatabaseWrapper(base.DatabaseWrapper):
    creation_class = DatabaseCreation
