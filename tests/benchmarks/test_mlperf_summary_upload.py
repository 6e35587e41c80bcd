"""Issue 36 part 6, MLPerf `summary.csv` uploads (round-4 findings F7, F8): the precision is read
from `weight_data_types`; rows of different systems, models or scenarios are separate results,
never one sweep; each row per GPU by its own GPU count, the headline's included."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from benchmarks.models import BenchmarkResult
from benchmarks.parsers import parse

HEADER = (
    "Organization,Availability,Division,SystemType,SystemName,Platform,Model,MlperfModel,"
    "Scenario,Result,Accuracy,number_of_nodes,accelerator_model_name,accelerators_per_node,"
    "framework,version,weight_data_types,Units\n"
)
# A 9-node 72-GPU system and an 8-GPU one; gpt-oss Offline on both, llama2 Server on one.
ROWS = (
    "AMD,available,closed,datacenter,MI355X x72,p,gpt-oss-120b,gpt-oss-120b,Offline,"
    "1039900,a,9,AMD Instinct MI355X,8,vLLM,v6.1,mxfp4,Tokens/s\n"
    "AMD,available,closed,datacenter,MI355X x8,p,gpt-oss-120b,gpt-oss-120b,Offline,"
    "121818,a,1,AMD Instinct MI355X,8,vLLM,v6.1,fp4,Tokens/s\n"
    "AMD,available,closed,datacenter,MI355X x8,p,llama2-70b-99.9,llama2-70b-99.9,Server,"
    "90000,a,1,AMD Instinct MI355X,8,vLLM,v6.1,fp4,Tokens/s\n"
)


def test_f8_rows_of_different_systems_models_or_scenarios_are_never_one_sweep() -> None:
    result = parse((HEADER + ROWS).encode(), "summary.csv")
    assert result.format_id == "mlperf-inference-summary"
    # not load levels of one sweep: the headline's own point only
    assert [p.output_tokens_per_s for p in result.operating_points] == [1039900.0]
    assert len(result.runs) == 3
    # the headline is the first row, on its own 72 GPUs: 1,039,900 / 72 = 14,443.06 per GPU
    assert result.metrics.gpus == 72
    assert result.metrics.output_tokens_per_s == 1039900.0
    rows = [run.extra for run in result.runs]
    assert [run.metrics.gpus for run in result.runs] == [72, 8, 8]
    assert rows[0]["result_per_gpu"] == pytest.approx(14443.0556, rel=1e-6)
    assert rows[1]["result_per_gpu"] == pytest.approx(15227.25)  # 121,818 / 8
    assert rows[2]["result_per_gpu"] == pytest.approx(11250.0)  # 90,000 / 8
    assert "not one sweep" in result.notes[0]
    assert "14,443.1 per GPU" in result.notes[0]


def test_f7_the_precision_is_the_rows_weight_data_types() -> None:
    result = parse((HEADER + ROWS).encode(), "summary.csv")
    assert result.extra["weight_precision"] == "mxfp4"  # the headline row's


@pytest.fixture
def token_client(api_client, engineer):
    _, key = AuthToken.objects.create(user=engineer)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


@pytest.mark.django_db
def test_an_upload_of_the_summary_needs_no_precision_and_divides_by_the_rows_own_gpus(
    token_client,
):
    from tests.factories import AcceleratorFactory

    acc = AcceleratorFactory(slug="mi355x-288gb", name="Instinct MI355X 288GB", vendor="AMD")
    body = {
        "accelerator": acc.slug,
        "gpu_count": 8,
        "file": SimpleUploadedFile("summary.csv", (HEADER + ROWS).encode()),
    }
    response = token_client.post("/api/v1/benchmark-results/", body, format="multipart")
    assert response.status_code == 201, response.json()  # F7: no precision asked
    result = BenchmarkResult.objects.get()
    assert result.precision == "fp4"  # mxfp4 in the brief's vocabulary
    # F8: the 72-GPU headline is divided by its own 72 GPUs, not by the 8 uploaded
    assert result.gpu_count == 72
    figures = token_client.get(f"/api/v1/benchmark-results/{result.pk}/").json()
    per_gpu = figures.get("tokens_per_s_per_gpu") or figures["figures"]["tokens_per_s_per_gpu"]
    assert per_gpu == pytest.approx(1039900 / 72)
    assert any("ran on 72 GPUs" in note for note in result.parse_notes)
