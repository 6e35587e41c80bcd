"""Benchmark plans: create one per candidate (quote + brief), judge automatic steps from the
uploaded results, and let engineers check the operational steps off with evidence."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from benchmarks import access, plan_rules, selectors
from benchmarks.errors import StepNotManual
from benchmarks.models import BenchmarkPlan, BenchmarkPlanStep, BenchmarkResult, ComparedCandidate
from core.audit import audit_record
from core.errors import DomainError, NotFound
from core.roles import require_role
from engine.evidence import EvidenceMatch


def brief_facts(brief: Any) -> plan_rules.BriefFacts:
    """The brief's fields the plan rules read (the adapter between model and pure rules)."""
    context = (brief.p95_input_tokens or 0) + (brief.p95_output_tokens or 0)
    return plan_rules.BriefFacts(
        workload_class=brief.workload_class,
        model_name=str(brief.model) if brief.model_id else "",
        weight_precision=brief.weight_precision or "",
        p95_context_tokens=context or None,
        concurrency=brief.concurrency,
        batch_size=brief.batch_size,
        streaming=bool(brief.streaming),
        ttft_p95_ms=brief.ttft_p95_ms,
        itl_p95_ms=brief.itl_p95_ms,
        e2e_p99_ms=brief.e2e_p99_ms,
        peak_to_average=brief.peak_to_average,
        checkpoint_write_s=brief.checkpoint_write_s,
    )


def plan_evidence(plan: BenchmarkPlan) -> list[tuple[BenchmarkResult, EvidenceMatch]]:
    """The parsed results that count for the plan's candidate, best evidence first, each with
    its verdict: judged by the comparison's matching rules (engine/evidence.py) among this
    quote's results and the accelerator's unbound ones, for this brief or for none."""
    quote = plan.quote
    rows = list(
        BenchmarkResult.objects.filter(status=BenchmarkResult.Status.PARSED)
        .filter(Q(quote_id=quote.pk) | Q(quote__isnull=True, accelerator_id=quote.accelerator_id))
        .filter(Q(brief_id=plan.brief_id) | Q(brief__isnull=True))
        .select_related("accelerator")
    )
    return selectors.counted_results(
        rows, plan.brief, quote.accelerator, quote_id=quote.pk, cap=quote.max_gpus_available
    )


def plan_results(plan: BenchmarkPlan) -> list[BenchmarkResult]:
    """The results that count for the plan, best evidence first (see `plan_evidence`)."""
    return [result for result, _ in plan_evidence(plan)]


def _facts(judged: list[tuple[BenchmarkResult, EvidenceMatch]]) -> list[plan_rules.ResultFacts]:
    return [
        plan_rules.ResultFacts(
            result_id=r.pk,
            label=f"result #{r.pk}, {r.format_id}" + (", proxy" if m.kind == "proxy" else ""),
            metrics=r.metrics or {},
            gpu_count=r.gpu_count or 1,  # found by quote or accelerator: always a GPU run
        )
        for r, m in judged
    ]


def _has_comparison_row(plan: BenchmarkPlan) -> bool:
    return ComparedCandidate.objects.filter(brief_id=plan.brief_id, quote_id=plan.quote_id).exists()


@transaction.atomic
def benchmark_plan_refresh(*, plan: BenchmarkPlan) -> list[BenchmarkPlanStep]:
    """Re-judge the automatic steps from the results; returns the steps that changed.

    Called after each parse, when a comparison of the brief finishes and from the plan page:
    derived data, so not audited (a checked step is).
    """
    facts = _facts(plan_evidence(plan))
    has_row = _has_comparison_row(plan)
    specs = {s.code: s for s in plan_rules.plan_steps_for(brief_facts(plan.brief))}
    changed = []
    steps = plan.steps.filter(kind=BenchmarkPlanStep.Kind.AUTOMATIC)
    for step in steps:
        spec = specs.get(step.code)
        if spec is None:
            continue
        verdict = plan_rules.evaluate(spec, facts, has_comparison_row=has_row)
        observed = verdict.observed[:200]
        new = (verdict.status, observed, verdict.result_id)
        if (step.status, step.observed, step.result_id) != new:
            step.status, step.observed, step.result_id = new
            step.checked_at = timezone.now()
            changed.append(step)
    BenchmarkPlanStep.objects.bulk_update(changed, ["status", "observed", "result", "checked_at"])
    return changed


