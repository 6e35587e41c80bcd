"""The GPU identity rules on their own (no database): what a row states, and nothing more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.importers.identity import FAMILIES, FORM_NAMES, identify
from catalog.importers.instances import gpu_of_instance, gpu_of_upstream

ACCELERATORS = json.loads(
    (Path(__file__).resolve().parents[2] / "catalog/data/accelerators.json").read_text()
)
CATALOG = {a["slug"]: a for a in ACCELERATORS}
KNOWN = set(CATALOG)
VARIANTS = [v for variants in FAMILIES.values() for v in variants]
CATALOG_FORMS = {"SXM": "sxm", "PCIe": "pcie", "NVL (PCIe)": "nvl", "OAM": "oam"}


def test_the_variant_table_is_the_catalog_s_accelerators():
    """Each catalog GPU is a variant of one family with its datasheet form factor and memory,
    so a card added to the catalog without its family entry is caught here."""
    assert sorted(v.slug for v in VARIANTS) == sorted(KNOWN)
    for variant in VARIANTS:
        row = CATALOG[variant.slug]
        assert variant.memory_gb == row["memory_gb"], variant.slug
        assert CATALOG_FORMS.get(row["form_factor"], row["form_factor"].lower()) == variant.form
        if variant.memory_type:
            assert variant.memory_type == row["memory_type"].lower(), variant.slug


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.slug)
def test_a_name_stating_form_factor_memory_and_edition_is_that_variant(variant):
    family = next(f for f, vs in FAMILIES.items() if variant in vs)
    name = f"{family.upper()} {FORM_NAMES[variant.form]} {variant.memory_gb}GB {variant.edition}"
    assert identify(name, KNOWN).slug == variant.slug


@pytest.mark.parametrize(
    "family", [f for f, vs in FAMILIES.items() if len(vs) > 1], ids=lambda f: f
)
def test_a_bare_family_name_with_several_variants_is_unknown_with_the_reason(family):
    found = identify(family.upper(), KNOWN)
    assert found.slug is None
    assert "not stated" in found.reason


@pytest.mark.parametrize(
    ("name", "kwargs", "slug", "reason"),
    [
        # F3: a bare V100 whose GpuInfo says 16 GB is still SXM2 or PCIe.
        ("V100", {"gpu_info": "{'MemoryInfo': {'SizeInMiB': 16384}}"}, None, "SXM or PCIe"),
        # The memory alone settles it where only one variant has that size.
        ("V100", {"gpu_info": "{'MemoryInfo': {'SizeInMiB': 32768}}"}, "v100-sxm2-32gb", ""),
        ("H100", {"gpu_info": "{'MemoryInfo': {'SizeInMiB': 95830}}"}, "h100-nvl-94gb", ""),
        # F2: Cudo's `-pci_` instance type and 81920 MiB.
        (
            "A100",
            {
                "form_texts": ("intel-ice-lake-a100-pci_1x2v4gb",),
                "gpu_info": "{'MemoryInfo': {'SizeInMiB': 81920}}",
            },
            "a100-pcie-80gb",
            "",
        ),
        # A size in an instance type is host RAM, not GPU memory.
        ("A100", {"form_texts": ("epyc-genoa-a100-pcie_1x2v40gb",)}, None, "40 GB or 80 GB"),
        # Texts that disagree are not settled by picking one.
        ("H100-80G-PCIe", {"form_texts": ("n3-H100-SXM5x8",)}, None, "both PCIe and SXM"),
        ("A10G", {}, "a10g-24gb", ""),  # 10 is no memory size
        ("L40S", {"form_texts": ("some-l40s-sxm",)}, None, "no L40S variant is SXM"),
        ("RTX PRO 6000 Blackwell Server Edition", {}, "rtx-pro-6000-blackwell-server-96gb", ""),
        ("RTXPRO6000", {}, None, "edition not stated"),
    ],
)
def test_what_the_row_states_decides(name, kwargs, slug, reason):
    found = identify(name, KNOWN, **kwargs)
    assert found.slug == slug
    assert reason in found.reason


@pytest.mark.parametrize(
    ("instance", "upstream", "slug"),
    [
        ("hyperstack__1xH100_80GB__28__180", "n3-H100x1", "h100-pcie-80gb"),
        ("hyperstack__8xH100_80GB__192__1800", "n3-H100-SXM5x8", "h100-sxm-80gb"),
        ("hyperstack__8xA100_80GB__252__1440", "n3-A100x8-NVLink", "a100-pcie-80gb"),
        ("lambdalabs__8xA100_40GB__124__1800", "gpu_8x_a100", "a100-sxm-40gb"),
        ("lambdalabs__1xA100_40GB__30__200", "gpu_1x_a100", "a100-pcie-40gb"),
        ("datacrunch__8xH100_80GB__176__1480", "8H100.80S.176V", "h100-sxm-80gb"),
        ("runpod__1xA100_80GB__8__117", "1x_A100-80GB_SECURE", "a100-pcie-80gb"),
    ],
)
def test_an_aggregator_row_is_its_upstream_cloud_s_instance(instance, upstream, slug):
    found = gpu_of_upstream(instance, upstream)
    assert found is not None
    assert found.slug == slug


def test_an_upstream_the_tables_do_not_know_names_nothing():
    assert gpu_of_upstream("oblivus__1xA100_80GB__28__120", "A100_PCIE_80GB") is None
    assert gpu_of_upstream("hyperstack__1xH100_80GB__28__180", "") is None
    assert gpu_of_instance("hyperstack", "n3-RTX-A4000x1").slug is None  # type: ignore[union-attr]
