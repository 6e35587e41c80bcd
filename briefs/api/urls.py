"""API v1 routes of the briefs app: briefs and the memory-fit calculator."""

from django.urls import path

from briefs.api.memory_fit import MemoryFitApi
from briefs.api.traces import BriefTracesApi
from briefs.api.views import BriefDetailApi, BriefListApi, BriefReviseApi

urlpatterns = [
    path("briefs/", BriefListApi.as_view(), name="api-brief-list"),
    path("briefs/<int:pk>/", BriefDetailApi.as_view(), name="api-brief-detail"),
    path("briefs/<int:pk>/revise/", BriefReviseApi.as_view(), name="api-brief-revise"),
    path("briefs/<int:pk>/traces/", BriefTracesApi.as_view(), name="api-brief-traces"),
    path("memory-fit/", MemoryFitApi.as_view(), name="api-memory-fit"),
]
