"""POST /api/v1/auth/token/: username + password → {"token": ...} (throttled like login).

Each call issues a new, hashed, expiring token; GET/DELETE /api/v1/auth/tokens/ lists
the caller's tokens by prefix and revokes them (all, or `?prefix=`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import api_user
from accounts.services import devices
from accounts.tokens import token_issue, tokens_of, tokens_revoke
from core.errors import DomainError, NotAllowed


class TokenObtainApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    class InputSerializer(serializers.Serializer[None]):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, style={"input_type": "password"})

    @extend_schema(
        request=InputSerializer,
        responses={
            200: inline_serializer(
                "TokenOut",
                {"token": serializers.CharField(), "expiry": serializers.DateTimeField()},
            )
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username = data.validated_data["username"]
        password = data.validated_data["password"]
        attempt = devices.login_attempt(
            request=request,
            username=username,
            via="api",
            check=lambda: authenticate(request, username=username, password=password),
        )
        if attempt.stepped_up:
            raise NotAllowed(
                "Too many failed attempts for this account from an unrecognised device; wait "
                "15 minutes and try again. If the password was right, a one-time sign-in link "
                "was mailed to the account's address."
            )
        user = attempt.user
        if user is None:
            raise DomainError(
                "Unable to log in with these credentials.",
                fields={"non_field_errors": ["Unable to log in with these credentials."]},
            )
        key = token_issue(user, via="api")
        return Response({"token": key, "expiry": tokens_of(user)[0]["expiry"]})


class TokenListApi(APIView):
    permission_classes = [IsAuthenticated]

    class TokenSerializer(serializers.Serializer[Any]):
        prefix = serializers.CharField()
        created = serializers.DateTimeField()
        expiry = serializers.DateTimeField(allow_null=True)

    @extend_schema(responses={200: TokenSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(self.TokenSerializer(tokens_of(api_user(request)), many=True).data)

    @extend_schema(
        parameters=[OpenApiParameter("prefix", str, description="revoke only this token")],
        responses={
            200: inline_serializer("TokensRevoked", {"revoked": serializers.IntegerField()})
        },
    )
    def delete(self, request: Request) -> Response:
        prefix = str(request.query_params.get("prefix", ""))[:15]
        user = api_user(request)
        count = tokens_revoke(user, actor=user, reason="revoked by its user", prefix=prefix)
        return Response({"revoked": count})
