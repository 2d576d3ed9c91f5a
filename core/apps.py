from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core (IR, events, traces)"

    def ready(self) -> None:
        from core import trace

        trace.install()
