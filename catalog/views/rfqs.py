"""RFQs (staff): list, detail with every provider's answers, create, reopen, close."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.http import AuthedRequest
from briefs import access as briefs_access
from briefs import selectors as briefs_selectors
from catalog import access, panels, selectors, services
from catalog.access import staff_required, writer_required
from catalog.forms.reference import RfqForm, RfqReopenForm
from catalog.tracking import RFQ_VIEWED
from core.errors import DomainError
from core.forms import form_status, saved
from core.models import AuditEvent
from core.roles import has_role


@staff_required
def rfq_list(request: AuthedRequest) -> HttpResponse:
    context = {
        "rfqs": selectors.rfqs_list(request.user),
        "can_write": has_role(request.user, *access.CATALOG_WRITERS),
    }
    return render(request, "catalog/rfq_list.html", context)


@staff_required
def rfq_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    rfq = access.access_rfq(request.user, pk)
    can_write = has_role(request.user, *access.CATALOG_WRITERS)
    quotes = list(selectors.quotes_for_rfq(request.user, rfq))
    context = {
        "rfq": rfq,
        "vendors": vendor_progress(rfq, quotes),
        "time_left": time_left(rfq),
        "can_compare": bool(quotes) and rfq.brief_id is not None and can_write,
        "providers": rfq.providers.all(),
        "accelerators": rfq.accelerators.all(),
        "capacity_labels": rfq.capacity_model_labels(),
        "quotes": quotes,
        "checklists": panels.checklist_summaries(quotes),
        "excluded": selectors.rfq_answers_excluded(rfq, quotes),
        "decisions": decisions_on(rfq),
        "can_write": can_write,
        "can_reopen": can_write and not rfq.is_open_for_answers(),
        "reopen_form": RfqReopenForm(),
    }
    return render(request, "catalog/rfq_detail.html", context)


def decisions_on(rfq: Any) -> list[dict[str, Any]]:
    """The approved decisions that drew on this RFQ's answers (the first closed it)."""
    events = AuditEvent.objects.filter(
        action=services.RFQ_AWARDED, object_type="catalog.rfq", object_id=str(rfq.pk)
    ).order_by("created_at")
    return [{**event.summary, "at": event.created_at} for event in events]


