"""API v1 routes of the checklist app (included under /api/v1/)."""

from django.urls import path

from checklist.api import views

urlpatterns = [
    path("checklist/items/", views.ChecklistItemListApi.as_view(), name="api-checklist-items"),
    path(
        "quotes/<int:quote_id>/checklist/",
        views.QuoteChecklistApi.as_view(),
        name="api-quote-checklist",
    ),
    path(
        "quotes/<int:quote_id>/checklist/answers/",
        views.QuoteChecklistAnswerCreateApi.as_view(),
        name="api-quote-checklist-answers",
    ),
    path(
        "checklist/answers/<int:answer_id>/",
        views.ChecklistAnswerDetailApi.as_view(),
        name="api-checklist-answer",
    ),
    path(
        "checklist/answers/<int:answer_id>/reviews/",
        views.ChecklistAnswerReviewCreateApi.as_view(),
        name="api-checklist-answer-reviews",
    ),
]
