"""HTML routes of the benchmarks app."""

from django.urls import path

from benchmarks.views import plans, published, results, sweeps, uploads

app_name = "benchmarks"
urlpatterns = [
    path("", results.result_list, name="result-list"),
    path("upload/", uploads.result_upload, name="result-upload"),
    path("upload/check/", uploads.result_upload_check, name="result-upload-check"),
    path("compare/", sweeps.result_compare, name="result-compare"),
    path("published/", published.published_list, name="published-list"),
    path("sweeps/<int:result_id>/", sweeps.sweep_detail, name="sweep-detail"),
    path("results/<int:result_id>/", results.result_detail, name="result-detail"),
    path("results/<int:result_id>/model/", results.result_model_set, name="result-model-set"),
    path(
        "results/<int:result_id>/download/",
        results.result_download,
        name="result-download",
    ),
    path("templates/<str:name>/", results.file_template, name="file-template"),
    path("plans/", plans.plan_list, name="plan-list"),
    path("plans/new/", plans.plan_create, name="plan-create"),
    path("plans/<int:plan_id>/", plans.plan_detail, name="plan-detail"),
    path(
        "plans/<int:plan_id>/steps/<int:step_id>/check/",
        plans.plan_step_check,
        name="plan-step-check",
    ),
]
