"""POST /api/v1/auth/token/: username + password → {"token": ...} (throttled like login)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from core.audit import audit_record
from core.errors import DomainError, NotAllowed


class TokenObtainApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    class InputSerializer(serializers.Serializer[None]):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, style={"input_type": "password"})

    @extend_schema(
        request=InputSerializer,
        responses={200: inline_serializer("TokenOut", {"token": serializers.CharField()})},
    )
    def post(self, request: Request) -> Response:
        from django.contrib.auth import authenticate

        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username = data.validated_data["username"]
        ip = request.META.get("REMOTE_ADDR")
        if services.login_blocked(username=username, ip_address=ip):
            _audit_refusal("login.throttled", username)
            raise NotAllowed("Too many failed attempts; wait 15 minutes and try again.")
        user = authenticate(request, username=username, password=data.validated_data["password"])
        if user is None:
            services.login_failure_record(username=username, ip_address=ip)
            _audit_refusal("login.failed", username)
            raise DomainError(
                "Unable to log in with these credentials.",
                fields={"non_field_errors": ["Unable to log in with these credentials."]},
            )
        services.login_failures_clear(username=user.username, ip_address=ip)
        token, created = Token.objects.get_or_create(user=user)
        if created:
            audit_record(actor=user, action="token.created", obj=user, summary={"via": "api"})
        return Response({"token": token.key})


def _audit_refusal(action: str, username: str) -> None:
    """Like the login form: one event per refused attempt (the username, never the password)."""
    audit_record(
        actor=None,
        action=action,
        object_type="user",
        object_id=username[:40],  # the audit object id holds 40 characters
        outcome="refused",
        summary={"via": "api", "username": username},
    )
