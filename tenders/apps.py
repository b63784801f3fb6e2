from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class TendersConfig(AppConfig):
    name = "tenders"
    verbose_name = "Tender feed"

    def ready(self) -> None:
        from . import tasks  # noqa: F401  (its receivers tidy after jobs whose worker died)
        from .directory import names_added
        from .models import GateAllowance, PublicBody, PublicBodyName
        from .sanitize.loading import forget_gate

        # The admin's gate is cached per process: a change to its inputs drops it.
        for model in (PublicBody, PublicBodyName, GateAllowance):
            post_save.connect(forget_gate, sender=model, dispatch_uid=f"gate-{model.__name__}")
            post_delete.connect(forget_gate, sender=model, dispatch_uid=f"gate-{model.__name__}-")
        names_added.connect(forget_gate, dispatch_uid="gate-names-added")
