"""The project-level django-ninja API: one router per app, one place that maps domain errors to HTTP."""

from django.http import Http404
from ninja import NinjaAPI
from ninja.security import SessionAuth

from agents.api import router as agents_router
from agents.files_api import router as files_router
from agents.services import InvalidInput
from metnos_site.analytics import router as analytics_router
from routing.api import router as routing_router

api = NinjaAPI(title="Metnos API", version="1", auth=SessionAuth(), urls_namespace="api")
api.add_router("/", agents_router)
api.add_router("/", files_router)
api.add_router("/", routing_router)
api.add_router("/", analytics_router)


@api.exception_handler(InvalidInput)
def invalid_input(request, exc):
    return api.create_response(request, {"detail": str(exc)}, status=400)


@api.exception_handler(Http404)
def not_found(request, exc):
    return api.create_response(request, {"detail": "Not found."}, status=404)
