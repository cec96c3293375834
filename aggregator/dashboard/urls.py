"""URLs of the staff dashboard, mounted at ``/dashboard/`` (namespace ``dashboard``)."""
from django.urls import path

from . import export_views, glossary_views, planner, views
from .exports.registry import FORMATS

app_name = "dashboard"

urlpatterns = [
    path("", views.survey_list, name="index"),
    path("surveys/<slug:slug>/", views.survey_detail, name="survey"),
    path("surveys/<slug:slug>/retrain/", views.retrain, name="retrain"),
    path("surveys/<slug:slug>/predict/", views.predict, name="predict"),
    path("surveys/<slug:slug>/reports.csv", views.reports_csv, name="reports-csv"),
    path("surveys/<slug:slug>/versions/<int:version>/model.json", views.model_json, name="model-json"),
    *(path(f"surveys/<slug:slug>/versions/<int:version>/{fmt.path}", export_views.download, {"fmt": fmt.name},
           name=fmt.name) for fmt in FORMATS),
    path("surveys/<slug:slug>/versions/<int:version>/card/", export_views.model_card, name="model-card"),
    path("jobs/<int:job_id>/", views.job_status, name="job"),
    path("planner/", planner.planner, name="planner"),
    path("planner/<int:job_id>/", planner.planner_result, name="planner-result"),
    path("planner/<int:job_id>/apply/", planner.planner_apply, name="planner-apply"),
    path("glossary/", glossary_views.glossary, name="glossary"),
]
