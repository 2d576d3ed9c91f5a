from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from agents import views as agent_views
from metnos_site import analytics
from metnos_site.api import api
from metnos_site.health import healthz

urlpatterns = [
    path("", agent_views.chat, name="chat"),
    path("s/<uuid:session_id>/", agent_views.chat, name="chat-session"),
    path("healthz", healthz, name="healthz"),
    path("dashboard/", analytics.dashboard, name="dashboard"),
    path("dashboard/<str:page>/", analytics.dashboard, name="dashboard-page"),
    path("usage/", analytics.usage, name="usage"),
    path("api/", api.urls),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
]
