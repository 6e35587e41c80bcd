"""The pure import parsers: bytes in, rows and every error out (no database, no Django)."""

from __future__ import annotations

import ast
import json
from decimal import Decimal
from pathlib import Path

import pytest

from catalog.importers.common import ImportFileError
from catalog.importers.identity import identify
from catalog.importers.litellm import parse_litellm_prices
from catalog.importers.names import model_profile_slug_for
from catalog.importers.price_list import parse_price_list, template_csv
from catalog.importers.skypilot import parse_skypilot_vms

KNOWN = {"h100-sxm-80gb", "a100-sxm-80gb", "a100-sxm-40gb", "l4-24gb", "l40s-48gb"}
HEADER = "provider,accelerator,capacity_model,currency,price_per_gpu_hour,gpus_per_node,region\n"
GOOD = "northwind,h100-sxm-80gb,on_demand,USD,2.49,8,eu-west\n"


def test_importers_import_nothing_from_django():
    folder = Path(__file__).resolve().parents[2] / "catalog" / "importers"
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert not name.startswith(("django", "rest_framework", "catalog.models")), path


def test_template_parses_cleanly():
    result = parse_price_list(template_csv().encode())
    assert result.errors == []
    assert [r.provider for r in result.rows] == ["northwind", "contoso"]
    assert result.rows[0].values["price_per_gpu_hour"] == Decimal("2.99")


def test_price_list_rows_are_typed_and_numbered_like_a_spreadsheet():
    result = parse_price_list((HEADER + GOOD + GOOD).encode("utf-8-sig"))
    assert [r.row for r in result.rows] == [2, 3]
    assert result.rows[0].values["gpus_per_node"] == 8


@pytest.mark.parametrize(
    ("line", "column", "fragment"),
    [
        ("northwind,h100,on_demand,USD,abc,8,eu\n", "price_per_gpu_hour", "not a number"),
        ('northwind,h100,on_demand,USD,"2,49",8,eu\n', "price_per_gpu_hour", "dot for decimals"),
        ("northwind,h100,on_demand,USD,2.49,8.5,eu\n", "gpus_per_node", "whole number"),
        ("northwind,h100,on_demand,USD,=1+1,8,eu\n", "price_per_gpu_hour", "Formula"),
        ("northwind,h100,on_demand,USD,2.49,8,@SUM(A1)\n", "region", "Formula"),
        (",h100,on_demand,USD,2.49,8,eu\n", "provider", "Required"),
        ("northwind,h100,on_demand,USD,2.49,8,eu,extra\n", None, "more cells"),
    ],
)
def test_price_list_row_errors_name_row_and_column(line, column, fragment):
    result = parse_price_list((HEADER + GOOD + line).encode())
    assert [r.shape_ok for r in result.rows] == [True, False]
    assert [(e.row, e.column) for e in result.errors] == [(3, column)]
    assert fragment in result.errors[0].message


def test_source_url_must_be_a_web_address():
    header = HEADER.strip() + ",source_url\n"
    result = parse_price_list((header + GOOD.strip() + ",javascript:alert(1)\n").encode())
    assert [(e.row, e.column) for e in result.errors] == [(2, "source_url")]


def test_negative_numbers_are_not_formulas():
    result = parse_price_list((HEADER + GOOD.replace("2.49", "-2.49")).encode())
    assert result.errors == []
    assert result.rows[0].values["price_per_gpu_hour"] == Decimal("-2.49")


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"", "empty"),
        ((HEADER + GOOD).encode("utf-16"), "NUL bytes"),
        (b"provider;accelerator\nx;y\n", "Missing column"),
        (b"\xff\xfeprovider," + GOOD.encode(), "not UTF-8"),
        ((HEADER.strip() + ",secret\n" + GOOD).encode(), "Unknown column"),
        ((HEADER + 'a,b,c,d,e,f,"unterminated\n').encode(), "malformed"),
    ],
)
def test_unreadable_files_are_refused_with_a_clear_reason(data, fragment):
    with pytest.raises(ImportFileError, match=fragment):
        parse_price_list(data)


def test_huge_files_are_refused_before_parsing(monkeypatch):
    from catalog.importers import common

    monkeypatch.setattr(common, "MAX_BYTES", 100)
    with pytest.raises(ImportFileError, match="limit"):
        common.decode_text(b"x" * 101, max_bytes=common.MAX_BYTES)


def test_header_only_is_an_error():
    assert "no quote rows" in parse_price_list(HEADER.encode()).errors[0].message


# --- SkyPilot ----------------------------------------------------------------------------------

AWS_VMS = (
    (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
        "Region,AvailabilityZone\n"
    )
    + """m5.large,,,2.0,8.0,,0.096,0.035,us-east-1,use1-az1
p5.48xlarge,H100,8.0,192.0,2048.0,"{'Gpus': [{'Name': 'H100'}]}",98.32,39.33,us-east-1,use1-az2
p4de.24xlarge,A100-80GB,8.0,96.0,1152.0,,40.96,,us-east-1,use1-az4
g6.xlarge,L4,1.0,4.0,16.0,,0.805,0.31,eu-west-1,euw1-az1
g5.xlarge,A10G,1.0,4.0,16.0,,1.006,0.4,eu-west-1,euw1-az1
trn1.2xlarge,Trainium,1.0,8.0,32.0,,1.34375,,us-east-1,use1-az1
fractional,A100,0.5,4.0,16.0,,1.0,,us-east-1,
"""
)
LAMBDA_VMS = (
    (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
        "SpotPrice\n"
    )
    + """gpu_8x_a100,A100,8.0,124.0,1800.0,10.32,us-east-1,,
gpu_1x_h100_pcie,H100,1.0,26.0,200.0,2.49,us-west-1,,
"""
)


