from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from config.api_docs import api_docs, api_schema
from config.health import health, live

admin.site.site_header = "Parity — studies, humans and models"
admin.site.site_title = "Parity"

handler404 = "config.errors.page_not_found"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="results:list", permanent=False)),
    path("healthz", health, name="health"),
    path("livez", live, name="live"),
    # browsers ask for /favicon.ico whatever the page links: send them to the SVG
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"))),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("runs/", include("modelruns.urls")),
    path("studies/", include("studies.urls")),
    path("studies/", include("results.urls")),
    path("studies/", include("replication.urls")),
    path("studies/", include("review.urls")),
    path("api/schema/", api_schema, name="api-schema"),
    path("api/docs/", api_docs, name="api-docs"),
    path("api/", include("api.urls")),
    path("", include("prolific.urls")),
    path("", include("participation.urls")),
]
