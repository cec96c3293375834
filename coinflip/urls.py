"""Top-level URL configuration."""
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from .views import home


class FaviconView(RedirectView):
    """``/favicon.ico``, which browsers ask for on every page without a ``<link rel="icon">`` (the admin's, the API
    docs'): the static file at its current (in production, hashed) URL, so the redirect itself is not permanent."""

    def get_redirect_url(self, *args, **kwargs) -> str:
        return static("favicon.ico")


urlpatterns = [
    path("", home, name="home"),
    path("favicon.ico", FaviconView.as_view(), name="favicon"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the language switch in the page header
    path("", include("survey_app.urls")),
    path("", include("aggregator.urls")),
    path("dashboard/", include("aggregator.dashboard.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view: Swagger UI without an inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
