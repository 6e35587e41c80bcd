"""API v1 routes: briefs and the memory-fit calculator."""

from django.urls import path

from procurement.api.briefs import BriefDetailApi, BriefListApi, BriefReviseApi
from procurement.api.memory_fit import MemoryFitApi

urlpatterns = [
    path("briefs/", BriefListApi.as_view(), name="api-brief-list"),
    path("briefs/<int:pk>/", BriefDetailApi.as_view(), name="api-brief-detail"),
    path("briefs/<int:pk>/revise/", BriefReviseApi.as_view(), name="api-brief-revise"),
    path("memory-fit/", MemoryFitApi.as_view(), name="api-memory-fit"),
]
