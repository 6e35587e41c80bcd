"""Demo checklist answers: Northwind answers everything with evidence for its reserved quote
(mostly accepted, one item awaiting more information, the software section awaiting a
reviewer, so its reserved quote shows what still awaits review); Contoso answers the basics,
which the reviewers accepted (so its on-demand offers compete), and one item beyond them
whose red flag, with the unanswered rest, keeps its reserved and dedicated quotes incomplete.
Every review goes through the review service, audited like a real one.

Idempotent: an item already answered in the same scope is left alone. Runs after
catalog.demo; without its quotes or users it does nothing.
"""

from __future__ import annotations

from typing import Any

from accounts.models import User
from checklist import services
from checklist.models import ChecklistAnswer, ChecklistItem
from core.roles import Role

NORTHWIND_ANSWERS: dict[str, str] = {
    "gpu-model-node-shape": "NVIDIA H100 SXM5 80 GB HBM3, 8 GPUs per node (HGX H100).",
    "interconnect": "NVLink 4 with NVSwitch inside the node (900 GB/s per GPU); 8x 400 Gb/s "
    "NDR InfiniBand per node, rail-optimised, non-blocking.",
    "node-resources": "2x 56-core Xeon, 2 TB RAM, 8x 3.84 TB NVMe per node; 200 Gb/s to the "
    "shared parallel file system.",
    "region-placement": "eu-west, zone b; all reserved nodes in one placement group and pod.",
    "hardware-replacement": "Failed GPUs or nodes swapped from a hot spare pool within 4 hours; "
    "downtime beyond that is credited.",
    "software-versions": "Driver 550 LTS, CUDA 12.4, cuDNN 9, NCCL 2.21; containerd with the "
    "NVIDIA container toolkit; PyTorch 2.3+ images maintained.",
    "access-model": "Managed Kubernetes with the GPU operator, or Slurm on request.",
    "serving-frameworks": "vLLM, SGLang and TensorRT-LLM images provided; Ray supported.",
    "observability": "DCGM metrics (utilisation, memory, errors) exported to Prometheus; "
    "spend per namespace daily.",
    "upgrade-rollback": "Driver upgrades announced 14 days ahead, canary node first, image "
    "pinning supported, rollback within one maintenance window.",
    "capacity-model": "Reserved capacity for 12 months, dedicated to the customer.",
    "commitment-terms": "Minimum 64 GPUs for 12 months; overage at the on-demand rate; "
    "business support tier included.",
    "ancillary-costs": "Storage 0.08 per GB-month, egress 0.05 per GB, snapshots 0.03 per "
    "GB-month, public IPs 3 per month, private networking included.",
    "usage-export-invoicing": "Hourly usage export in FOCUS CSV via API; monthly invoice per "
    "project tag.",
    "idle-billing-shutdown": "Reserved capacity is billed whether busy or idle; on-demand "
    "overflow nodes stop automatically after 30 idle minutes.",
    "network-boundary": "Dedicated VPC per customer, private link to the customer's cloud, "
    "egress deny-by-default.",
    "iam-audit": "SSO with SAML/OIDC, per-role access, audit logs kept 1 year, break-glass "
    "support access with customer approval, incidents notified within 24 hours.",
    "data-lifecycle": "Data stays in eu-west; checkpoints kept until deleted; backups 30 days; "
    "certified deletion at contract end; legal hold on request.",
    "compliance-evidence": "SOC 2 Type II and ISO 27001 reports under NDA; security "
    "questionnaires answered within 10 working days.",
    "budgets-chargeback": "Budgets and alerts per project, quotas per team, tags carried to "
    "the usage export for showback.",
}
NORTHWIND_NEEDS_INFO = {
    "commitment-terms": "Cancellation rights are not stated: can we leave after 6 months, "
    "and at what cost?"
}

CONTOSO_ANSWERS: dict[str, tuple[str, str]] = {
    "gpu-model-node-shape": ("yes", "H100 SXM 80 GB and H200 SXM 141 GB, 8 GPUs per node."),
    "region-placement": ("yes", "eu-west (London) or eu-central (Frankfurt), as ordered."),
    "software-versions": ("yes", "Driver 550, CUDA 12.4, NCCL 2.21, PyTorch 2.3 images."),
    "access-model": ("yes", "Bare metal with SSH, or managed Kubernetes."),
    "ancillary-costs": ("yes", "Egress 0.09 per GB; storage 0.10 per GB-month."),
    "idle-billing-shutdown": (
        "partial",
        "Billed per minute while running; nodes stop through the API, with no automatic "
        "shutdown when idle.",
    ),
    "network-boundary": (
        "yes",
        "Private endpoints through VPC peering or a private interconnect; public endpoints "
        "off unless asked for.",
    ),
    "iam-audit": ("yes", "SSO via OIDC; audit logs kept 90 days."),
    "data-lifecycle": (
        "partial",
        "Data stays in the ordered region; backups 35 days; deletion on request.",
    ),
}
# Beyond the basics, so it weighs on the committed offers only.
CONTOSO_RED_FLAG = {
    "data-lifecycle": "No certified deletion at contract end: our data policy requires a "
    "deletion certificate before committing to capacity."
}
# Public clouds whose basic answers a provider representative filled in from their public
# documentation, so their on-demand and spot list prices can compete in the demo comparison.
PUBLIC_BASICS: dict[str, tuple[str, str]] = {
    "gcp": ("gcp_rep", "https://cloud.google.com/compute/docs/gpus"),
    "runpod": ("runpod_rep", "https://docs.runpod.io/"),
}
PUBLIC_BASIC_TEXT = "Answered from the provider's public documentation (linked)."
# Items answered once for all the provider's quotes; the others belong to the offer.
PROVIDER_WIDE_SECTIONS = {"software", "security"}
REVIEWER_BY_SECTION = {
    "hardware": "engineer",
    "software": "engineer",
    "commercial": "finance",
    "security": "security",
}


