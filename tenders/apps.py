from django.apps import AppConfig


class TendersConfig(AppConfig):
    name = "tenders"
    verbose_name = "Tender feed"

    def ready(self) -> None:
        from . import tasks  # noqa: F401  (its receivers tidy after jobs whose worker died)
