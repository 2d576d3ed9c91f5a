from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from agents import views as agent_views
from gateway import views as gateway_views
from metnos_site import analytics
from metnos_site.api import api
from metnos_site.health import healthz

urlpatterns = [
    path("", agent_views.chat, name="chat"),
    path("s/<uuid:session_id>/", agent_views.chat, name="chat-session"),
    path("healthz", healthz, name="healthz"),
    path("v1/chat/completions", gateway_views.completions, name="v1-chat-completions"),
    path("v1/messages", gateway_views.completions, name="v1-messages"),
    path("v1/messages/count_tokens", gateway_views.count_tokens, name="v1-count-tokens"),
    path("v1/models", gateway_views.models, name="v1-models"),
    path("dashboard/", analytics.dashboard, name="dashboard"),
    path("dashboard/<str:page>/", analytics.dashboard, name="dashboard-page"),
    path("usage/", analytics.usage, name="usage"),
    path("api/", api.urls),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
]
