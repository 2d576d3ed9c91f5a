from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path
from django.views.i18n import JavaScriptCatalog

from agents import views as agent_views
from gateway import account as gateway_account
from gateway import embeddings as gateway_embeddings
from gateway import views as gateway_views
from metnos_site import analytics
from metnos_site.api import api
from metnos_site.health import healthz, live, ready

urlpatterns = [
    path("", agent_views.chat, name="chat"),
    path("s/<uuid:session_id>/", agent_views.chat, name="chat-session"),
    path("healthz", healthz, name="healthz"),
    path("healthz/ready", ready, name="healthz-ready"),
    path("healthz/live", live, name="healthz-live"),
    # The pages' scripts' texts in the visitor's language, from this origin (the CSP allows it).
    # One app named: the catalog then holds locale/'s strings (always read) and not the admin's.
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["agents"]), name="javascript-catalog"),
    path("v1/chat/completions", gateway_views.completions, name="v1-chat-completions"),
    path("v1/messages", gateway_views.completions, name="v1-messages"),
    path("v1/responses", gateway_views.responses, name="v1-responses"),
    path("v1/messages/count_tokens", gateway_views.count_tokens, name="v1-count-tokens"),
    path("v1/models", gateway_views.models, name="v1-models"),
    path("v1/models/<path:model_id>", gateway_views.model, name="v1-model"),
    path("v1/embeddings", gateway_embeddings.create, name="v1-embeddings"),
    path("dashboard/", analytics.dashboard, name="dashboard"),
    path("dashboard/<str:page>/", analytics.dashboard, name="dashboard-page"),
    path("usage/", analytics.usage, name="usage"),
    path("api/", api.urls),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Templates of our own names: the admin's password change keeps Django's registration/ ones.
    path(
        "accounts/password_change/",
        auth_views.PasswordChangeView.as_view(template_name="registration/password_change.html"),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="registration/password_changed.html"),
        name="password_change_done",
    ),
    path("settings/", agent_views.settings_page, name="settings"),
    path("keys/", gateway_account.keys_page, name="keys"),
    path("keys/<uuid:key_id>/revoke/", gateway_account.key_revoke, name="key-revoke"),
]
