"""API v1 routes of the accounts app: token authentication."""

from django.urls import path

from accounts.api.views import TokenListApi, TokenObtainApi

urlpatterns = [
    path("auth/token/", TokenObtainApi.as_view(), name="api-token"),
    path("auth/tokens/", TokenListApi.as_view(), name="api-tokens"),
]
