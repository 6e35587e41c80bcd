"""Issue 14: a file's model name is tied to a model profile by name or alias, and a
quantisation suffix gives the precision (pure: no database)."""

from __future__ import annotations

import pytest

from catalog.model_names import (
    ProfileNames,
    clean_aliases,
    precision_from_word,
    precision_in_name,
    resolve_model,
)

LLAMA_70B = ProfileNames(2, ("llama-3-1-70b", "Llama 3.1 70B", "meta-llama/Llama-3.1-70B"))
PROFILES = (
    ProfileNames(1, ("llama-3-1-8b", "Llama 3.1 8B")),
    LLAMA_70B,
    ProfileNames(3, ("llama-3-1-405b", "Llama 3.1 405B")),
    ProfileNames(4, ("qwen2-5-7b", "Qwen2.5 7B")),
    ProfileNames(5, ("mistral-small-24b-2501", "Mistral Small 3 24B (2501)", "mistral-small:24b")),
    ProfileNames(6, ("gemma-3-27b", "Gemma 3 27B")),
)


@pytest.mark.parametrize(
    ("name", "profile_id", "precision"),
    [
        ("llama3.1:70b", 2, ""),
        ("meta-llama/Llama-3.1-70B-Instruct", 2, ""),
        ("RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8", 2, "fp8"),
        ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8-dynamic", 2, "fp8"),
        ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", 2, "int4"),
        ("llama3.1:70b-instruct-q4_K_M", 2, "int4"),
        ("llama3.1:8b-instruct-q8_0", 1, "int8"),
        ("/data/shared-models/Qwen2.5-7B-Instruct", 4, ""),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", 4, "int4"),
        ("mistral-small:24b", 5, ""),
        ("google/gemma-3-27b-it", 6, ""),
        ("LLAMA 3.1 405B", 3, ""),
    ],
)
def test_known_names_and_aliases_bind_to_their_profile(name, profile_id, precision):
    match = resolve_model(name, PROFILES)
    assert (match.profile_id, match.precision) == (profile_id, precision)


@pytest.mark.parametrize("name", ["some-1b-model", "llama3.2:3b", "", "Qwen2.5-14B-Instruct"])
def test_an_unknown_name_binds_to_nothing(name):
    assert resolve_model(name, PROFILES).profile_id is None


def test_a_key_two_profiles_claim_binds_to_neither():
    twins = (*PROFILES, ProfileNames(9, ("my-llama", "llama3.1:70b")))
    assert resolve_model("Llama-3.1-70B-Instruct", twins).profile_id is None


def test_sizes_are_never_conflated():
    assert resolve_model("meta-llama/Llama-3.1-8B-Instruct", PROFILES).profile_id == 1
    assert resolve_model("meta-llama/Llama-3.1-80B", PROFILES).profile_id is None


@pytest.mark.parametrize(
    ("word", "precision"),
    [
        ("bfloat16", "bf16"),
        ("BF16", "bf16"),
        ("float16", "fp16"),
        ("fp8", "fp8"),
        ("fp8_e4m3", "fp8"),
        ("AWQ", "int4"),
        ("w8a8", "int8"),
        ("nvfp4", "fp4"),
        ("auto", ""),
        ("", ""),
        (None, ""),
    ],
)
def test_a_files_dtype_or_quantisation_word_maps_to_the_briefs_vocabulary(word, precision):
    assert precision_from_word(word) == precision


def test_precision_in_a_name_needs_a_suffix_not_a_model_called_so():
    assert precision_in_name("RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8") == "fp8"
    assert precision_in_name("meta-llama/Llama-3.1-70B-Instruct") == ""


def test_aliases_are_trimmed_and_each_kept_once():
    assert clean_aliases([" llama3.1:70b ", "", "LLAMA3.1:70b", "meta-llama/Llama-3.1-70B"]) == [
        "llama3.1:70b",
        "meta-llama/Llama-3.1-70B",
    ]
