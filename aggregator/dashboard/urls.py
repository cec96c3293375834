"""URLs of the staff dashboard, mounted at ``/dashboard/`` (namespace ``dashboard``)."""
from django.urls import path

from . import export_views, glossary_views, planner, views

app_name = "dashboard"

urlpatterns = [
    path("", views.survey_list, name="index"),
    path("surveys/<slug:slug>/", views.survey_detail, name="survey"),
    path("surveys/<slug:slug>/retrain/", views.retrain, name="retrain"),
    path("surveys/<slug:slug>/predict/", views.predict, name="predict"),
    path("surveys/<slug:slug>/reports.csv", views.reports_csv, name="reports-csv"),
    path("surveys/<slug:slug>/versions/<int:version>/model.json", views.model_json, name="model-json"),
    path("surveys/<slug:slug>/versions/<int:version>/sklearn.joblib", views.model_sklearn, name="model-sklearn"),
    path("surveys/<slug:slug>/versions/<int:version>/frequencies.csv", export_views.frequencies_csv,
         name="frequencies-csv"),
    path("surveys/<slug:slug>/versions/<int:version>/frequencies.xlsx", export_views.frequencies_xlsx,
         name="frequencies-xlsx"),
    path("surveys/<slug:slug>/versions/<int:version>/card/", export_views.model_card, name="model-card"),
    path("surveys/<slug:slug>/versions/<int:version>/card.md", export_views.model_card_markdown,
         name="model-card-md"),
    path("jobs/<int:job_id>/", views.job_status, name="job"),
    path("planner/", planner.planner, name="planner"),
    path("planner/<int:job_id>/", planner.planner_result, name="planner-result"),
    path("planner/<int:job_id>/apply/", planner.planner_apply, name="planner-apply"),
    path("glossary/", glossary_views.glossary, name="glossary"),
]
