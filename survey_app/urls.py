from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import api, design, manage_api, ohttp, respondent_views, views

manage = SimpleRouter()
manage.register("surveys", manage_api.SurveyViewSet, basename="manage-survey")

urlpatterns = [
    path("api/surveys/<slug:slug>/protocol/", api.ProtocolView.as_view(), name="api-protocol"),
    path("api/surveys/<slug:slug>/reports/", respondent_views.report, name="api-reports"),
    path("api/surveys/<slug:slug>/invitations/redeem/", respondent_views.redeem_invitation, name="api-redeem"),
    path("api/manage/", include(manage.urls)),  # the management API (token authentication)
    # The Oblivious HTTP gateway (RFC 9458) for surveys with a relay, and its key configuration.
    path("ohttp/gateway/", ohttp.gateway, name="ohttp-gateway"),
    path("ohttp/keys/", ohttp.keys, name="ohttp-keys"),
    # The designer's workspace (survey_app/design.py).
    path("design/", design.survey_list, name="design-list"),
    path("design/new/", design.survey_new, name="design-new"),
    path("design/survey/<slug:slug>/", design.survey_edit, name="design-edit"),
    path("design/survey/<slug:slug>/figures/", design.survey_figures, name="design-figures"),
    path("design/survey/<slug:slug>/<slug:action>/", design.survey_action, name="design-action"),
    path("s/<slug:slug>/", views.survey_page, name="survey"),
    # An invitation: the token travels in the fragment (/s/<slug>/i/#<token>), which no request sends.
    path("s/<slug:slug>/i/", views.invited_page, name="survey-invited"),
    # Links made before the fragment form (exported CSVs): redirected to it.
    path("s/<slug:slug>/t/<str:token>/", views.token_link, name="survey-token"),
    path("s/<slug:slug>/thanks/", views.thanks_page, name="survey-thanks"),
    # A survey's theme: its accent colour as a stylesheet, its logo (each address names its version).
    path("s/<slug:slug>/theme/<str:colour>.css", views.theme_stylesheet, name="survey-theme"),
    path("s/<slug:slug>/logo/<str:digest>/", views.logo, name="survey-logo"),
    # A designer's preview (staff only, drafts included; nothing can be sent from it).
    path("s/<slug:slug>/preview/", views.survey_preview, name="survey-preview"),
    path("s/<slug:slug>/preview/protocol/", views.survey_preview_protocol, name="survey-preview-protocol"),
]

#: The OpenAPI document's descriptions of the respondents' two POSTs (plain Django views, which drf-spectacular does
#: not describe): schema-only DRF views at the same paths, in the urlconf the schema is generated from
#: (coinflip/urls.py), never served.
schema_urlpatterns = [
    path("api/surveys/<slug:slug>/reports/", respondent_views.ReportSchema.as_view()),
    path("api/surveys/<slug:slug>/invitations/redeem/", respondent_views.RedeemSchema.as_view()),
]
