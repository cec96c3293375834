"""Top-level URL configuration."""
from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("admin/", admin.site.urls),
    path("", include("survey_app.urls")),
    path("", include("aggregator.urls")),
    path("dashboard/", include("aggregator.dashboard.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view: Swagger UI without an inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
