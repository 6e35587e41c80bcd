"""API v1: the checklist of a quote, vendors' answers, reviewers' verdicts.

Vendors reach only their own provider's quotes and answers (404 otherwise, as for a missing
id). Writes go through checklist.services, like the HTML views.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import api_user
from catalog import access as catalog_access
from checklist import access, evidence, selectors, services
from checklist.api.serializers import (
    ChecklistAnswerInputSerializer,
    ChecklistAnswerOutputSerializer,
    ChecklistItemSerializer,
    ChecklistReviewInputSerializer,
    ChecklistReviewOutputSerializer,
)
from checklist.models import ChecklistItem
from core.api.parsers import SafeFormParser, SafeJSONParser, SafeMultiPartParser
from core.api.permissions import HasRole
from core.roles import STAFF_ROLES, Role

READERS = STAFF_ROLES | {Role.VENDOR}

ChecklistSummarySchema = inline_serializer(
    "ChecklistSummary",
    {
        "required_level": serializers.ChoiceField(choices=["basic", "full"]),
        "complete": serializers.BooleanField(),
        "completeness_pct": serializers.IntegerField(),
        "required_count": serializers.IntegerField(),
        "counted_count": serializers.IntegerField(),
        "answered_count": serializers.IntegerField(),
        "evidenced_count": serializers.IntegerField(),
        "needs_info_count": serializers.IntegerField(),
        "missing_items": serializers.ListField(child=serializers.DictField()),
        "red_flags": serializers.ListField(child=serializers.DictField()),
    },
)


class ChecklistItemListApi(generics.ListAPIView[ChecklistItem]):
    """The 20 checklist items, in order."""

    permission_classes = [HasRole]
    read_roles = READERS
    serializer_class = ChecklistItemSerializer
    queryset = ChecklistItem.objects.order_by("order")
    filter_backends: list[Any] = []


class QuoteChecklistApi(APIView):
    """A quote's effective answers (quote-specific, else the provider default) and summary."""

    permission_classes = [HasRole]
    read_roles = READERS

    @extend_schema(
        responses=inline_serializer(
            "QuoteChecklist",
            {
                "quote": serializers.IntegerField(),
                "summary": ChecklistSummarySchema,
                "items": serializers.ListField(child=serializers.DictField()),
            },
        )
    )
    def get(self, request: Request, quote_id: int) -> Response:
        quote = catalog_access.access_quote(api_user(request), quote_id)
        detail = selectors.quote_checklist_detail(quote)
        context = {"request": request}
        items = [
            {
                **ChecklistItemSerializer(row.item).data,
                "effective_scope": row.scope or None,
                "missing_reason": row.missing_reason,
                "answer": ChecklistAnswerOutputSerializer(row.answer, context=context).data
                if row.answer
                else None,
                "earlier_answer_ids": [a.pk for a in row.history],
            }
            for row in detail.rows
        ]
        return Response({"quote": quote.pk, "summary": detail.summary, "items": items})


class QuoteChecklistAnswerCreateApi(APIView):
    """Answer one item for a quote (scope "quote") or for all the provider's quotes
    (scope "provider"). Multipart for a document; JSON works for a link."""

    permission_classes = [HasRole]
    read_roles = READERS  # GET answers 405 for everyone: a vendor never sees a 403 here
    write_roles = frozenset({Role.VENDOR})
    parser_classes = [SafeMultiPartParser, SafeFormParser, SafeJSONParser]  # Deep JSON is a 400

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        evidence.install_size_limit(request)
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(
        request={
            "multipart/form-data": ChecklistAnswerInputSerializer,
            "application/json": ChecklistAnswerInputSerializer,
        },
        responses={201: ChecklistAnswerOutputSerializer},
    )
    def post(self, request: Request, quote_id: int) -> Response:
        quote = catalog_access.access_quote(api_user(request), quote_id)
        data = request.data  # parse first: the size guard records skipped files meanwhile
        oversized = getattr(request._request, "evidence_oversized", {})
        serializer = ChecklistAnswerInputSerializer(data=data, context={"oversized": oversized})
        serializer.is_valid(raise_exception=True)
        answer = services.answer_submit(
            acting_user=api_user(request),
            provider=quote.provider,
            quote=quote,
            entry=serializer.entry(),
        )
        output = ChecklistAnswerOutputSerializer(answer, context={"request": request})
        return Response(output.data, status=status.HTTP_201_CREATED)


class ChecklistAnswerDetailApi(APIView):
    """One answer with its reviews (earlier answers are reachable through `supersedes`)."""

    permission_classes = [HasRole]
    read_roles = READERS

    @extend_schema(responses=ChecklistAnswerOutputSerializer)
    def get(self, request: Request, answer_id: int) -> Response:
        answer = access.access_answer(api_user(request), answer_id)
        return Response(ChecklistAnswerOutputSerializer(answer, context={"request": request}).data)


class ChecklistAnswerReviewCreateApi(APIView):
    """Accept an answer, ask for more information, or raise a red flag (comment required
    unless accepted). Who may review depends on the item's section."""

    @extend_schema(
        request=ChecklistReviewInputSerializer, responses={201: ChecklistReviewOutputSerializer}
    )
    def post(self, request: Request, answer_id: int) -> Response:
        answer = access.access_answer(api_user(request), answer_id)
        serializer = ChecklistReviewInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        review = services.answer_review(
            acting_user=api_user(request),
            answer=answer,
            decision=serializer.validated_data["decision"],
            comment=serializer.validated_data.get("comment", ""),
        )
        return Response(
            ChecklistReviewOutputSerializer(review).data, status=status.HTTP_201_CREATED
        )
