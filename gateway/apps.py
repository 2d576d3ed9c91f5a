from django.apps import AppConfig


class GatewayConfig(AppConfig):
    # The OpenAI/Anthropic-shaped REST gateway: /v1/chat/completions, /v1/messages, /v1/models.
    name = "gateway"
    verbose_name = "Gateway"

    def ready(self) -> None:
        from gateway import signals  # noqa: F401  (connects the key-cache receivers)
