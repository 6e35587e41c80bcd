"""API v1: reviews of a comparison, its CSV/XLSX exports, and the read-only audit trail.

- `GET/POST /api/v1/comparisons/{id}/reviews/` — list (paginated) / submit a decision through
  `services_reviews.review_submit` (403 four-eyes or role, 409 someone decided first);
- `GET /api/v1/comparisons/{id}/export.csv` and `.xlsx` — attachments, streamed;
- `GET /api/v1/audit-events/` and `/{id}/` — admins only; no write method exists.

Vendors get 404 on every comparison route (`access.access_comparison`), never 403.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.http import FileResponse, Http404, StreamingHttpResponse
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status, viewsets
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import api_user
from core.api.permissions import HasRole
from core.audit import audit_record
from core.models import AuditEvent
from core.roles import Role, is_vendor
from procurement import access, exports
from procurement.models import Comparison, Review
from procurement.selectors.reviews import policy
from procurement.selectors.reviews.acknowledge import CODES as ACK_CODES
from procurement.selectors.reviews.plan import PLAN_KEY, PLAN_PARTS, plain_parts
from procurement.selectors.reviews.record import export_data_for
from procurement.selectors.reviews.same_need import same_need_choices
from procurement.services import reviews as services_reviews
from procurement.services.reviews import COMMENT_MAX

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


class ReviewOutputSerializer(serializers.ModelSerializer[Review]):
    # Plain text here: the enum lives on the input only, so the schema's enum component stays
    # unique ("decision" has other choice sets in other apps; a collision fails check --deploy).
    decision = serializers.CharField(read_only=True, help_text="approve, reject or request_changes")
    reviewer = serializers.CharField(source="reviewer.username", read_only=True)
    candidate = serializers.SerializerMethodField(
        help_text='The approved row\'s key, "plan" for the cheapest plan across offers, or null.'
    )
    plan_parts = serializers.SerializerMethodField(
        help_text="An approval of the plan: each vendor's part as approved (key, label, "
        "configuration, capacity, role, replicas, gpus, monthly_cost_usd, commitment_usd, "
        "contract_usd, term_months, term, checklist_level); [] otherwise."
    )

    class Meta:
        model = Review
        fields = [
            "id",
            "comparison",
            "reviewer",
            "reviewer_role",
            "decision",
            "candidate",
            "plan_parts",
            "comment",
            "justification",
            "created_at",
        ]
        read_only_fields = fields

    def get_candidate(self, review: Review) -> str | None:
        if review.approves_plan:
            return PLAN_KEY
        return review.candidate.key if review.candidate is not None else None

    def get_plan_parts(self, review: Review) -> list[dict[str, Any]]:
        if not review.approves_plan:
            return []
        return plain_parts(sorted(review.plan_parts.all(), key=lambda p: p.position))


class ReviewInputSerializer(serializers.Serializer[None]):
    decision = serializers.ChoiceField(choices=Review.Decision.choices)
    comment = serializers.CharField(max_length=COMMENT_MAX)
    candidate = serializers.CharField(
        max_length=60,
        required=False,
        allow_blank=True,
        help_text='Candidate key, or "plan" to approve the cheapest plan across offers.',
    )
    justification = serializers.CharField(max_length=COMMENT_MAX, required=False, allow_blank=True)
    same_need = serializers.ChoiceField(
        choices=same_need_choices(),
        required=False,
        allow_blank=True,
        help_text="For an approval when the same brief has another approved or part-approved "
        "comparison: whether this one supersedes it or adds to it (asked with a 409).",
    )
    acknowledge = serializers.ListField(
        child=serializers.ChoiceField(choices=ACK_CODES),
        required=False,
        max_length=len(ACK_CODES),
        help_text="For an approval whose row (or plan part) carries a named warning: the code "
        "of each one the approver accepts (PERF_ESTIMATED: no measured evidence; "
        "SPOT_FOR_REALTIME: spot for a real-time service; PERF_PROXY: proxy evidence). A "
        "missing one is a 400 naming it in fields.acknowledge.",
    )


class ComparisonReviewsApi(generics.ListAPIView[Review]):
    """Reviews of one comparison, oldest first; POST submits a decision."""

    serializer_class = ReviewOutputSerializer
    filter_backends: list[type] = []

    def comparison(self) -> Comparison:
        return access.access_comparison(api_user(self.request), self.kwargs["pk"])

    def get_queryset(self) -> QuerySet[Review]:
        return (
            self.comparison()
            .reviews.select_related("reviewer", "candidate")
            .prefetch_related(Prefetch("plan_parts", queryset=PLAN_PARTS))
            .order_by("id")
        )

    @extend_schema(request=ReviewInputSerializer, responses={201: ReviewOutputSerializer})
    def post(self, request: Request, pk: int) -> Response:
        comparison = self.comparison()
        data = ReviewInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        review = services_reviews.review_submit(
            acting_user=api_user(request),
            comparison=comparison,
            decision=data.validated_data["decision"],
            comment=data.validated_data["comment"],
            candidate_key=data.validated_data.get("candidate") or None,
            justification=data.validated_data.get("justification", ""),
            same_need=data.validated_data.get("same_need", ""),
            acknowledged=data.validated_data.get("acknowledge", []),
        )
        given = policy.approvals_recorded(comparison)
        body = {
            **ReviewOutputSerializer(review).data,
            "comparison_status": comparison.status,
            "approvals": policy.approvals_label(comparison, given),
        }
        return Response(body, status=status.HTTP_201_CREATED)


class FirstRendererNegotiation(BaseContentNegotiation):
    """Downloads ignore the Accept header (errors still render as JSON)."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser:
        return next(iter(parsers))

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


