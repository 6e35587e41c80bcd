"""THE authorisation matrix: every URL name × every role → the status it must answer.

Columns (ROLES): anonymous, vendor_a, vendor_b, lead, engineer, finance, security,
admin_member.
Every object in the URL belongs to provider A (or to the staff world), so the `vendor_b`
column is "another vendor probing A's ids": it must be 404 (never 403, never 2xx).

Outcomes: an HTTP status, or LOGIN = 302 to /accounts/login/. GET is checked for every
route; POST for every route that accepts writes, with `body` (a minimal body: invalid where
a 400 proves the role gate was passed, valid where a 2xx/3xx is cheap; each request runs in
a savepoint that is rolled back). `kwargs` names the world object behind each URL kwarg.

Adding a route without a row here fails `test_every_route_has_an_entry`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from procurement.selectors.reviews.acknowledge import CODES as TICKS

LOGIN = "login"  # 302 to the login page (anonymous on HTML pages)
Outcome = int | str
Row = tuple[Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome]


@dataclass(frozen=True)
class Route:
    get: Row
    post: Row | None = None
    kwargs: dict[str, str] = field(default_factory=dict)
    body: Callable[[Any], dict[str, Any]] | None = None  # world → POST body (default: empty)
    api: bool = False  # a DRF route: POST bodies are JSON unless `multipart`
    multipart: bool = False


def api(get: Row, post: Row | None = None, **kw: Any) -> Route:
    return Route(get=get, post=post, api=True, **kw)


def html(get: Row, post: Row | None = None, **kw: Any) -> Route:
    return Route(get=get, post=post, **kw)


L = LOGIN
PK_QUOTE = {"pk": "quote"}
PK_RFQ = {"pk": "rfq"}
PK_BRIEF = {"pk": "brief"}
PK_CMP = {"pk": "comparison"}


def approve_body(world: Any) -> dict[str, Any]:
    # the world's rows are estimates: the approver ticks what that means (U8)
    return {
        "decision": "approve",
        "comment": "Checked the cost lines and the evidence.",
        "acknowledge": list(TICKS),
    }


def comparison_body(world: Any) -> dict[str, Any]:
    return {"brief": world.ids["brief"], "quotes": [world.ids["quote"]]}


def blank_title_body(world: Any) -> dict[str, Any]:
    """Binds the form (an empty POST renders a blank form) and fails it: a 400."""
    return {"title": ""}


def trace_without_file_body(world: Any) -> dict[str, Any]:
    """Binds the trace form without a file: refused with a 400 past the role gate."""
    return {"window": "day"}


def accept_answer_body(world: Any) -> dict[str, Any]:
    """The checklist review form is prefixed by the item's code."""
    return {f"{world.objects['answer'].item.code}-decision": "accepted"}


def answer_api_body(world: Any) -> dict[str, Any]:
    """A valid answer (vendor A's 201 proves the whole write path, rolled back)."""
    return {"item": "region-placement", "answer": "eu-west", "status": "yes"}


def verdict_body(world: Any) -> dict[str, Any]:
    return {"decision": "accepted"}


def step_passed_body(world: Any) -> dict[str, Any]:
    """The step check form is prefixed by the step's id."""
    prefix = f"s{world.ids['step']}"
    return {
        f"{prefix}-status": "passed",
        f"{prefix}-notes": "Ran it.",
        f"{prefix}-evidence_url": "https://example.com/run.log",
    }


def unknown_role_body(world: Any) -> dict[str, Any]:
    """Binds the user form and fails it (no such role): a 400 past the administrator gate."""
    return {"role": "overlord", "is_active": "on"}