def time_left(rfq: Any) -> str:
    """The countdown to the deadline, in words ("3 days left", "5 hours left", "closed")."""
    if not rfq.is_open_for_answers():
        return "closed"
    seconds = (rfq.deadline - timezone.now()).total_seconds()
    days = int(seconds // 86_400)
    if days >= 1:
        return f"{days} day{'s' if days != 1 else ''} left"
    hours = max(int(seconds // 3600), 0)
    return f"{hours} hour{'s' if hours != 1 else ''} left" if hours else "less than an hour left"


def vendor_progress(rfq: Any, quotes: list[Any]) -> list[dict[str, Any]]:
    """Each invited provider: invited, first viewed (by one of its users), answered, and the
    latest version of its newest answer."""
    viewed = {
        event.summary.get("provider"): event.created_at
        for event in AuditEvent.objects.filter(
            action=RFQ_VIEWED, object_type="catalog.rfq", object_id=str(rfq.pk)
        ).order_by("-created_at")
    }
    rows = []
    for provider in rfq.providers.all():
        answers = [q for q in quotes if q.provider_id == provider.pk]
        latest = max(answers, key=lambda q: (q.quoted_at, q.pk), default=None)
        rows.append(
            {
                "provider": provider,
                "invited_at": rfq.created_at,
                "viewed_at": viewed.get(provider.pk),
                "answers": len(answers),
                "latest": latest,
            }
        )
    return rows


def _count(tokens: int | None) -> str:
    """3500 → "3,500" as the other figures of the requirements read; "?" when not stated."""
    return f"{tokens:,}" if tokens else "?"


def rfq_initial(brief: Any) -> dict[str, Any]:
    """An RFQ pre-filled from its brief: title, requirements in words, region, term, and the
    GPUs needed and acceptable accelerators from the brief's memory fit (its shortlist)."""
    facts = [brief.get_workload_class_display()]
    if brief.model:
        facts.append(f"model {brief.model}")
    if brief.p95_input_tokens or brief.p95_output_tokens:
        facts.append(
            f"p95 {_count(brief.p95_input_tokens)} input / {_count(brief.p95_output_tokens)} "
            "output tokens"
        )
    for name, label in (
        ("ttft_p95_ms", "TTFT p95"),
        ("itl_p95_ms", "ITL p95"),
        ("e2e_p99_ms", "E2E p99"),
    ):
        if getattr(brief, name):
            facts.append(f"{label} ≤ {getattr(brief, name):,} ms")
    if brief.monthly_accepted_outputs_likely:
        # A whole number with its unit, and the tokens it derives to: a vendor must not read
        # answers as tokens (or the reverse).
        volume = round(brief.monthly_accepted_outputs_likely)
        tokens = brief.mean_output_tokens if brief.is_serving else None
        unit = "accepted answers (requests)" if brief.is_serving else "accepted outputs"
        text = f"about {volume:,} {unit} a month"
        if tokens:
            text += f" × {tokens:,} output tokens ≈ {volume * tokens:,} output tokens a month"
        facts.append(text)
    regions = [str(r) for r in brief.allowed_regions or []]
    if regions:
        facts.append(f"data stays in {', '.join(regions)}")
    if brief.private_endpoint_required:
        facts.append(
            "a private endpoint is required (private link or VPC peering, no public internet)"
        )
    if brief.horizon_months:
        facts.append(f"a {brief.horizon_months}-month term")
    sizing = briefs_selectors.brief_rfq_sizing(brief)
    if sizing is not None:
        facts.append(sizing.words)
    facts.append("prices per GPU-hour (per node for hardware you sell)")
    facts.append(
        "state how many GPUs you can provide in total, from when, and with which lead time"
    )
    facts.append("say whether reserved capacity is sold by the GPU or only in whole nodes")
    initial: dict[str, Any] = {
        "brief": brief.pk,
        "title": f"RFQ: {brief.title}"[:200],
        "requirements": "; ".join(facts) + ".",
        "region": ", ".join(regions)[:120],
    }
    if brief.horizon_months:
        initial["term_months"] = brief.horizon_months
    if sizing is not None:  # V8, U10: GPUs and accelerators from the brief's memory fit
        if sizing.gpus_needed is not None:  # else the text gives each accelerator's count
            initial["gpus_needed"] = sizing.gpus_needed
        initial["accelerators"] = sizing.accelerator_ids
    return initial


@writer_required
def rfq_create(request: AuthedRequest) -> HttpResponse:
    briefs = briefs_access.briefs_for(request.user).filter(superseded_by__isnull=True)
    initial: dict[str, Any] = {}
    brief_id = request.GET.get("brief", "")
    if request.method == "GET" and brief_id.isdigit():
        brief = briefs.filter(pk=int(brief_id)).first()
        if brief is not None:
            initial = rfq_initial(brief)
    form = RfqForm(request.POST or None, briefs=briefs, initial=initial)
    create = services.rfq_create
    if rfq := saved(request, form, lambda data: create(acting_user=request.user, data=data)):
        messages.success(request, f"RFQ sent to {rfq.providers.count()} provider(s).")
        return redirect(rfq)
    return render(request, "catalog/rfq_form.html", {"form": form}, status=form_status(request))


@writer_required
def rfq_reopen(request: AuthedRequest, pk: int) -> HttpResponse:
    rfq = access.access_rfq(request.user, pk)
    form = RfqReopenForm(request.POST or None)
    reopen = services.rfq_reopen
    if saved(request, form, lambda d: reopen(acting_user=request.user, rfq=rfq, **d)):
        messages.success(request, "RFQ reopened; invited providers can answer again.")
        return redirect(rfq)
    context = {
        "form": form,
        "title": f"Reopen “{rfq.title}”",
        "submit": "Reopen",
        "cancel_url": rfq.get_absolute_url(),
    }
    return render(request, "catalog/simple_form.html", context, status=form_status(request))


@require_POST
@writer_required
def rfq_close(request: AuthedRequest, pk: int) -> HttpResponse:
    rfq = access.access_rfq(request.user, pk)
    try:
        services.rfq_close(acting_user=request.user, rfq=rfq)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "RFQ closed: no more answers are accepted.")
    return redirect(rfq)
