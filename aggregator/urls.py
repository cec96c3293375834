from django.urls import path

from . import api

urlpatterns = [
    path("api/surveys/<slug:slug>/model/", api.ModelView.as_view(), name="api-model"),
    path("api/surveys/<slug:slug>/predict/", api.PredictView.as_view(), name="api-predict"),
    path("api/manage/surveys/<slug:slug>/versions/<int:version>/<str:fmt>/", api.ExportView.as_view(),
         name="api-manage-export"),
]