def test_skypilot_vms_gives_per_gpu_prices_for_on_demand_and_spot():
    result = parse_skypilot_vms(AWS_VMS.encode())
    assert result.errors == []
    p5 = next(r for r in result.rows if r.instance_type == "p5.48xlarge")
    assert p5.on_demand_per_gpu_hour == Decimal("12.2900")  # 98.32 / 8
    assert p5.spot_per_gpu_hour == Decimal("4.9163")  # 39.33 / 8, rounded half up
    assert p5.zone == "use1-az2"
    assert p5.ram_gb == 2199  # 2048 GiB in GB
    p4 = next(r for r in result.rows if r.instance_type == "p4de.24xlarge")
    assert p4.spot_per_gpu_hour is None
    assert result.skipped["CPU-only instance (no accelerator)"] == 1
    assert result.skipped["fractional or zero accelerator count (shared GPU)"] == 1


def test_skypilot_column_order_may_differ_between_clouds():
    result = parse_skypilot_vms(LAMBDA_VMS.encode())
    assert [r.on_demand_per_gpu_hour for r in result.rows] == [Decimal("1.2900"), Decimal("2.4900")]


def test_skypilot_bad_price_is_a_row_error():
    bad = AWS_VMS.replace("40.96", "forty")
    result = parse_skypilot_vms(bad.encode())
    assert [(e.row, e.column) for e in result.errors] == [(4, "Price")]


# --- LiteLLM -------------------------------------------------------------------------------------

LITELLM = {
    "sample_spec": {"input_cost_per_token": 0, "litellm_provider": "one of ..."},
    "gpt-4o-mini": {
        "input_cost_per_token": 1.5e-07,
        "output_cost_per_token": 6e-07,
        "cache_read_input_token_cost": 7.5e-08,
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": 128000,
    },
    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo": {
        "input_cost_per_token": 8.8e-07,
        "output_cost_per_token": 8.8e-07,
        "litellm_provider": "together_ai",
        "mode": "chat",
    },
    "text-embedding-3-small": {
        "input_cost_per_token": 2e-08,
        "output_cost_per_token": 0,
        "litellm_provider": "openai",
        "mode": "embedding",
    },
    "free-model": {
        "input_cost_per_token": 0,
        "output_cost_per_token": 0,
        "litellm_provider": "openai",
        "mode": "chat",
    },
}


def test_litellm_prices_become_per_million_tokens_exactly():
    result = parse_litellm_prices(json.dumps(LITELLM).encode())
    assert result.errors == []
    by_key = {r.key: r for r in result.rows}
    mini = by_key["gpt-4o-mini"]
    assert (mini.input_per_m, mini.output_per_m) == (Decimal("0.15"), Decimal("0.6"))
    assert mini.cached_input_per_m == Decimal("0.075")
    llama = by_key["together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo"]
    assert llama.model_name == "meta-llama/Llama-3.3-70B-Instruct-Turbo"
    assert llama.litellm_provider == "together_ai"
    assert sum(result.skipped.values()) == 2


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"a": {"input_cost_per_token": NaN}}', "not valid JSON"),
        ('{"a": {}, "a": {}}', "duplicate"),
        ("[1, 2]", "JSON object"),
        ("[" * 100_000 + "]" * 100_000, "deeply"),
    ],
)
def test_litellm_bad_json_is_refused(text, fragment):
    with pytest.raises(ImportFileError, match=fragment):
        parse_litellm_prices(text.encode())


def test_litellm_entry_errors_name_the_entry():
    data = {
        "m": {
            "input_cost_per_token": "cheap",
            "output_cost_per_token": 1e-06,
            "litellm_provider": "openai",
            "mode": "chat",
        }
    }
    result = parse_litellm_prices(json.dumps(data).encode())
    assert [(e.row, e.column) for e in result.errors] == [("m", "input_cost_per_token")]


# --- Name tables ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        # A name that leaves the variant open is no default look-alike (issue 37 F3).
        ("H100", None),
        ("A100-80GB", None),
        ("A100", None),
        ("H100 SXM", "h100-sxm-80gb"),
        ("NVIDIA-H100-80GB-HBM3", "h100-sxm-80gb"),
        ("A100-SXM4-80GB", "a100-sxm-80gb"),
        ("A100 SXM 40GB", "a100-sxm-40gb"),
        ("L4", "l4-24gb"),
        ("l40s", "l40s-48gb"),
        ("h100-sxm-80gb", "h100-sxm-80gb"),
        ("A10G", None),
        ("Trainium", None),
        ("H200", None),
    ],
)
def test_accelerator_names_map_only_to_the_variant_they_state(name, slug):
    assert identify(name, KNOWN).slug == slug


def test_model_profile_match_prefers_the_longest_name():
    slugs = {"qwen2-5-7b", "qwen2-5-72b", "llama-3-3-70b"}
    assert model_profile_slug_for("Qwen/Qwen2.5-72B-Instruct", slugs) == "qwen2-5-72b"
    assert model_profile_slug_for("meta-llama/Llama-3.3-70B-Instruct-Turbo", slugs) == (
        "llama-3-3-70b"
    )
    assert model_profile_slug_for("gpt-4o-mini", slugs) is None
