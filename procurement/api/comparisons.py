"""/api/v1/comparisons/: create (202, computed by a worker), list, read, retry, recompute.

Staff read; procurement leads and admins write; vendors get 404 on every route, the list
included, since comparisons reveal other providers' prices. No PUT, PATCH or DELETE: a
result is never edited; a recompute is a new revision.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import exceptions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.http import api_user
from briefs import access as briefs_access
from core.api.parsers import SafeJSONParser
from core.api.permissions import StaffOnly
from core.roles import STAFF_ROLES
from procurement import access
from procurement.api import comparison_body
from procurement.api.comparison_input import ComparisonInputSerializer, ComparisonQueuedSerializer
from procurement.models import CandidateResult, Comparison
from procurement.selectors import comparisons as selectors_comparisons
from procurement.selectors.comparisons import recommendation_notes_of
from procurement.selectors.reviews.plan import APPROVED_PLAN_HELP, approved_plan_body
from procurement.services import comparisons as services_comparisons
from procurement.services.comparisons import FILTER_KEYS

CANDIDATES_PAGE = 500  # candidates per detail page by default (eligible first)
CANDIDATES_MAX_PAGE = 2000


class ComparisonListSerializer(serializers.ModelSerializer[Comparison]):
    created_by = serializers.CharField(source="created_by.username")
    candidate_count = serializers.IntegerField()
    recommended_label = serializers.CharField(allow_null=True)

    class Meta:
        model = Comparison
        fields = [
            "id",
            "title",
            "brief",
            "revision",
            "status",
            "progress",
            "error",
            "candidate_count",
            "recommended_key",
            "recommended_label",
            "required_approvals",
            "commitment_usd",
            "seed",
            "engine_version",
            "created_by",
            "created_at",
            "finished_at",
            "review_due_at",
        ]


class CandidateSerializer(serializers.ModelSerializer[CandidateResult]):
    quote_version = serializers.SerializerMethodField()
    recommended = serializers.SerializerMethodField()

    class Meta:
        model = CandidateResult
        fields = [
            "key",
            "kind",
            "quote",
            "quote_version",
            "api_route",
            "label",
            "provider_name",
            "accelerator_name",
            "capacity_model",
            "gpus",
            "hourly_price_usd",
            "eligible",
            "reasons",
            "cost_lines",
            "total_usd",
            "accepted_outputs",
            "unit_cost_usd",
            "unit_label",
            "p10",
            "p50",
            "p90",
            "prob_cheapest",
            "rank",
            "rank_hourly",
            "recommended",
            "fit",
            "performance",
            "perf_source",
            "checklist",
            "warnings",
            "detail",
        ]

    def get_quote_version(self, row: CandidateResult) -> int | None:
        return (row.detail or {}).get("quote_version")

    def get_recommended(self, row: CandidateResult) -> bool:
        return row.key == self.context.get("recommended_key")


# ?view=summary: each candidate's ranking figures, without its cost lines, fit, performance,
# checklist, warnings or engine detail.
# fmt: off
SUMMARY_CANDIDATE_FIELDS = [
    "key", "kind", "quote", "api_route", "label", "provider_name", "accelerator_name",
    "capacity_model", "gpus", "hourly_price_usd", "eligible", "total_usd", "unit_cost_usd",
    "unit_label", "p10", "p50", "p90", "prob_cheapest", "rank", "rank_hourly", "recommended",
]
# fmt: on


class CandidateSummarySerializer(CandidateSerializer):
    class Meta(CandidateSerializer.Meta):
        fields = SUMMARY_CANDIDATE_FIELDS


class CandidatePageSerializer(serializers.Serializer[None]):
    offset = serializers.IntegerField()
    limit = serializers.IntegerField()
    count = serializers.IntegerField(help_text="Every candidate of the comparison.")
    next_offset = serializers.IntegerField(
        allow_null=True, help_text="candidates_offset of the next page; null on the last."
    )


def _stored(key: str, **kwargs: Any) -> serializers.JSONField:
    """A part of the stored result as the compute wrote it (null when the result has none)."""
    return serializers.JSONField(source=f"result.{key}", read_only=True, default=None, **kwargs)


class ComparisonDetailSerializer(ComparisonListSerializer):
    # Plain text here: the enum lives on the list serializer only, so the schema's enum
    # component stays unique ("status" has other choice sets in other apps; a collision
    # fails check --deploy).
    status = serializers.CharField(
        read_only=True, help_text=", ".join(Comparison.Status.values) + " (see ComparisonList)"
    )
    view = serializers.SerializerMethodField(help_text="full | summary")
    candidates = serializers.SerializerMethodField(
        help_text="One page of candidates, eligible first (by rank), then the ineligible ones."
    )
    candidates_page = serializers.SerializerMethodField()
    recommendation = serializers.SerializerMethodField()
    tornado = _stored("tornado")
    breakeven = _stored("breakeven")
    hybrid = _stored(
        "hybrid",
        help_text="Older results only: their hybrid split. The plan across offers now answers "
        "that question (`plan`); null for newer comparisons.",
    )
    plan = _stored(
        "plan",
        help_text="The cheapest plan across offers (null before the run or for older results).",
    )
    trace = _stored(
        "trace",
        help_text="The brief's traffic trace the rows were sized from (file, window, how it was "
        "scaled to the brief's volume, the cheapest rows' replicas a minute); each sized row "
        "carries its own in `detail.trace_sizing`. Null without a trace.",
    )
    approved_plan = serializers.SerializerMethodField(help_text=APPROVED_PLAN_HELP)
    unit_label = serializers.SerializerMethodField()
    billed_token_type = serializers.CharField(
        source="result.billed_token_type",
        read_only=True,
        default=None,
        allow_null=True,
        help_text="output | input | total: the tokens every unit cost counts (the brief's "
        "choice; null outside token classes or before it was recorded).",
    )
    unit_basis = serializers.SerializerMethodField(
        help_text="How the unit cost is normalised to the billed tokens, in words."
    )
    notes = serializers.ListField(
        child=serializers.CharField(), source="result.notes", read_only=True, default=list
    )
    recommendation_notes = serializers.SerializerMethodField(
        help_text="What the recommendation says in words: a statistical tie, estimated or proxy "
        "against a measured runner-up, a model substitution, the closest latency to a target."
    )
    snapshot_as_of = serializers.SerializerMethodField()
    assumptions_applied = serializers.SerializerMethodField(
        help_text="Every default the engine used: name, label, value, source "
        "(brief, override, product default, quote, route, engine default), candidate_id, note."
    )

    class Meta(ComparisonListSerializer.Meta):
        fields = [
            *ComparisonListSerializer.Meta.fields,
            "samples",
            "assumptions",
            "supersedes",
            "unit_label",
            "billed_token_type",
            "unit_basis",
            "snapshot_as_of",
            "recommendation",
            "view",
            "candidates_page",
            "candidates",
            "tornado",
            "breakeven",
            "hybrid",
            "plan",
            "trace",
            "approved_plan",
            "notes",
            "recommendation_notes",
            "assumptions_applied",
        ]

    def _rows(self) -> list[CandidateResult]:
        rows: list[CandidateResult] = self.context["rows"]
        return rows

    def get_view(self, obj: Comparison) -> str:
        return "summary" if self.context.get("summary") else "full"

    @extend_schema_field(CandidateSerializer(many=True))
    def get_candidates(self, obj: Comparison) -> list[dict[str, Any]]:
        context = {"recommended_key": obj.recommended_key}
        # many=True builds a ListSerializer (a list); the stubs type `.data` as one dict.
        cls = CandidateSummarySerializer if self.context.get("summary") else CandidateSerializer
        return cls(self._rows(), many=True, context=context).data  # type: ignore[return-value]

    @extend_schema_field(CandidatePageSerializer)
    def get_candidates_page(self, obj: Comparison) -> dict[str, Any]:
        offset, limit = self.context.get("offset", 0), self.context.get("limit", len(self._rows()))
        count = getattr(obj, "candidate_count", None)
        count = len(self._rows()) if count is None else count
        nxt = offset + limit if offset + limit < count else None
        return {"offset": offset, "limit": limit, "count": count, "next_offset": nxt}

    def get_recommendation(self, obj: Comparison) -> dict[str, Any] | None:
        if "recommended_row" in self.context:
            row = self.context["recommended_row"]
        else:
            row = next((r for r in self._rows() if r.key == obj.recommended_key), None)
        if row is None:
            return None
        return {
            "key": row.key,
            "label": row.label,
            "unit_cost_usd": str(row.unit_cost_usd),
            "unit_label": row.unit_label,
            "p10": row.p10,
            "p90": row.p90,
            "prob_cheapest": row.prob_cheapest,
        }

    def get_approved_plan(self, obj: Comparison) -> dict[str, Any] | None:
        return approved_plan_body(obj)

    def get_unit_label(self, obj: Comparison) -> str:
        return str((obj.result or {}).get("unit_label", ""))

    def get_unit_basis(self, obj: Comparison) -> str:
        return str((obj.result or {}).get("unit_basis", ""))

    def get_recommendation_notes(self, obj: Comparison) -> list[str]:
        return recommendation_notes_of(obj)

    def get_assumptions_applied(self, obj: Comparison) -> list[dict[str, Any]]:
        return list((obj.result or {}).get("assumptions_applied", []) or [])

    def get_snapshot_as_of(self, obj: Comparison) -> str | None:
        return obj.shown_snapshot_facts().get("as_of")  # never the whole snapshot


def _queued(request: Request, queued: services_comparisons.Queued) -> Response:
    comparison, unavailable = queued.comparison, queued.queue_unavailable
    body = {
        "id": comparison.pk,
        "status": comparison.status,
        "revision": comparison.revision,
        "url": request.build_absolute_uri(f"/api/v1/comparisons/{comparison.pk}/"),
        "queue": "unavailable" if unavailable else "sent",
        "detail": services_comparisons.QUEUE_UNAVAILABLE_MESSAGE
        if unavailable
        else "Queued; poll the url until status is ready or failed.",
    }
    return Response(body, status=status.HTTP_202_ACCEPTED)


class ComparisonListApi(GenericAPIView[Comparison]):
    permission_classes = [StaffOnly]
    parser_classes = [SafeJSONParser]
    queryset = Comparison.objects.none()  # schema only; reads go through the selectors
    read_roles = STAFF_ROLES
    write_roles = access.COMPARISON_CREATORS
    serializer_class = ComparisonListSerializer

    @extend_schema(
        operation_id="v1_comparisons_list",
        responses={200: ComparisonListSerializer(many=True)},
        parameters=[
            OpenApiParameter("status", str, description="Filter by status."),
            OpenApiParameter("brief", int, description="Filter by brief id."),
        ],
    )
    def get(self, request: Request) -> Response:
        filters = {k: request.query_params.get(k) for k in ("status", "brief")}
        if filters["brief"] and not str(filters["brief"]).isdigit():
            raise exceptions.ValidationError({"brief": ["A brief id is a whole number."]})
        qs = selectors_comparisons.comparisons_list(api_user(request), filters)
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(ComparisonListSerializer(page, many=True).data)

    @extend_schema(
        operation_id="v1_comparisons_create",
        request=ComparisonInputSerializer,
        responses={202: ComparisonQueuedSerializer},
    )
    def post(self, request: Request) -> Response:
        data = ComparisonInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        brief = briefs_access.briefs_for(api_user(request)).filter(pk=values["brief"]).first()
        if brief is None:
            raise exceptions.ValidationError({"brief": [f"Unknown brief id {values['brief']}."]})
        queued = services_comparisons.comparison_create(
            acting_user=api_user(request),
            brief=brief,
            quote_ids=values.get("quotes"),
            api_route_ids=values.get("api_routes"),
            assumptions=values.get("assumptions"),
            seed=values.get("seed"),
            title=values.get("title"),
            candidate_filters={k: values[k] for k in FILTER_KEYS if values.get(k)},
        )
        return _queued(request, queued)


class ComparisonDetailApi(GenericAPIView[Comparison]):
    permission_classes = [StaffOnly]
    parser_classes = [SafeJSONParser]
    queryset = Comparison.objects.none()  # schema only; reads go through the selectors
    read_roles = STAFF_ROLES
    serializer_class = ComparisonDetailSerializer

    @extend_schema(
        operation_id="v1_comparisons_retrieve",
        responses={200: ComparisonDetailSerializer, 304: None},
        parameters=[
            OpenApiParameter(
                "view",
                str,
                enum=["full", "summary"],
                description="summary: each candidate's ranking figures only, without its cost "
                "lines, fit, performance, checklist, warnings or engine detail.",
            ),
            OpenApiParameter(
                "candidates_offset", int, description="First candidate of the page (default 0)."
            ),
            OpenApiParameter(
                "candidates_limit",
                int,
                description=f"Candidates per page (default {CANDIDATES_PAGE}, "
                f"at most {CANDIDATES_MAX_PAGE}); eligible first.",
            ),
            OpenApiParameter(
                "If-None-Match",
                str,
                location=OpenApiParameter.HEADER,
                description="The ETag of a body you hold: 304 Not Modified if it is current.",
            ),
        ],
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        view = request.query_params.get("view", "full")
        if view not in {"full", "summary"}:
            raise exceptions.ValidationError({"view": ["full or summary."]})
        offset = comparison_body.bounded_int(request, "candidates_offset", 0, 10**9)
        limit = comparison_body.bounded_int(
            request, "candidates_limit", CANDIDATES_PAGE, CANDIDATES_MAX_PAGE, low=1
        )
        variant = f"{view}:{offset}:{limit}"
        state = selectors_comparisons.comparison_state(
            api_user(request), pk, comparison_body.STATE_ONLY
        )
        if (stored := comparison_body.cached(state, variant)) is not None:
            return comparison_body.send(request, stored)  # one small query: ETag hits are cheap
        comparison = selectors_comparisons.comparison_for_api(api_user(request), pk)

        def build() -> object:
            rows = selectors_comparisons.comparison_rows(comparison, offset, limit)
            context = {
                "rows": rows,
                "recommended_row": selectors_comparisons.recommended_row(comparison),
                "summary": view == "summary",
                "offset": offset,
                "limit": limit,
            }
            return ComparisonDetailSerializer(comparison, context=context).data

        body = comparison_body.get_or_render(comparison, variant, build)
        return comparison_body.send(request, body)


class ComparisonRetryApi(GenericAPIView[Comparison]):
    permission_classes = [StaffOnly]
    parser_classes = [SafeJSONParser]
    queryset = Comparison.objects.none()  # schema only; reads go through the selectors
    write_roles = access.COMPARISON_CREATORS
    serializer_class = ComparisonQueuedSerializer
    service = "comparison_retry"

    @extend_schema(request=None, responses={202: ComparisonQueuedSerializer})
    def post(self, request: Request, pk: int) -> Response:
        comparison = access.access_comparison(api_user(request), pk)
        queue = getattr(services_comparisons, self.service)  # read per call: patchable
        return _queued(request, queue(acting_user=api_user(request), comparison=comparison))


class ComparisonRecomputeApi(ComparisonRetryApi):
    service = "comparison_recompute"
