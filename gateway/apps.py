from django.apps import AppConfig


class GatewayConfig(AppConfig):
    # The OpenAI/Anthropic-shaped REST gateway (issue 8). Installed now so its migrations
    # and URLs have a home; it serves no endpoint yet.
    name = "gateway"
    verbose_name = "Gateway"
