from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Staff accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import receivers  # noqa: F401
