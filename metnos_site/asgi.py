import asyncio
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "metnos_site.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs the app registry)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402

from agents.routing import websocket_urlpatterns  # noqa: E402
from gateway import settlement  # noqa: E402
from gateway.views import dispatch  # noqa: E402


class GatewayHandler(ASGIHandler):
    """/v1/…: Django's request handling (body limits, disconnects, streaming) without the
    middleware chain, which is the browser's (see gateway.views.dispatch)."""

    async def get_response_async(self, request):
        response = await dispatch(request)
        response._resource_closers.append(request.close)
        return response


gateway_app = GatewayHandler()


async def http(scope, receive, send):
    app = gateway_app if scope["path"].startswith("/v1/") else django_asgi_app
    await app(scope, receive, send)


async def lifespan(scope, receive, send):
    """ASGI lifespan, for servers that speak it (granian; daphne does not and settles at exit):
    at shutdown, the gateway's queued settlements are written before the worker process ends."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await asyncio.to_thread(settlement.drain)
            await send({"type": "lifespan.shutdown.complete"})
            return


application = ProtocolTypeRouter(
    {
        "http": http,
        "lifespan": lifespan,
        # The Origin check stops other sites from riding the session cookie into a websocket.
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
