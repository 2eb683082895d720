from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView

admin.site.site_header = "Parity — studies, humans and models"
admin.site.site_title = "Parity"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="studies:list", permanent=False)),
    path("admin/", admin.site.urls),
    path("runs/", include("modelruns.urls")),
    path("studies/", include("studies.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/", include("studies.api.urls")),
    path("", include("annotation.urls")),
]
