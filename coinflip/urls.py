"""Top-level URL configuration."""
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView
from django.views.i18n import set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from survey_app.urls import schema_urlpatterns

from .views import home


class FaviconView(RedirectView):
    """``/favicon.ico``, which browsers ask for on every page without a ``<link rel="icon">`` (the admin's, the API
    docs'): the static file at its current (in production, hashed) URL, so the redirect itself is not permanent."""

    def get_redirect_url(self, *args, **kwargs) -> str:
        return static("favicon.ico")


#: What the OpenAPI document describes (drf-spectacular's ``urlconf``): the schema-only views of the respondents' two
#: POSTs, which are plain Django views (survey_app.urls.schema_urlpatterns), then every URL below.
described: list = [*schema_urlpatterns]

urlpatterns = [
    path("", home, name="home"),
    path("favicon.ico", FaviconView.as_view(), name="favicon"),
    path("admin/", admin.site.urls),
    # The language switch at the foot of every page (templates/base.html). Without CSRF protection, so that pages need
    # no CSRF cookie (the survey page sets none): a forged request could only change someone's display language.
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("", include("survey_app.urls")),
    path("", include("aggregator.urls")),
    path("dashboard/", include("aggregator.dashboard.urls")),
    path("api/schema/", SpectacularAPIView.as_view(urlconf=described), name="api-schema"),
    # The split view: Swagger UI without an inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]
described += urlpatterns
