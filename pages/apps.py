from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "pages"
    label = "pages"
    verbose_name = "Pages for people"
