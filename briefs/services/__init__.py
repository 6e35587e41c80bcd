"""Writes on workload briefs (create, revise) and the memory-fit calculation both surfaces use.

Briefs are versioned: revising creates a new row with `version + 1` that `supersedes` the old
one, and the old row is never changed. Every create and revise is written to the audit trail.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from accounts.models import User
from briefs import access
from briefs.fit import gpu_spec_for, model_spec_for
from briefs.models import WorkloadBrief
from briefs.rules import BRIEF_FIELDS, brief_errors, field_label
from briefs.volume import (
    ImpliedFleet,
    VolumeEcho,
    VolumeVerdict,
    fleets_by_accelerator,
    volume_echo,
    volume_verdict,
)
from catalog import access as catalog_access
from catalog.models import Accelerator, ModelProfile
from core.audit import audit_record
from core.errors import Conflict, DomainError, NotAllowed
from core.roles import has_role
from engine.errors import EngineInputError
from engine.memory.fit import memory_fit
from engine.memory.spec import FitInput, FitResult, ModelSpec

# Fields a caller may set (version, lineage and authorship belong to the service).
EDITABLE_FIELDS = BRIEF_FIELDS


def _require_writer(user: User) -> None:
    if not has_role(user, *access.BRIEF_WRITERS):
        raise NotAllowed("Only a procurement lead or an admin can write workload briefs.")


def _apply(brief: WorkloadBrief, data: Mapping[str, Any]) -> list[str]:
    """Set the editable fields present in `data`; return the names whose value changed."""
    unknown = sorted(set(data) - set(EDITABLE_FIELDS))
    if unknown:
        raise DomainError(
            "These fields cannot be set: " + ", ".join(unknown) + ".",
            fields={name: ["This field cannot be set."] for name in unknown},
        )
    changed = []
    for name, value in data.items():
        if getattr(brief, name) != value:
            changed.append(name)
        setattr(brief, name, value)
    return changed


def _validate(brief: WorkloadBrief) -> None:
    """Model validation plus the brief rules; one DomainError naming every bad field."""
    fields: dict[str, list[str]] = {}
    try:
        brief.full_clean(exclude=["created_by", "supersedes"], validate_unique=False)
    except ValidationError as exc:
        fields = {name: [str(m) for m in messages] for name, messages in exc.message_dict.items()}
    for name, messages in brief_errors(_values(brief)).items():
        fields.setdefault(name, []).extend(m for m in messages if m not in fields.get(name, []))
    if fields:
        labels = ", ".join(field_label(name) for name in fields)
        raise DomainError(f"Please correct: {labels}.", fields=fields)


class VolumeUnconfirmed(DomainError):
    code = "volume_unconfirmed"


def volume_of(values: Mapping[str, Any]) -> tuple[VolumeEcho | None, list[ImpliedFleet]]:
    """What a brief's values (its fields, or a form's data while typing) derive to, and the
    peak fleet they imply by the roofline on each catalog accelerator they fit, fewest GPUs
    first (empty when the values cannot say). `values["model"]` is a ModelProfile or None."""
    echo = volume_echo(values)
    model = values.get("model")
    if echo is None or model is None:
        return echo, []
    gpus = [(a.name, gpu_spec_for(a)) for a in Accelerator.objects.order_by("slug")]
    return echo, fleets_by_accelerator(values, echo, model_spec_for(model), gpus)


def _values(brief: WorkloadBrief) -> dict[str, Any]:
    """The brief's fields as the rules and the volume read them (the model as its profile)."""
    values = {name: getattr(brief, name, None) for name in EDITABLE_FIELDS if name != "model"}
    values["model"] = brief.model if brief.model_id else None
    return values


def brief_volume(brief: WorkloadBrief) -> tuple[VolumeEcho | None, list[ImpliedFleet]]:
    """`volume_of` a saved brief."""
    return volume_of(_values(brief))


def volume_check(
    values: Mapping[str, Any],
) -> tuple[VolumeEcho | None, list[ImpliedFleet], VolumeVerdict]:
    """The volume, its fleets and whether saving it needs a confirmation (the guard)."""
    echo, fleets = volume_of(values)
    verdict = volume_verdict(echo, fleets, above_gpus=int(settings.BRIEF_CONFIRM_ABOVE_GPUS))
    return echo, fleets, verdict


