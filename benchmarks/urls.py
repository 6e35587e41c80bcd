"""HTML routes of the benchmarks app."""

from django.urls import path

from benchmarks import views_plans, views_results

app_name = "benchmarks"
urlpatterns = [
    path("", views_results.result_list, name="result-list"),
    path("upload/", views_results.result_upload, name="result-upload"),
    path("compare/", views_results.result_compare, name="result-compare"),
    path("results/<int:result_id>/", views_results.result_detail, name="result-detail"),
    path(
        "results/<int:result_id>/download/",
        views_results.result_download,
        name="result-download",
    ),
    path("templates/<str:name>/", views_results.file_template, name="file-template"),
    path("plans/", views_plans.plan_list, name="plan-list"),
    path("plans/new/", views_plans.plan_create, name="plan-create"),
    path("plans/<int:plan_id>/", views_plans.plan_detail, name="plan-detail"),
    path(
        "plans/<int:plan_id>/steps/<int:step_id>/check/",
        views_plans.plan_step_check,
        name="plan-step-check",
    ),
]
