"""Importing published results (MLPerf Inference) as the product's public evidence.

One import is one transaction: every result is written or none is (a failure rolls the whole
round back). Re-importing the same results changes nothing. An entry the product cannot use
— an INVALID run, a missing systems JSON, an accelerator the catalog does not know, a
benchmark with no model profile — is not an error: it is listed as skipped with its reason,
and the others are imported (docs/benchmarks.md, "Published results").

Two sources: the results repository's own layout (a folder or its archive, read by
`benchmarks.parsers.mlperf_results`), and the compact seed the product ships
(`benchmarks/data/`), which is that reader's output for MLPerf Inference v4.1 with each
result's source path and licence.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from accounts.models import User
from benchmarks import access
from benchmarks.models import PublishedResult
from benchmarks.parsers.errors import ParseError
from benchmarks.parsers.mlperf_results import (
    MLPerfResults,
    read_results_archive,
    read_results_tree,
    software_label,
)
from benchmarks.selectors.published import BENCHMARK_MODELS, benchmark_model
from catalog.importers.mlperf_names import catalog_accelerator_for
from catalog.models import Accelerator, ModelProfile
from core.audit import audit_record
from core.roles import require_role

SEED = Path(__file__).resolve().parent.parent / "data" / "mlperf_inference_v4.1.json"
LICENCE = (
    "Apache License 2.0 (mlcommons/inference_results_v4.1, LICENCE.md at the repository's root)"
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One VALID published result, as the seed stores it and the model keeps it."""

    round: str
    submitter: str
    system: str
    benchmark: str
    scenario: str
    accelerator: str  # the catalog's slug, resolved by the reader's helper
    accelerator_name: str  # as the systems JSON names it
    accelerators_per_node: int
    nodes: int
    throughput: float
    unit: str  # "tokens" or "samples"
    source_path: str
    samples_per_s: float | None = None
    ttft_limit_ms: float | None = None
    tpot_limit_ms: float | None = None
    latency_limit_ms: float | None = None
    framework: str = ""
    precision: str = ""
    system_name: str = ""
    division: str = "closed"


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


@dataclass(slots=True)
class ImportReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def imported(self) -> int:
        return self.created + self.updated + self.unchanged

    def words(self) -> str:
        return (
            f"{self.imported} published results ({self.created} new, {self.updated} updated, "
            f"{self.unchanged} unchanged), {len(self.skipped)} skipped"
        )


_KEY = ("round", "submitter", "system", "benchmark", "scenario")


def _values(entry: Entry, accelerator: Accelerator, profile: ModelProfile) -> dict[str, Any]:
    gpus = entry.accelerators_per_node * entry.nodes
    return {
        "division": entry.division,
        "system_name": entry.system_name[:300],
        "model_profile_id": profile.pk,
        "accelerator_id": accelerator.pk,
        "accelerator_name": entry.accelerator_name[:200],
        "accelerators_per_node": entry.accelerators_per_node,
        "nodes": entry.nodes,
        "gpu_count": gpus,
        "throughput": entry.throughput,
        "unit": entry.unit,
        "throughput_per_gpu": entry.throughput / gpus,
        "samples_per_s": entry.samples_per_s,
        "ttft_limit_ms": entry.ttft_limit_ms,
        "tpot_limit_ms": entry.tpot_limit_ms,
        "latency_limit_ms": entry.latency_limit_ms,
        "framework": entry.framework[:200],
        "precision": entry.precision[:16],
        "source_path": entry.source_path,
        "licence": LICENCE,
    }


