"""HTML routes: briefs and the memory-fit calculator."""

from django.urls import path

from procurement.views import briefs

urlpatterns = [
    path("briefs/", briefs.brief_list, name="brief-list"),
    path("briefs/new/", briefs.brief_create, name="brief-create"),
    path("briefs/memory-fit/", briefs.memory_fit, name="memory-fit"),
    path("briefs/<int:pk>/", briefs.brief_detail, name="brief-detail"),
    path("briefs/<int:pk>/revise/", briefs.brief_revise, name="brief-revise"),
]
