from django.apps import AppConfig


class RoutingConfig(AppConfig):
    name = "routing"
    verbose_name = "Routing (models, providers, patterns)"

    def ready(self) -> None:
        from routing import signals  # noqa: F401
