"""HTML routes of the checklist app (under /checklist/)."""

from django.urls import path

from checklist import views

app_name = "checklist"
urlpatterns = [
    path("", views.checklist_index, name="index"),
    path("provider/", views.provider_answer, name="provider"),
    path("quotes/<int:quote_id>/", views.quote_checklist, name="quote-detail"),
    path("quotes/<int:quote_id>/answer/", views.quote_answer, name="quote-answer"),
    path(
        "quotes/<int:quote_id>/answers/<int:answer_id>/review/",
        views.answer_review,
        name="answer-review",
    ),
    path(
        "quotes/<int:quote_id>/sections/<slug:section>/accept/",
        views.section_accept,
        name="section-accept",
    ),
    path("evidence/<int:answer_id>/", views.evidence_download, name="evidence"),
]