def benchmark_plans_refresh_for_result(result: BenchmarkResult) -> int:
    """Re-judge every plan a newly parsed result counts for; returns how many were looked at."""
    plans = BenchmarkPlan.objects.select_related("quote", "brief")
    if result.quote_id:
        plans = plans.filter(quote_id=result.quote_id)
    elif result.accelerator_id is not None:
        plans = plans.filter(quote__accelerator_id=result.accelerator_id)
    else:  # plans are of GPU offers: a hosted API's run counts for none
        return 0
    if result.brief_id:
        plans = plans.filter(brief_id=result.brief_id)
    count = 0
    for plan in plans:
        benchmark_plan_refresh(plan=plan)
        count += 1
    return count


def benchmark_candidates_compared(*, brief_id: int, quote_ids: list[int]) -> int:
    """A comparison of the brief finished with rows for these quotes (phase 4 evidence).

    The decisions app calls this after commit; the brief's plans are then re-judged.
    Returns how many plans were looked at.
    """
    ComparedCandidate.objects.bulk_create(
        [ComparedCandidate(brief_id=brief_id, quote_id=q) for q in sorted(set(quote_ids))],
        ignore_conflicts=True,
    )
    return benchmark_plans_refresh_for_brief(brief_id)


def benchmark_plans_refresh_for_brief(brief_id: int) -> int:
    """Re-judge every plan of a brief (call when a comparison of it finishes: phase 4)."""
    plans = BenchmarkPlan.objects.filter(brief_id=brief_id).select_related("quote", "brief")
    count = 0
    for plan in plans:
        benchmark_plan_refresh(plan=plan)
        count += 1
    return count


@transaction.atomic
def benchmark_plan_create(
    *, acting_user: User, quote: Any, brief: Any
) -> tuple[BenchmarkPlan, bool]:
    """The plan of one candidate for one brief (one per pair: an existing one is returned)."""
    require_role(acting_user, *access.BENCHMARK_UPLOADERS)
    existing = BenchmarkPlan.objects.filter(quote=quote, brief=brief).first()
    if existing is not None:
        return existing, False
    plan = BenchmarkPlan.objects.create(quote=quote, brief=brief, created_by=acting_user)
    specs = plan_rules.plan_steps_for(brief_facts(brief))
    BenchmarkPlanStep.objects.bulk_create(
        BenchmarkPlanStep(
            plan=plan,
            phase=spec.phase,
            code=spec.code,
            title=spec.title[:200],
            criterion=spec.criterion,
            kind=spec.kind,
        )
        for spec in specs
    )
    benchmark_plan_refresh(plan=plan)
    audit_record(
        actor=acting_user,
        action="benchmark_plan.created",
        obj=plan,
        summary={"quote": quote.pk, "brief": brief.pk, "steps": len(specs)},
    )
    return plan, True


@transaction.atomic
def benchmark_plan_step_check(
    *,
    acting_user: User,
    plan: BenchmarkPlan,
    step_id: Any,
    status: str,
    notes: str,
    evidence_url: str,
) -> BenchmarkPlanStep:
    """An engineer marks an operational step passed / failed (or back to pending).

    Passing needs an evidence URL and notes; failing needs notes saying what went wrong.
    """
    require_role(acting_user, *access.BENCHMARK_UPLOADERS)
    try:
        step = BenchmarkPlanStep.objects.select_for_update().get(plan=plan, pk=step_id)
    except (BenchmarkPlanStep.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound() from exc
    if step.kind != BenchmarkPlanStep.Kind.MANUAL:
        raise StepNotManual()
    notes, evidence_url = notes.strip(), evidence_url.strip()
    statuses = BenchmarkPlanStep.Status
    if status not in statuses.values:
        raise DomainError("Choose passed, failed or pending.", fields={"status": ["Invalid."]})
    if status == statuses.PASSED and not evidence_url:
        raise DomainError(
            "A passed step needs an evidence URL (run log, dashboard, ticket).",
            fields={"evidence_url": ["Required to mark the step passed."]},
        )
    if status != statuses.PENDING and not notes:
        raise DomainError(
            "Say what was done and observed in the notes.",
            fields={"notes": ["Required to check a step off."]},
        )
    before = {"status": step.status, "notes": step.notes, "evidence_url": step.evidence_url}
    step.status, step.notes, step.evidence_url = status, notes, evidence_url
    step.checked_by = acting_user if status != statuses.PENDING else None
    step.checked_at = timezone.now() if status != statuses.PENDING else None
    step.save(update_fields=["status", "notes", "evidence_url", "checked_by", "checked_at"])
    audit_record(
        actor=acting_user,
        action="benchmark_plan.step_checked",
        obj=plan,
        summary={
            "step": step.code,
            "before": before,
            "after": {"status": status, "notes": notes[:500], "evidence_url": evidence_url},
        },
    )
    return step