def _refusal(
    entry: Entry, accelerators: dict[str, Accelerator], profiles: dict[str, ModelProfile]
) -> str | None:
    for name in (*_KEY, "source_path"):
        limit = getattr(PublishedResult._meta.get_field(name), "max_length", None) or 0
        if len(getattr(entry, name)) > limit:
            return f"its {name.replace('_', ' ')} is longer than {limit} characters"
    if entry.accelerators_per_node < 1 or entry.nodes < 1:
        return "the systems JSON gives no accelerator count (accelerators_per_node × nodes)"
    if not entry.throughput > 0:
        return "no throughput in the summary"
    if entry.accelerator not in accelerators:
        return f"accelerator {entry.accelerator_name!r} is not in the catalog"
    model = BENCHMARK_MODELS.get(benchmark_model(entry.benchmark))
    if model is None:
        return f"benchmark {entry.benchmark!r} has no model profile in the catalog"
    if model[0] not in profiles:
        return f"model profile {model[0]!r} of {entry.benchmark!r} is not loaded (load_catalog)"
    return None


@transaction.atomic
def published_results_import(
    entries: Iterable[Entry], skipped: Sequence[Skipped] = ()
) -> ImportReport:
    """Create or update one row per (round, submitter, system, benchmark, scenario); rows of
    other rounds or not in ``entries`` are left alone. Atomic: all or nothing."""
    report = ImportReport(skipped=list(skipped))
    entries = list(entries)
    accelerators = {
        a.slug: a for a in Accelerator.objects.filter(slug__in={e.accelerator for e in entries})
    }
    profiles = {
        p.slug: p
        for p in ModelProfile.objects.filter(slug__in={m for m, _ in BENCHMARK_MODELS.values()})
    }
    existing = {
        tuple(getattr(row, k) for k in _KEY): row
        for row in PublishedResult.objects.filter(round__in={e.round for e in entries})
    }
    seen: set[tuple[str, ...]] = set()
    new: list[PublishedResult] = []
    for entry in entries:
        key = tuple(getattr(entry, k) for k in _KEY)
        if key in seen:
            report.skipped.append(
                Skipped(
                    entry.source_path,
                    "the same round, submitter, system, benchmark and scenario twice",
                )
            )
            continue
        seen.add(key)
        if reason := _refusal(entry, accelerators, profiles):
            report.skipped.append(Skipped(entry.source_path, reason))
            continue
        profile = profiles[BENCHMARK_MODELS[benchmark_model(entry.benchmark)][0]]
        values = _values(entry, accelerators[entry.accelerator], profile)
        row = existing.get(key)
        if row is None:
            new.append(PublishedResult(**dict(zip(_KEY, key, strict=True)), **values))
        elif any(getattr(row, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(row, name, value)
            row.save()
            report.updated += 1
        else:
            report.unchanged += 1
    report.created = len(PublishedResult.objects.bulk_create(new))
    return report


def entries_from_reader(read: MLPerfResults) -> tuple[list[Entry], list[Skipped]]:
    """The reader's VALID results with each accelerator identified through the catalog (one
    the catalog does not name exactly is skipped with the helper's reason, never guessed),
    and everything the reader skipped."""
    catalog = list(Accelerator.objects.values("slug", "name", "form_factor", "memory_gb"))
    skipped = [Skipped(s.source_path, s.reason) for s in read.skipped]
    entries: list[Entry] = []
    for r in read.results:
        found = catalog_accelerator_for(r.accelerator_name, catalog)
        if found.slug is None:
            skipped.append(Skipped(r.source_path, f"accelerator not identified: {found.reason}"))
            continue
        tokens = r.tokens_per_s is not None and r.tokens_per_s > 0
        entries.append(
            Entry(
                round=f"MLPerf Inference {r.round}" if r.round else "MLPerf Inference",
                division=r.division,
                submitter=r.submitter,
                system=r.system,
                system_name=r.system_name,
                benchmark=r.benchmark,
                scenario=r.scenario,
                accelerator=found.slug,
                accelerator_name=r.accelerator_name,
                accelerators_per_node=r.accelerators_per_node,
                nodes=r.nodes,
                throughput=float(r.tokens_per_s if tokens and r.tokens_per_s else r.result_per_s),
                unit="tokens" if tokens else "samples",
                samples_per_s=r.samples_per_s,
                ttft_limit_ms=r.limits.ttft_ms,
                tpot_limit_ms=r.limits.tpot_ms,
                latency_limit_ms=r.limits.latency_ms,
                framework=software_label(r.framework, r.software),
                source_path=r.source_path,
            )
        )
    return entries, skipped


# The compact seed: the reader's output, with its provenance (docs/benchmarks.md).
def seed_text(entries: Sequence[Entry], skipped: Sequence[Skipped], provenance: str) -> str:
    """The seed as JSON, one result or skipped entry a line (a reviewable diff per result)."""

    def lines(items: Sequence[Any]) -> str:
        return ",\n".join("  " + json.dumps(asdict(item), ensure_ascii=False) for item in items)

    head = json.dumps({"provenance": provenance, "licence": LICENCE}, indent=1)[:-2]
    return (
        f'{head},\n "results": [\n{lines(entries)}\n ],\n "skipped": [\n{lines(skipped)}\n ]\n}}\n'
    )


_ENTRY_FIELDS = {f.name for f in fields(Entry)}


def entries_from_seed(document: dict[str, Any]) -> tuple[list[Entry], list[Skipped]]:
    """The seed document → its entries and what its export skipped (a clear error when it is
    not one)."""
    rows = document.get("results")
    if not isinstance(rows, list):
        raise ValueError("not a published-results seed: no 'results' list")
    entries = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not set(row) <= _ENTRY_FIELDS:
            raise ValueError(f"result {i + 1} of the seed is not a published result")
        try:
            entries.append(Entry(**row))
        except TypeError as exc:
            raise ValueError(f"result {i + 1} of the seed: {exc}") from exc
    skipped = [Skipped(str(s["path"]), str(s["reason"])) for s in document.get("skipped") or []]
    return entries, skipped


def published_seed_load(path: Path = SEED) -> ImportReport:
    """Load the shipped seed (idempotent: `make run` calls it every time)."""
    entries, skipped = entries_from_seed(json.loads(path.read_text(encoding="utf-8")))
    return published_results_import(entries, skipped)


def read_published(path: Path, *, round_id: str | None = None) -> MLPerfResults:
    """A results folder, or its archive (.zip, .tar.gz): the reader raises ParseError with a
    clear message for anything else."""
    if path.is_dir():
        return read_results_tree(path, round_id=round_id)
    return read_results_archive(path, round_id=round_id)


ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")


def published_results_upload(*, acting_user: User, upload: UploadedFile[Any]) -> ImportReport:
    """Import an uploaded results archive (platform engineers, as for benchmark uploads);
    ParseError says why a file is not one. Audit-logged with its counts."""
    require_role(acting_user, *access.BENCHMARK_UPLOADERS)
    name = Path(upload.name or "").name.lower()
    suffix = next((s for s in ARCHIVE_SUFFIXES if name.endswith(s)), None)
    if suffix is None:
        raise ParseError(
            "Upload the results as a .zip or .tar.gz archive of the repository's layout "
            "(closed/<submitter>/results/… and closed/<submitter>/systems/…)."
        )
    with tempfile.NamedTemporaryFile(suffix=suffix) as copy:
        for chunk in upload.chunks():
            copy.write(chunk)
        copy.flush()
        read = read_published(Path(copy.name), round_id=_round_of_name(name))
    entries, skipped = entries_from_reader(read)
    report = published_results_import(entries, skipped)
    audit_record(
        actor=acting_user,
        action="published_results.imported",
        object_type="benchmarks.publishedresult",
        summary={"file": name[:200], "imported": report.imported, "skipped": len(skipped)},
    )
    return report


def _round_of_name(name: str) -> str | None:
    """'inference_results_v4.1.zip' → 'v4.1' (None: the reader reads it from the folders)."""
    found = re.search(r"v(\d+\.\d+)", name)
    return f"v{found.group(1)}" if found else None
