"""HTML routes of the briefs app: briefs and the memory-fit calculator."""

from django.urls import path

from briefs import views

app_name = "briefs"
urlpatterns = [
    path("", views.brief_list, name="brief-list"),
    path("new/", views.brief_create, name="brief-create"),
    path("memory-fit/", views.memory_fit, name="memory-fit"),
    path("volume-check/", views.volume_check, name="volume-check"),
    path("<int:pk>/", views.brief_detail, name="brief-detail"),
    path("<int:pk>/revise/", views.brief_revise, name="brief-revise"),
    path("<int:pk>/traces/", views.trace_upload, name="trace-upload"),
]