class _ExportApi(APIView):
    content_negotiation_class = FirstRendererNegotiation
    file_format = ""

    def _prepare(self, request: Request, pk: int) -> tuple[Comparison, exports.ExportData, str]:
        comparison = access.access_comparison(api_user(request), pk)
        audit_record(
            actor=api_user(request),
            action=f"comparison.exported_{self.file_format}",
            obj=comparison,
            summary={"format": self.file_format},
        )
        name = f"comparison-{comparison.pk}-rev{comparison.revision}.{self.file_format}"
        return comparison, export_data_for(comparison, api_user(request)), name


class ComparisonExportCsvApi(_ExportApi):
    file_format = "csv"

    @extend_schema(
        operation_id="v1_comparisons_export_csv", responses={(200, "text/csv"): OpenApiTypes.BINARY}
    )
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        _, data, name = self._prepare(request, pk)
        response = StreamingHttpResponse(exports.iter_csv(data), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class ComparisonExportXlsxApi(_ExportApi):
    file_format = "xlsx"

    @extend_schema(
        operation_id="v1_comparisons_export_xlsx", responses={(200, XLSX_TYPE): OpenApiTypes.BINARY}
    )
    def get(self, request: Request, pk: int) -> FileResponse:
        _, data, name = self._prepare(request, pk)
        return FileResponse(
            io.BytesIO(exports.to_xlsx(data)),
            as_attachment=True,
            filename=name,
            content_type=XLSX_TYPE,
        )


class NotForVendors(BasePermission):
    """Vendors get 404 (never 403) on staff-only endpoints, so they cannot probe them."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if is_vendor(request.user):
            raise Http404
        return True


class AuditEventSerializer(serializers.ModelSerializer[AuditEvent]):
    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "created_at",
            "actor",
            "actor_name",
            "action",
            "object_type",
            "object_id",
            "object_repr",
            "summary",
            "outcome",
            "prev_hash",
            "row_hash",
        ]
        read_only_fields = fields


class AuditEventFilter(filters.FilterSet):
    actor = filters.CharFilter(field_name="actor_name", lookup_expr="iexact")
    since = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    until = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lte")

    class Meta:
        model = AuditEvent
        fields = ["actor", "action", "object_type", "object_id", "outcome", "since", "until"]


@extend_schema(responses={200: AuditEventSerializer}, description="Admins only; read-only.")
class AuditEventViewSet(viewsets.ReadOnlyModelViewSet[AuditEvent]):
    """The append-only audit trail (admins only). There is no POST, PUT, PATCH or DELETE."""

    serializer_class = AuditEventSerializer
    permission_classes = [IsAuthenticated, NotForVendors, HasRole]
    read_roles = frozenset({Role.ADMIN})
    # Admins pass the role check on writes too, so they get an honest 405, not a 403.
    write_roles = frozenset({Role.ADMIN})
    filterset_class = AuditEventFilter
    ordering_fields = ["created_at", "id"]

    def get_queryset(self) -> QuerySet[AuditEvent]:
        if getattr(self, "swagger_fake_view", False):  # the schema: no signed-in user
            return AuditEvent.objects.none()
        return access.audit_events_for(api_user(self.request)).order_by("-id")
