"""Validate the checked-in catalog seed files (pure json + pytest, no Django)."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parents[2] / "catalog" / "data"

ACCELERATOR_KEYS = {
    "slug",
    "price_band",
    "vendor",
    "name",
    "architecture",
    "form_factor",
    "memory_gb",
    "memory_type",
    "memory_bandwidth_tbps",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "fp4_dense_tflops",
    "int8_dense_tops",
    "supported_precisions",
    "interconnect",
    "interconnect_gbps",
    "pcie_gen",
    "tdp_w",
    "mig_instances",
    "launch_year",
    "segment",
    "max_gpus_per_node",
    "source_url",
    "verified_on",
    "notes",
}
ACCELERATOR_NULLABLE = {"fp8_dense_tflops", "fp4_dense_tflops", "int8_dense_tops"}
ACCELERATOR_POSITIVE = {
    "memory_gb",
    "memory_bandwidth_tbps",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "fp4_dense_tflops",
    "int8_dense_tops",
    "interconnect_gbps",
    "pcie_gen",
    "tdp_w",
    "launch_year",
    "max_gpus_per_node",
}

MODEL_KEYS = {
    "slug",
    "name",
    "family",
    "params_total_b",
    "params_active_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "mla_latent_dim",
    "sliding_window",
    "sliding_window_layers",
    "max_context",
    "vocab_size",
    "tied_embeddings",
    "license",
    "published_precision",
    "source_url",
    "aliases",
    "notes",
}
MODEL_NULLABLE = {"mla_latent_dim", "sliding_window"}
MODEL_POSITIVE = {
    "params_total_b",
    "params_active_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "mla_latent_dim",
    "sliding_window",
    "max_context",
}

PRECISIONS = {"fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"}
SEGMENTS = {"datacenter", "workstation", "consumer"}
VENDORS = {"NVIDIA", "AMD", "Intel"}
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # Django SlugField-safe, no dots


def _load(name: str) -> list[dict]:
    with (DATA_DIR / name).open(encoding="utf-8") as fh:
        return json.load(fh)


ACCELERATORS = _load("accelerators.json")
MODELS = _load("model_profiles.json")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@pytest.mark.parametrize(("rows", "keys"), [(ACCELERATORS, ACCELERATOR_KEYS), (MODELS, MODEL_KEYS)])
def test_every_row_has_exactly_the_expected_keys(rows: list[dict], keys: set[str]) -> None:
    assert isinstance(rows, list)
    assert rows
    for row in rows:
        assert isinstance(row, dict)
        assert set(row) == keys, (row.get("slug"), set(row) ^ keys)


@pytest.mark.parametrize("rows", [ACCELERATORS, MODELS])
def test_slugs_unique_and_slug_safe(rows: list[dict]) -> None:
    slugs = [row["slug"] for row in rows]
    assert len(slugs) == len(set(slugs))
    for slug in slugs:
        assert SLUG_RE.match(slug), slug
        assert len(slug) <= 80


@pytest.mark.parametrize("rows", [ACCELERATORS, MODELS])
def test_every_row_cites_an_https_source(rows: list[dict]) -> None:
    for row in rows:
        url = row["source_url"]
        assert isinstance(url, str)
        assert url.startswith("https://"), row["slug"]
        assert " " not in url
        assert len(url) <= 500


def test_at_least_eighteen_accelerators() -> None:
    assert len(ACCELERATORS) >= 18


def test_accelerator_numbers_positive_and_types() -> None:
    for row in ACCELERATORS:
        slug = row["slug"]
        for key in ACCELERATOR_POSITIVE:
            value = row[key]
            if value is None and key in ACCELERATOR_NULLABLE:
                continue
            assert _is_number(value), (slug, key, value)
            assert value > 0, (slug, key, value)
        assert isinstance(row["mig_instances"], int)
        assert row["mig_instances"] >= 0
        for key in ("pcie_gen", "tdp_w", "launch_year", "max_gpus_per_node"):
            assert isinstance(row[key], int), (slug, key)
        assert row["vendor"] in VENDORS, slug
        assert row["segment"] in SEGMENTS, slug
        # an ISO date no later than today: when the figures were checked against the source
        today = datetime.datetime.now(tz=datetime.UTC).date().isoformat()
        assert "2026-12-02" <= row["verified_on"] <= today, slug
        precisions = row["supported_precisions"]
        assert precisions, slug
        assert set(precisions) <= PRECISIONS, (slug, precisions)
        assert len(precisions) == len(set(precisions)), slug
        assert "bf16" in precisions, slug
        # A tensor figure exists exactly when the precision is listed (int8 may be unknown).
        assert (row["fp8_dense_tflops"] is not None) == ("fp8" in precisions), slug
        assert (row["fp4_dense_tflops"] is not None) == ("fp4" in precisions), slug
        if row["int8_dense_tops"] is not None:
            assert "int8" in precisions, slug
        for text_key in ("name", "architecture", "form_factor", "memory_type", "interconnect"):
            assert isinstance(row[text_key], str), (slug, text_key)
            assert row[text_key].strip(), (slug, text_key)
        assert len(row["interconnect"]) <= 80, slug
        assert isinstance(row["notes"], str), slug


def test_dense_figures_are_ordered_sensibly() -> None:
    """Lower precision never has less dense throughput than higher precision."""
    for row in ACCELERATORS:
        chain = [row["bf16_dense_tflops"], row["fp8_dense_tflops"], row["fp4_dense_tflops"]]
        known = [value for value in chain if value is not None]
        assert known == sorted(known), row["slug"]


def test_model_numbers_positive_and_consistent() -> None:
    for row in MODELS:
        slug = row["slug"]
        for key in MODEL_POSITIVE:
            value = row[key]
            if value is None and key in MODEL_NULLABLE:
                continue
            assert _is_number(value), (slug, key, value)
            assert value > 0, (slug, key, value)
        for key in ("layers", "kv_heads", "head_dim", "attention_heads", "sliding_window_layers"):
            assert isinstance(row[key], int), (slug, key)
        assert row["params_active_b"] <= row["params_total_b"], slug
        assert row["kv_heads"] <= row["attention_heads"], slug
        assert row["attention_heads"] % row["kv_heads"] == 0, slug
        assert 0 <= row["sliding_window_layers"] <= row["layers"], slug
        assert (row["sliding_window"] is None) == (row["sliding_window_layers"] == 0), slug
        assert isinstance(row["license"], str), slug
        assert row["license"].strip(), slug
        assert len(row["license"]) <= 80, slug


def _model(slug: str) -> dict:
    return next(row for row in MODELS if row["slug"] == slug)


def test_llama_3_1_70b_kv_bytes_per_token_bf16() -> None:
    m = _model("llama-3-1-70b")
    bf16_bytes = 2
    kv_bytes = 2 * m["layers"] * m["kv_heads"] * m["head_dim"] * bf16_bytes
    assert kv_bytes == 327_680


def test_deepseek_v3_mla_latent() -> None:
    m = _model("deepseek-v3")
    assert m["mla_latent_dim"] == 512 + 64
    assert (m["params_total_b"], m["params_active_b"]) == (671, 37)


def test_sliding_window_models() -> None:
    mistral = _model("mistral-7b-v0-1")
    assert (mistral["sliding_window"], mistral["sliding_window_layers"]) == (4096, 32)
    for slug in ("gpt-oss-20b", "gpt-oss-120b"):
        m = _model(slug)
        assert m["sliding_window"] == 128
        assert m["sliding_window_layers"] * 2 == m["layers"]  # alternating
        assert m["params_active_b"] < m["params_total_b"]


def test_required_models_present() -> None:
    required = {
        "llama-3-1-8b",
        "llama-3-1-70b",
        "llama-3-1-405b",
        "llama-3-3-70b",
        "mixtral-8x7b",
        "mixtral-8x22b",
        "qwen2-5-7b",
        "qwen2-5-32b",
        "qwen2-5-72b",
        "qwen3-32b",
        "qwen3-235b-a22b",
        "mistral-7b-v0-1",
        "mistral-small-24b-2501",
        "deepseek-v3",
        "gpt-oss-20b",
        "gpt-oss-120b",
    }
    assert required <= {row["slug"] for row in MODELS}


def test_every_seeded_alias_binds_to_its_own_profile() -> None:
    """Issue 14: a file naming any alias (Hugging Face id, Ollama or LiteLLM name) is tied to
    that profile and to no other."""
    from catalog.model_names import ProfileNames, resolve_model

    profiles = [
        ProfileNames(index, (row["slug"], row["name"], *row["aliases"]))
        for index, row in enumerate(MODELS)
    ]
    for index, row in enumerate(MODELS):
        assert isinstance(row["aliases"], list), row["slug"]
        assert all(isinstance(a, str) and a.strip() for a in row["aliases"]), row["slug"]
        for name in (row["slug"], row["name"], *row["aliases"]):
            assert resolve_model(name, profiles).profile_id == index, (row["slug"], name)