def _check_volume(brief: WorkloadBrief, confirmed: bool) -> None:
    """A volume implying a very large fleet, or very many replicas of its model, is saved only
    once its author confirms it: the unit is easy to misread (tokens typed where answers are
    asked). Judged on the brief's likely fleet, not its most favourable one (P17)."""
    if confirmed:
        return
    echo, _, verdict = volume_check(_values(brief))
    if echo is None or not verdict.ask:
        return
    message = (
        f"{echo.words()}: {'; '.join(verdict.reasons)}. Check the unit (the volume counts "
        "answers, not tokens), then confirm the volume to save."
    )
    raise VolumeUnconfirmed(
        message, fields={"monthly_accepted_outputs_likely": [message], "confirm_volume": [message]}
    )


@transaction.atomic
def brief_create(
    *, acting_user: User, data: Mapping[str, Any], volume_confirmed: bool = False
) -> WorkloadBrief:
    """A new brief (version 1). `data` maps field names to cleaned values."""
    _require_writer(acting_user)
    brief = WorkloadBrief(created_by=acting_user, version=1)
    _apply(brief, data)
    _validate(brief)
    _check_volume(brief, volume_confirmed)
    brief.save()
    audit_record(
        actor=acting_user,
        action="brief.created",
        obj=brief,
        summary={
            "version": 1,
            "workload_class": brief.workload_class,
            "missing_fields": brief.missing_fields(),
        },
    )
    return brief


@transaction.atomic
def brief_revise(
    *,
    acting_user: User,
    brief: WorkloadBrief,
    data: Mapping[str, Any],
    volume_confirmed: bool = False,
) -> WorkloadBrief:
    """A new version copying `brief` with `data` applied; `brief` itself stays unchanged.

    Only the latest version can be revised (two people revising v2 at once: one wins, the
    other gets a Conflict and revises v3).
    """
    _require_writer(acting_user)
    old = WorkloadBrief.objects.select_for_update().get(pk=brief.pk)
    revised = Conflict(
        f"Version {old.version} of this brief has already been revised; "
        "revise the latest version instead."
    )
    if WorkloadBrief.objects.filter(supersedes_id=old.pk).exists():
        raise revised
    new = WorkloadBrief(
        **{name: getattr(old, name) for name in EDITABLE_FIELDS},
        version=old.version + 1,
        supersedes=old,
        created_by=acting_user,
    )
    new.allowed_regions = list(old.allowed_regions or [])
    changed = _apply(new, data)
    _validate(new)
    _check_volume(new, volume_confirmed)
    try:
        with transaction.atomic():
            new.save()
    except IntegrityError as exc:  # the one-to-one `supersedes` lost a race
        raise revised from exc
    audit_record(
        actor=acting_user,
        action="brief.revised",
        obj=new,
        summary={
            "version": new.version,
            "supersedes": old.pk,
            "changed": changed,
            "missing_fields": new.missing_fields(),
        },
    )
    return new


# --- memory fit ---------------------------------------------------------------------------

CUSTOM_MODEL_FIELDS = (
    "params_b",
    "layers",
    "kv_heads",
    "head_dim",
    "active_params_b",
    "hidden_size",
    "attention_heads",
    "mla_latent_dim",
    "sliding_window",
    "sliding_window_layers",
    "max_context",
)
REQUIRED_CUSTOM_FIELDS = ("params_b", "layers", "kv_heads", "head_dim")
ENGINE_OPTIONS = (
    "gpus",
    "overhead_gb",
    "safety_margin",
    "micro_batch",
    "zero_stage",
    "activation_checkpointing",
    "lora_rank",
)


def _fit_model(data: Mapping[str, Any]) -> tuple[ModelSpec, dict[str, Any]]:
    slug = data.get("model")
    custom = {k: data[k] for k in CUSTOM_MODEL_FIELDS if data.get(k) is not None}
    if slug and custom:
        raise DomainError(
            "Give either a catalog model slug or a custom model, not both.",
            fields={"model": ["Give either a catalog model slug or custom model numbers."]},
        )
    if slug:
        profile = ModelProfile.objects.filter(slug=slug).first()
        if profile is None:
            raise _unknown_model(slug)
        return model_spec_for(profile), {"slug": profile.slug, "name": profile.name}
    missing = [name for name in REQUIRED_CUSTOM_FIELDS if name not in custom]
    if missing:
        message = "Required for a custom model (or give `model`, a catalog slug)."
        raise DomainError(
            "Give a catalog model slug or the custom model's " + ", ".join(missing) + ".",
            fields={name: [message] for name in missing},
        )
    spec = ModelSpec(**custom)
    return spec, {"slug": None, "name": "Custom model"}


