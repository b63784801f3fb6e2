from django.apps import AppConfig


class TendersConfig(AppConfig):
    name = "tenders"
    verbose_name = "Tender feed"