def _say(stdout: Any, message: str) -> None:
    if stdout is not None:
        stdout.write(message)


def _answer(
    vendor: User, quote: Any, item: ChecklistItem, text: str, status: str, url: str, scope: str
) -> ChecklistAnswer | None:
    provider = vendor.provider
    if provider is None:
        return None
    scoped_quote = quote if scope == services.SCOPE_QUOTE else None
    existing = ChecklistAnswer.objects.filter(provider=provider, quote=scoped_quote, item=item)
    if existing.exists():
        return None
    entry = services.AnswerEntry(
        item=item, answer=text, status=status, scope=scope, evidence_url=url
    )
    return services.answer_submit(acting_user=vendor, provider=provider, quote=quote, entry=entry)


def _review(answer: ChecklistAnswer | None, decision: str, comment: str = "") -> None:
    if answer is None:
        return
    reviewer = User.objects.filter(username=REVIEWER_BY_SECTION[answer.item.section]).first()
    if reviewer is not None:
        services.answer_review(
            acting_user=reviewer, answer=answer, decision=decision, comment=comment
        )


def _demo_quote(provider_slug: str, *capacity_models: str) -> Any:
    from catalog.models import Quote

    return (
        Quote.objects.current()
        .filter(provider__slug=provider_slug, capacity_model__in=capacity_models)
        .select_related("provider")
        .order_by("-created_at")
        .first()
    )


def _load_northwind(vendor: User, items: list[ChecklistItem]) -> int:
    quote = _demo_quote("northwind", "reserved")
    if quote is None:
        return 0
    created = 0
    for item in items:
        # Basic items hold for every Northwind offer (so its on-demand and spot quotes meet
        # their level); the rest belong to the reserved offer.
        scope = (
            services.SCOPE_PROVIDER
            if item.section in PROVIDER_WIDE_SECTIONS or item.is_basic
            else services.SCOPE_QUOTE
        )
        url = f"https://northwind.example/trust/{item.code}.pdf"
        answer = _answer(vendor, quote, item, NORTHWIND_ANSWERS[item.code], "yes", url, scope)
        created += answer is not None
        if item.code in NORTHWIND_NEEDS_INFO:
            _review(answer, "needs_info", NORTHWIND_NEEDS_INFO[item.code])
        elif item.section != "software":  # software answers left awaiting review
            _review(answer, "accepted")
    return created


def _load_contoso(vendor: User, items: list[ChecklistItem]) -> int:
    quote = _demo_quote("contoso", "reserved", "dedicated_cluster")
    created = 0
    for item in items:
        if item.code not in CONTOSO_ANSWERS:
            continue
        status, text = CONTOSO_ANSWERS[item.code]
        url = "" if status == "no" else f"https://contoso.example/docs/{item.code}"
        answer = _answer(vendor, quote, item, text, status, url, services.SCOPE_PROVIDER)
        created += answer is not None
        if item.code in CONTOSO_RED_FLAG:
            _review(answer, "red_flag", CONTOSO_RED_FLAG[item.code])
        else:
            _review(answer, "accepted")
    return created


def _load_public(items: list[ChecklistItem]) -> int:
    from django.conf import settings

    from accounts.models import Provider

    created = 0
    for slug, (username, url) in PUBLIC_BASICS.items():
        provider = Provider.objects.filter(slug=slug).first()
        if provider is None:
            continue
        rep, made = User.objects.get_or_create(
            username=username,
            defaults={"role": Role.VENDOR, "provider": provider, "first_name": provider.name},
        )
        if made:
            rep.set_password(settings.DEMO_PASSWORD)
            rep.save(update_fields=["password"])
        for item in items:
            if item.is_basic:
                answer = _answer(
                    rep, None, item, PUBLIC_BASIC_TEXT, "yes", url, services.SCOPE_PROVIDER
                )
                created += answer is not None
    return created


def load(stdout: Any = None) -> None:
    """Create the demo answers and reviews (see the module docstring)."""
    items = list(ChecklistItem.objects.order_by("order"))
    vendors = {
        u.provider.slug: u
        for u in User.objects.filter(role=Role.VENDOR, provider__slug__in=["northwind", "contoso"])
        .select_related("provider")
        .order_by("pk")
        if u.provider is not None
    }
    if not items or not vendors:
        _say(stdout, "checklist: no items or demo vendors yet; nothing to do.\n")
        return
    created = 0
    if "northwind" in vendors:
        created += _load_northwind(vendors["northwind"], items)
    if "contoso" in vendors:
        created += _load_contoso(vendors["contoso"], items)
    created += _load_public(items)
    _say(stdout, f"checklist: {created} demo answers created.\n")