def _unknown_model(slug: str) -> DomainError:
    message = f"Unknown model '{slug}': use a slug from /api/v1/models/."
    return DomainError(f"Unknown model '{slug}'.", fields={"model": [message]})


def _fit_accelerator(slug: Any) -> Accelerator:
    accelerator = Accelerator.objects.filter(slug=slug).first() if slug else None
    if accelerator is None:
        message = (
            f"Unknown accelerator '{slug}': use a slug from /api/v1/accelerators/."
            if slug
            else "Choose an accelerator."
        )
        raise DomainError(message, fields={"accelerator": [message]})
    return accelerator


def fit_input_from(data: Mapping[str, Any]) -> tuple[FitInput, dict[str, Any]]:
    """Build the engine question from cleaned calculator data (API body or page form)."""
    spec, model_echo = _fit_model(data)
    accelerator = _fit_accelerator(data.get("accelerator"))
    options = {k: data[k] for k in ENGINE_OPTIONS if data.get(k) is not None}
    inp = FitInput(
        model=spec,
        gpu=gpu_spec_for(accelerator),
        mode=data.get("mode") or "inference",
        weight_precision=data.get("weight_precision") or "bf16",
        kv_precision=data.get("kv_precision") or "bf16",
        # Required by the calculator form and serializer, so present (the stub of .get says None).
        context_tokens=data.get("context_tokens"),  # type: ignore[arg-type]
        concurrent_sequences=data.get("concurrent_sequences") or 1,
        **options,
    )
    echo = {
        "model": model_echo,
        "accelerator": {
            "slug": accelerator.slug,
            "name": accelerator.name,
            "memory_gb": accelerator.memory_gb,
            "max_gpus_per_node": accelerator.max_gpus_per_node,
        },
    }
    return inp, echo


def run_fit(inp: FitInput) -> FitResult:
    """The engine, with its input errors turned into a 400 naming the field."""
    try:
        return memory_fit(inp)
    except EngineInputError as exc:
        raise DomainError(
            f"{exc.field}: {exc.message}", fields={exc.field: [_sentence(exc.message)]}
        ) from exc
    except (ArithmeticError, OverflowError) as exc:  # absurd but in-range numbers
        raise DomainError(
            "These numbers are too large to size.", fields={"non_field_errors": [str(exc)]}
        ) from exc


def memory_fit_calculate(*, data: Mapping[str, Any], acting_user: User) -> dict[str, Any]:
    """Run the memory-fit engine on calculator data; JSON-ready result with assumptions.

    Read-only: anyone logged in may call it, with the models they may see (a vendor
    naming a buyer's custom model gets the same answer as for an unknown slug).
    """
    slug = data.get("model")
    if slug and not catalog_access.model_profiles_for(acting_user).filter(slug=slug).exists():
        raise _unknown_model(slug)
    inp, echo = fit_input_from(data)
    result = run_fit(inp)
    out = result.to_dict()
    assumptions = dict(out["assumptions"])  # type: ignore[call-overload]
    assumptions["accelerator_memory_gb"] = echo["accelerator"]["memory_gb"]
    out["assumptions"] = assumptions
    _check_finite(out)
    return {**echo, **out}


def _check_finite(out: Mapping[str, Any]) -> None:
    for key in ("total_gb", "per_gpu_gb", "weights_gb", "kv_cache_gb", "headroom_pct"):
        value = out.get(key)
        if isinstance(value, float | Decimal) and not math.isfinite(value):
            raise DomainError(
                "These numbers are too large to size.",
                fields={"non_field_errors": [f"{key} is not a finite number."]},
            )


def _sentence(message: str) -> str:
    text = message[:1].upper() + message[1:]
    return text if text.endswith(".") else text + "."
