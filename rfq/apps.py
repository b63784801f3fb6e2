from django.apps import AppConfig


class RfqConfig(AppConfig):
    name = "rfq"
    verbose_name = "Requests for quote and access"
