"""What an upload asks when the file does not say it: the model measured and its precision.

A result without them never counts as measured (engine/evidence.py), so neither is guessed:
a small file parsed at upload is refused naming the missing fields (the form re-asks, the
API answers 400); a large file parsed later on a worker is asked on its page, once, audited.
A precision given that contradicts the file's own is refused: the file is the evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction

from benchmarks import access
from benchmarks.errors import UploadRejected
from benchmarks.models import BenchmarkResult
from benchmarks.parsers.types import ParsedResult
from benchmarks.services.plans import benchmark_plans_refresh_for_result
from benchmarks.services.results import auto_precision, profile_for_name, stated_precision
from briefs.models import Precision
from catalog.models import ModelProfile
from core.audit import audit_record
from core.roles import require_role
from engine.evidence import SIZE_CLASS_RATIO, params_from_name

if TYPE_CHECKING:
    from accounts.models import User
MODEL_ASKED = (
    "The file does not say which model it measured: choose its model profile (a result "
    "without its model never counts as measured)."
)
PRECISION_ASKED = (
    "The file does not say at which precision the model ran: choose it (bf16, fp8, int4…; a "
    "result without its precision never counts as measured)."
)


def _serves(parsed: ParsedResult) -> bool:
    """Throughput figures: telemetry and training system files carry none and are not asked."""
    metrics = parsed.metrics
    figures = (metrics.output_tokens_per_s, metrics.request_throughput_rps)
    return any(f is not None for f in figures)


def needs_model(parsed: ParsedResult) -> bool:
    """A file with throughput figures that does not say which model it measured."""
    return not (parsed.model or "").strip() and _serves(parsed)


def needs_precision(parsed: ParsedResult) -> bool:
    """A file with throughput figures that does not state its precision."""
    return not stated_precision(parsed) and _serves(parsed)


def _check_vocabulary(precision: str) -> None:
    if precision and precision not in Precision.values:
        raise UploadRejected(
            f"Unknown precision {precision!r}: use one of {', '.join(Precision.values)}.",
            field="precision",
        )


def check_asked(
    parsed: ParsedResult, *, model_profile: object, precision: str, hosted: bool = False
) -> None:
    """Refuse (nothing stored) when the file lacks what the upload did not give, or when the
    precision given contradicts the file's; one refusal names every field to fill in.

    A run against a hosted API (``hosted``) is asked neither: the API route names the model,
    and the provider's precision is not the buyer's to state."""
    _check_vocabulary(precision)
    stated = stated_precision(parsed)
    if precision and stated and precision != stated:
        raise UploadRejected(
            f"The file states it measured {stated.upper()}, not {precision.upper()}: leave "
            "the precision empty (the file's is kept) or upload the file of the "
            f"{precision.upper()} run.",
            field="precision",
        )
    if hosted:
        return
    if asked := upload_asks(parsed, model_profile=model_profile, precision=precision):
        raise UploadRejected(" ".join(m for ms in asked.values() for m in ms), fields=asked)


def upload_asks(
    parsed: ParsedResult, *, model_profile: object = None, precision: str = ""
) -> dict[str, list[str]]:
    """The fields an upload of this parse must give, each with why (empty: none): the model
    when the file names none, the precision when it states none (and no `dtype: auto`
    resolves), each only for a file with figures that depend on it."""
    asked: dict[str, list[str]] = {}
    if model_profile is None and needs_model(parsed):
        asked["model_profile"] = [MODEL_ASKED]
    if not precision and needs_precision(parsed) and not _auto_resolves(parsed, model_profile):
        asked["precision"] = [PRECISION_ASKED]
    return asked


def _auto_resolves(parsed: ParsedResult, model_profile: object) -> bool:
    """`dtype: auto` with a profile (chosen, or named by the file) that publishes its
    precision: the precision is that one, so it is not asked."""
    profile = model_profile if isinstance(model_profile, ModelProfile) else None
    if profile is None:
        profile = profile_for_name(parsed.model or "")
    return bool(auto_precision(parsed, profile))


def result_asks(result: BenchmarkResult) -> list[str]:
    """The fields a parsed result still asks for (a large file parsed after its upload)."""
    if result.status != BenchmarkResult.Status.PARSED or result.api_route_id is not None:
        return []  # a hosted API's run: its route names the model, its precision is not asked
    figures = _has_figures(result)
    # A name no profile answers to is asked too: the comparison matches on the profile.
    unbound = result.model_profile_id is None and (not result.model_name or figures)
    asks = ["model_profile"] if unbound else []
    if not result.precision and figures:
        asks.append("precision")
    return asks


def _size_contradiction(named: str, profile: ModelProfile) -> str | None:
    """A profile whose size is plainly not the one the file's name states ('…-70B' against an
    8B profile): the file is the evidence, so the pick is refused."""
    size = params_from_name(named)
    if not size or not profile.params_total_b:
        return None
    ratio = size / float(profile.params_total_b)
    if 1 / SIZE_CLASS_RATIO <= ratio <= SIZE_CLASS_RATIO:
        return None
    return (
        f"The file names its model {named} ({size:g}B); {profile.name} is "
        f"{profile.params_total_b:g}B: choose the profile of the model the file measured."
    )


def _has_figures(result: BenchmarkResult) -> bool:
    metrics = result.metrics or {}
    return any(
        metrics.get(k) is not None for k in ("output_tokens_per_s", "request_throughput_rps")
    )


@transaction.atomic
def benchmark_result_model_set(
    *,
    acting_user: User,
    result: BenchmarkResult,
    model_profile: ModelProfile | None = None,
    precision: str = "",
) -> BenchmarkResult:
    """Say which model a parsed file measured, and at which precision, when the file itself
    does not (a large file parsed on a worker is asked after its parse). What the file says,
    or what was set before, is never replaced."""

    require_role(acting_user, *access.BENCHMARK_UPLOADERS)
    _check_vocabulary(precision)
    locked = BenchmarkResult.objects.select_for_update().get(pk=result.pk)
    asks = result_asks(locked)
    if not asks:
        raise UploadRejected(
            "Only a parsed result whose file does not say its model or precision can be "
            "given them.",
            field="model_profile",
        )
    given = {
        name: value
        for name, value in (("model_profile", model_profile), ("precision", precision))
        if name in asks and value
    }
    if not given:  # each asked field is set once, on its own or together
        messages = [MODEL_ASKED if name == "model_profile" else PRECISION_ASKED for name in asks]
        raise UploadRejected(
            " ".join(messages), fields={name: [m] for name, m in zip(asks, messages, strict=True)}
        )
    summary: dict[str, str] = {}
    if model_profile is not None and "model_profile" in given:
        if locked.model_name and (wrong := _size_contradiction(locked.model_name, model_profile)):
            raise UploadRejected(wrong, field="model_profile")
        locked.model_profile = model_profile
        locked.model_name = locked.model_name or model_profile.name[:200]  # the file's stays
        summary["model_profile"] = model_profile.slug
    if "precision" in given:
        locked.precision = precision
        summary["precision"] = precision
    locked.save(update_fields=["model_profile", "model_name", "precision"])
    audit_record(
        actor=acting_user, action="benchmark_result.model_set", obj=locked, summary=summary
    )
    benchmark_plans_refresh_for_result(locked)
    return locked