# fmt: off
MATRIX: dict[str, Route] = {
    #                                   anon  vA   vB  lead  eng  fin  sec  adm
    # --- foundation -------------------------------------------------------------------------
    "dashboard":              html((L,  200, 200, 200, 200, 200, 200, 200)),
    "healthz":                html((200, 200, 200, 200, 200, 200, 200, 200)),
    "worker-probe":           html((L,  405, 405, 405, 405, 405, 405, 405),
                                   post=(L, 404, 404, 404, 404, 404, 404, 302)),
    "accounts:login":         html((200, 302, 302, 302, 302, 302, 302, 302),
                                   post=(200, 302, 302, 302, 302, 302, 302, 302)),
    "accounts:logout":        html((L,  405, 405, 405, 405, 405, 405, 405),  # then to login:
                                   post=(L,   L,   L,   L,   L,   L,   L,   L)),
    "accounts:password-change":      html((L, 200, 200, 200, 200, 200, 200, 200),
                                          post=(L, 200, 200, 200, 200, 200, 200, 200)),
    "accounts:password-change-done": html((L, 200, 200, 200, 200, 200, 200, 200)),
    "accounts:password-reset":       html((200, 200, 200, 200, 200, 200, 200, 200),
                                          post=(200, 200, 200, 200, 200, 200, 200, 200)),
    "accounts:password-reset-done":     html((200, 200, 200, 200, 200, 200, 200, 200)),
    "accounts:password-reset-complete": html((200, 200, 200, 200, 200, 200, 200, 200)),
    "accounts:user-list":   html((L, 404, 404, 404, 404, 404, 404, 200)),
    "accounts:user-manage": html((L, 404, 404, 404, 404, 404, 404, 200),
                                 post=(L, 404, 404, 404, 404, 404, 404, 400),
                                 kwargs={"pk": "member"}, body=unknown_role_body),
    # --- briefs ------------------------------------------------------------------------------
    "briefs:brief-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    # The brief form's live volume check (htmx POST of the form as typed): brief writers only.
    "briefs:volume-check": html((L, 405, 405, 405, 405, 405, 405, 405),
                                post=(L, 404, 404, 200, 403, 403, 403, 200)),
    "briefs:brief-create": html((L, 404, 404, 200, 403, 403, 403, 200),
                                     post=(L, 404, 404, 400, 403, 403, 403, 400),
                                     body=blank_title_body),
    "briefs:memory-fit":   html((L, 200, 200, 200, 200, 200, 200, 200),
                                     post=(L, 400, 400, 400, 400, 400, 400, 400)),
    "briefs:brief-detail": html((L, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_BRIEF),
    "briefs:brief-revise": html((L, 404, 404, 200, 403, 403, 403, 200),
                                     post=(L, 404, 404, 400, 403, 403, 403, 400), kwargs=PK_BRIEF,
                                     body=blank_title_body),
    # A GET goes back to the brief's trace section; a POST with no file is refused (400).
    "briefs:trace-upload": html((L, 404, 404, 302, 302, 403, 403, 302),
                                post=(L, 404, 404, 400, 400, 403, 403, 400), kwargs=PK_BRIEF,
                                body=trace_without_file_body),
    # --- comparisons -------------------------------------------------------------------------
    "procurement:comparison-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "procurement:comparison-new":    html((L, 404, 404, 200, 404, 404, 404, 200),
                                          post=(L, 404, 404, 302, 404, 404, 404, 302),
                                          body=comparison_body),
    "procurement:comparison-detail": html((L, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_CMP),
    "procurement:comparison-retry":  html((L, 405, 405, 405, 405, 405, 405, 405),
                                          post=(L, 404, 404, 302, 404, 404, 404, 302),
                                          kwargs=PK_CMP),
    "procurement:comparison-recompute": html((L, 405, 405, 405, 405, 405, 405, 405),
                                             post=(L, 404, 404, 302, 404, 404, 404, 302),
                                             kwargs=PK_CMP),
    # The world has no price change: every staff POST gets the same 404 as a vendor's.
    "procurement:price-change-acknowledge": html((L, 405, 405, 405, 405, 405, 405, 405),
                                                 post=(L, 404, 404, 404, 404, 404, 404, 404),
                                                 kwargs={"pk": "comparison",
                                                         "flag_pk": "comparison"}),
    # --- reviews and audit -------------------------------------------------------------------
    "procurement:comparison-review": html((L, 404, 404, 200, 200, 200, 200, 200),
                                          post=(L, 404, 404, 403, 302, 409, 302, 403),
                                          kwargs=PK_CMP, body=approve_body),
    "procurement:comparison-side-by-side": html((L, 404, 404, 200, 200, 200, 200, 200),
                                                kwargs=PK_CMP),
    "procurement:comparison-record": html((L, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_CMP),
    "procurement:audit-list":        html((L, 404, 404, 404, 404, 200, 200, 200)),
    # --- catalog (staff) ---------------------------------------------------------------------
    "catalog:accelerator-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:compare":            html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:accelerator-detail": html((L, 404, 404, 200, 200, 200, 200, 200),
                                       kwargs={"slug": "accelerator"}),
    "catalog:model-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:model-create": html((L, 404, 404, 200, 200, 404, 404, 200),
                                 post=(L, 404, 404, 400, 400, 404, 404, 400)),
    "catalog:quote-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:quote-create": html((L, 404, 404, 200, 404, 404, 404, 200),
                                 post=(L, 404, 404, 400, 404, 404, 404, 400)),
    "catalog:quote-detail": html((L, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_QUOTE),
    "catalog:quote-revise": html((L, 404, 404, 200, 404, 404, 404, 200),
                                 post=(L, 404, 404, 400, 404, 404, 404, 400), kwargs=PK_QUOTE),
    "catalog:quote-withdraw": html((L, 404, 404, 200, 404, 404, 404, 200),
                                   post=(L, 404, 404, 400, 404, 404, 404, 400), kwargs=PK_QUOTE),
    "catalog:rfq-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:rfq-create": html((L, 404, 404, 200, 404, 404, 404, 200),
                               post=(L, 404, 404, 400, 404, 404, 404, 400)),
    "catalog:rfq-detail": html((L, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_RFQ),
    "catalog:rfq-reopen": html((L, 404, 404, 200, 404, 404, 404, 200),
                               post=(L, 404, 404, 400, 404, 404, 404, 400), kwargs=PK_RFQ),
    "catalog:rfq-close":  html((L, 405, 405, 405, 405, 405, 405, 405),
                               post=(L, 404, 404, 302, 404, 404, 404, 302), kwargs=PK_RFQ),
    "catalog:provider-list":    html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:provider-create":  html((L, 404, 404, 200, 404, 404, 404, 200),
                                     post=(L, 404, 404, 400, 404, 404, 404, 400)),
    "catalog:api-route-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:api-route-create": html((L, 404, 404, 200, 404, 404, 404, 200),
                                     post=(L, 404, 404, 400, 404, 404, 404, 400)),
    "catalog:fx-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "catalog:fx-create": html((L, 404, 404, 404, 404, 200, 404, 200),
                              post=(L, 404, 404, 404, 404, 400, 404, 400)),
    "catalog:import":    html((L, 404, 404, 200, 404, 404, 404, 200),
                              post=(L, 404, 404, 400, 404, 404, 404, 400)),
    "catalog:import-template": html((L, 404, 404, 200, 404, 404, 404, 200)),
    "catalog:import-job": html((L, 404, 404, 200, 404, 404, 404, 200),
                               kwargs={"pk": "import_job"}),
    # --- vendor portal -----------------------------------------------------------------------
    "vendor:home":         html((L, 200, 200, 404, 404, 404, 404, 404)),
    "vendor:rfq-detail":   html((L, 200, 404, 404, 404, 404, 404, 404), kwargs=PK_RFQ),
    "vendor:quote-create": html((L, 200, 404, 404, 404, 404, 404, 404),
                                post=(L, 400, 404, 404, 404, 404, 404, 404),
                                kwargs={"rfq_pk": "rfq"}),
    "vendor:quote-detail": html((L, 200, 404, 404, 404, 404, 404, 404), kwargs=PK_QUOTE),
    "vendor:quote-revise": html((L, 200, 404, 404, 404, 404, 404, 404),
                                post=(L, 400, 404, 404, 404, 404, 404, 404), kwargs=PK_QUOTE),
    "vendor:quote-withdraw": html((L, 200, 404, 404, 404, 404, 404, 404),
                                  post=(L, 400, 404, 404, 404, 404, 404, 404), kwargs=PK_QUOTE),
    # --- checklist ---------------------------------------------------------------------------
    "checklist:index":        html((L, 200, 200, 200, 200, 200, 200, 200)),
    "checklist:provider":     html((L, 200, 200, 404, 404, 404, 404, 404),
                                   post=(L, 302, 302, 404, 404, 404, 404, 404)),
    "checklist:quote-detail": html((L, 302, 404, 200, 200, 200, 200, 200),
                                   kwargs={"quote_id": "quote"}),
    "checklist:quote-answer": html((L, 200, 404, 302, 302, 302, 302, 302),
                                   post=(L, 302, 404, 302, 302, 302, 302, 302),
                                   kwargs={"quote_id": "quote"}),
    "checklist:section-accept": html((L, 405, 405, 405, 405, 405, 405, 405),
                                     post=(L, 404, 404, 302, 302, 302, 302, 302),
                                     kwargs={"quote_id": "quote", "section": "section"}),
    "checklist:answer-review": html((L, 405, 405, 405, 405, 405, 405, 405),
                                    post=(L, 404, 404, 403, 302, 403, 403, 302),
                                    kwargs={"quote_id": "quote", "answer_id": "answer"},
                                    body=accept_answer_body),
    "checklist:evidence":     html((L, 200, 404, 200, 200, 200, 200, 200),
                                   kwargs={"answer_id": "answer"}),
    # --- benchmarks --------------------------------------------------------------------------
    "benchmarks:result-list":     html((L, 404, 404, 200, 200, 200, 200, 200)),
    # Published results: staff read; platform engineers (and the lead, admins) import a round.
    "benchmarks:published-list":  html((L, 404, 404, 200, 200, 200, 200, 200),
                                       post=(L, 404, 404, 400, 400, 403, 403, 400)),
    "benchmarks:result-upload":   html((L, 404, 404, 200, 200, 404, 404, 200),
                                       post=(L, 404, 404, 400, 400, 404, 404, 400)),
    # What a chosen file states, before its upload (V11): uploaders only; POST only.
    "benchmarks:result-upload-check": html((L, 405, 405, 405, 405, 405, 405, 405),
                                           post=(L, 404, 404, 400, 400, 404, 404, 400)),
    "benchmarks:result-compare":  html((L, 404, 404, 200, 200, 200, 200, 200)),
    "benchmarks:result-detail":   html((L, 404, 404, 200, 200, 200, 200, 200),
                                       kwargs={"result_id": "result"}),
    # the world's result is alone with one load level: staff are sent to its result page
    "benchmarks:sweep-detail":    html((L, 404, 404, 302, 302, 302, 302, 302),
                                       kwargs={"result_id": "result"}),
    "benchmarks:result-download": html((L, 404, 404, 200, 200, 200, 200, 200),
                                       kwargs={"result_id": "result"}),
    "benchmarks:result-model-set": html((L, 405, 405, 405, 405, 405, 405, 405),
                                        post=(L, 404, 404, 302, 302, 404, 404, 302),
                                        kwargs={"result_id": "result"}),
    "benchmarks:file-template":   html((L, 404, 404, 200, 200, 200, 200, 200),
                                       kwargs={"name": "file_template"}),
    "benchmarks:plan-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "benchmarks:plan-create": html((L, 404, 404, 200, 200, 404, 404, 200),
                                   post=(L, 404, 404, 400, 400, 404, 404, 400)),
    "benchmarks:plan-detail": html((L, 404, 404, 200, 200, 200, 200, 200),
                                   kwargs={"plan_id": "plan"}),
    "benchmarks:plan-step-check": html((L, 405, 405, 405, 405, 405, 405, 405),
                                       post=(L, 404, 404, 302, 302, 404, 404, 302),
                                       kwargs={"plan_id": "plan", "step_id": "step"},
                                       body=step_passed_body),
    # --- API: root, auth, catalog ------------------------------------------------------------
    "api-root":  api((403, 200, 200, 200, 200, 200, 200, 200)),
    "api-token": api((405, 405, 405, 405, 405, 405, 405, 405),
                     post=(400, 400, 400, 400, 400, 400, 400, 400)),
    "api-tokens": api((403, 200, 200, 200, 200, 200, 200, 200),
                      post=(403, 405, 405, 405, 405, 405, 405, 405)),
    "accelerator-list":     api((403, 200, 200, 200, 200, 200, 200, 200)),
    "accelerator-detail":   api((403, 200, 200, 200, 200, 200, 200, 200),
                                kwargs={"slug": "accelerator"}),
    "model-profile-list":   api((403, 200, 200, 200, 200, 200, 200, 200)),
    "model-profile-detail": api((403, 200, 200, 200, 200, 200, 200, 200),
                                kwargs={"slug": "model"}),
    "provider-list":   api((403, 200, 200, 200, 200, 200, 200, 200),
                           post=(403, 404, 404, 400, 403, 403, 403, 400)),
    "provider-detail": api((403, 200, 404, 200, 200, 200, 200, 200), kwargs={"pk": "provider"}),
    "quote-list":      api((403, 200, 200, 200, 200, 200, 200, 200),
                           post=(403, 400, 400, 400, 403, 403, 403, 400)),
    "quote-detail":    api((403, 200, 404, 200, 200, 200, 200, 200), kwargs=PK_QUOTE),
    # H6: a vendor's submitted price is the vendor's; staff ask for a revision instead.
    "quote-revise":    api((403, 405, 405, 405, 405, 405, 405, 405),
                           post=(403, 201, 404, 403, 403, 403, 403, 403), kwargs=PK_QUOTE),
    "quote-withdraw":  api((403, 405, 405, 405, 405, 405, 405, 405),
                           post=(403, 201, 404, 201, 403, 403, 403, 201), kwargs=PK_QUOTE),
    "api-route-list":   api((403, 200, 200, 200, 200, 200, 200, 200),
                            post=(403, 404, 404, 400, 403, 403, 403, 400)),
    "api-route-detail": api((403, 200, 404, 200, 200, 200, 200, 200), kwargs={"pk": "route"}),
    "fx-rate-list":   api((403, 404, 404, 200, 200, 200, 200, 200),
                          post=(403, 404, 404, 403, 403, 400, 403, 400)),
    "fx-rate-detail": api((403, 404, 404, 200, 200, 200, 200, 200), kwargs={"pk": "fx"}),
    "rfq-list":   api((403, 200, 200, 200, 200, 200, 200, 200),
                      post=(403, 404, 404, 400, 403, 403, 403, 400)),
    "rfq-detail": api((403, 200, 404, 200, 200, 200, 200, 200), kwargs=PK_RFQ),
    "rfq-reopen": api((403, 405, 405, 405, 405, 405, 405, 405),
                      post=(403, 404, 404, 400, 403, 403, 403, 400), kwargs=PK_RFQ),
    "catalog-import-list": api((403, 404, 404, 405, 403, 403, 403, 405),
                               post=(403, 404, 404, 400, 403, 403, 403, 400), multipart=True),
    "catalog-import-detail": api((403, 404, 404, 200, 403, 403, 403, 200),
                                 kwargs={"pk": "import_job"}),
    # --- API: checklist ----------------------------------------------------------------------
    "api-checklist-items": api((403, 200, 200, 200, 200, 200, 200, 200)),
    "api-quote-checklist": api((403, 200, 404, 200, 200, 200, 200, 200),
                               kwargs={"quote_id": "quote"}),
    "api-quote-checklist-answers": api((403, 405, 405, 405, 405, 405, 405, 405),
                                       post=(403, 201, 404, 403, 403, 403, 403, 403),
                                       kwargs={"quote_id": "quote"}, body=answer_api_body),
    "api-checklist-answer": api((403, 200, 404, 200, 200, 200, 200, 200),
                                kwargs={"answer_id": "answer"}),
    "api-checklist-answer-reviews": api((403, 405, 405, 405, 405, 405, 405, 405),
                                        post=(403, 403, 404, 403, 201, 403, 403, 201),
                                        kwargs={"answer_id": "answer"},
                                        body=verdict_body),
    # --- API: benchmarks ---------------------------------------------------------------------
    "api-benchmark-results": api((403, 404, 404, 200, 200, 200, 200, 200),
                                 post=(403, 404, 404, 400, 400, 403, 403, 400), multipart=True),
    "api-benchmark-results-batch": api((403, 404, 404, 405, 405, 405, 405, 405),
                                       post=(403, 404, 404, 400, 400, 403, 403, 400),
                                       multipart=True),
    "api-benchmark-result-detail": api((403, 404, 404, 200, 200, 200, 200, 200),
                                       kwargs={"result_id": "result"}),
    # --- API: briefs and memory fit ----------------------------------------------------------
    "api-brief-list":   api((403, 404, 404, 200, 200, 200, 200, 200),
                            post=(403, 404, 404, 400, 403, 403, 403, 400)),
    "api-brief-detail": api((403, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_BRIEF),
    "api-brief-revise": api((405, 404, 404, 405, 405, 405, 405, 405),
                            post=(403, 404, 404, 201, 403, 403, 403, 201), kwargs=PK_BRIEF),
    "api-brief-traces": api((403, 404, 404, 200, 200, 200, 200, 200),
                            post=(403, 404, 404, 400, 400, 403, 403, 400), kwargs=PK_BRIEF,
                            multipart=True),
    "api-memory-fit":   api((403, 405, 405, 405, 405, 405, 405, 405),
                            post=(403, 400, 400, 400, 400, 400, 400, 400)),
    # --- API: comparisons, reviews, exports, audit -------------------------------------------
    "api-comparison-list":   api((403, 404, 404, 200, 200, 200, 200, 200),
                                 post=(403, 404, 404, 400, 403, 403, 403, 400)),
    "api-comparison-detail": api((403, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_CMP),
    "api-comparison-retry":  api((405, 404, 404, 405, 405, 405, 405, 405),
                                 post=(403, 404, 404, 409, 403, 403, 403, 409), kwargs=PK_CMP),
    "api-comparison-recompute": api((405, 404, 404, 405, 405, 405, 405, 405),
                                    post=(403, 404, 404, 202, 403, 403, 403, 202), kwargs=PK_CMP),
    "api-comparison-reviews": api((403, 404, 404, 200, 200, 200, 200, 200),
                                  post=(403, 404, 404, 403, 201, 409, 201, 403),
                                  kwargs=PK_CMP, body=approve_body),
    "api-comparison-export-csv":  api((403, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_CMP),
    "api-comparison-export-xlsx": api((403, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_CMP),
    "api-audit-event-list":   api((403, 404, 404, 403, 403, 403, 403, 200)),
    "api-audit-event-detail": api((403, 404, 404, 403, 403, 403, 403, 200), kwargs={"pk": "event"}),
    # --- FinOps: a decision's FOCUS files, bill and counts (the world's comparison is READY,
    # not approved: writers pass the role gate and get 409, nothing to export) ----------------
    "finops:decision-list":   html((L, 404, 404, 200, 200, 200, 200, 200)),
    "finops:decision-detail": html((L, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_CMP),
    "finops:focus-commitments": html((L, 404, 404, 409, 409, 409, 409, 409), kwargs=PK_CMP),
    "finops:focus-prices":      html((L, 404, 404, 409, 409, 409, 409, 409), kwargs=PK_CMP),
    "finops:billing-import-new": html((L, 405, 405, 405, 405, 405, 405, 405),
                                      post=(L, 404, 404, 409, 403, 409, 403, 409), kwargs=PK_CMP),
    "finops:actuals-new":     html((L, 405, 405, 405, 405, 405, 405, 405),
                                   post=(L, 404, 404, 409, 409, 409, 403, 409), kwargs=PK_CMP),
    "finops:actuals-upload":  html((L, 405, 405, 405, 405, 405, 405, 405),
                                   post=(L, 404, 404, 409, 409, 409, 403, 409), kwargs=PK_CMP),
    "api-finops-reconciliation": api((403, 404, 404, 200, 200, 200, 200, 200), kwargs=PK_CMP),
    # The world's comparison is not approved: every allowed role is answered 409.
    "api-finops-focus-commitments": api((403, 404, 404, 409, 409, 409, 409, 409), kwargs=PK_CMP),
    "api-finops-focus-prices":      api((403, 404, 404, 409, 409, 409, 409, 409), kwargs=PK_CMP),
    "api-finops-bills":   api((403, 404, 404, 200, 200, 200, 200, 200),
                              post=(403, 404, 404, 409, 403, 409, 403, 409), kwargs=PK_CMP,
                              multipart=True),
    "api-finops-outputs": api((403, 405, 405, 405, 405, 405, 405, 405),
                              post=(403, 404, 404, 409, 409, 409, 403, 409), kwargs=PK_CMP),
    # --- API docs (the schema itself: see ALLOWLIST) -----------------------------------------
    "api-docs":   html((L, 200, 200, 200, 200, 200, 200, 200)),
}
# fmt: on

# Reviewed allowlist: routes the matrix does not drive, and why. A key ending in ":" covers a
# whole namespace.
ALLOWLIST = {
    "accounts:password-reset-confirm": "needs a user's one-time token in the URL; driven end "
    "to end (valid, reused and weak-password cases) in test_security_password_reset.py.",
    "accounts:login-link": "needs a signed one-time sign-in token in the URL; driven end to "
    "end (the mailed link, its button, its single use) in test_security_round3_login.py.",
    "admin:": "Django admin: its own staff/superuser gate (is_staff), tested by Django itself; "
    "only the admin user has is_staff, and non-staff are redirected to the admin login.",
    "api-schema": "OpenAPI schema: generating it costs seconds per request, so it is checked "
    "once for anonymous (401/403) and once logged in (200) in test_security_hardening.",
}
