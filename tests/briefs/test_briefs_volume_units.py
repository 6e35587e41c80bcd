"""The brief's volume in units nobody misreads: answers a month and tokens per answer apart,
what they derive to, and a confirmation before a volume implying a huge fleet is saved."""

from __future__ import annotations

import pytest

from briefs.models import WorkloadBrief
from briefs.volume import volume_echo
from tests.briefs.test_briefs_api import LIST, _body, _revise

pytestmark = pytest.mark.django_db

# The finding's brief: 400 M typed as tokens, read as answers of 250 output tokens.
TOKENS_AS_ANSWERS = {
    "monthly_accepted_outputs_low": 200_000_000,
    "monthly_accepted_outputs_likely": 400_000_000,
    "monthly_accepted_outputs_high": 600_000_000,
    "mean_input_tokens": 1000,
    "mean_output_tokens": 250,
}


@pytest.fixture
def as_user(api_client):
    def _as(user):
        api_client.force_authenticate(user)
        return api_client

    return _as


def test_v1_volume_derives_tokens_a_month_and_requests_per_second():
    echo = volume_echo(
        {
            "workload_class": "realtime_inference",
            "monthly_accepted_outputs_likely": 400_000_000,
            "acceptance_rate_likely": 1.0,
            "mean_output_tokens": 250,
            "peak_to_average": 2.0,
        }
    )
    assert echo is not None
    assert echo.tokens_per_month == 100_000_000_000
    assert round(echo.average_rps, 1) == round(400e6 / (730 * 3600), 1) == 152.2
    assert round(echo.peak_rps, 1) == 304.4
    assert echo.words() == (
        "400,000,000 answers (accepted requests), not tokens a month × 250 output tokens ≈ "
        "100 B output tokens a month; ≈ 152.2 requests/s on average, 304.4 at peak"
    )


def test_v1_a_volume_implying_a_huge_fleet_is_refused_until_confirmed(as_user, lead, catalog):
    # Given a brief whose volume, read as answers, implies hundreds of GPUs
    before = WorkloadBrief.objects.count()
    response = as_user(lead).post(LIST, _body(**TOKENS_AS_ANSWERS), format="json")
    # Then nothing is saved and the 400 says what the volume derives to and why it asks
    assert response.status_code == 400, response.json()
    data = response.json()
    assert data["code"] == "volume_unconfirmed"
    message = data["fields"]["monthly_accepted_outputs_likely"][0]
    assert "100 B output tokens a month" in message
    assert "GPUs at peak" in message
    assert "answers, not tokens" in message
    assert WorkloadBrief.objects.count() == before
    # When the author confirms, it is saved, and the brief states its derived volume
    response = as_user(lead).post(
        LIST, _body(**TOKENS_AS_ANSWERS, confirm_volume=True), format="json"
    )
    assert response.status_code == 201, response.json()
    volume = response.json()["volume"]
    assert volume["output_tokens_per_month"] == 100_000_000_000
    assert volume["peak_requests_per_s"] > volume["average_requests_per_s"] > 150


def test_v1_a_volume_in_answers_saves_without_asking_and_keeps_its_meaning(as_user, lead, catalog):
    # 1.6 M answers of 250 tokens: the 400 M tokens the author meant
    body = _body(
        **{
            **TOKENS_AS_ANSWERS,
            "monthly_accepted_outputs_low": 1_000_000,
            "monthly_accepted_outputs_likely": 1_600_000,
            "monthly_accepted_outputs_high": 2_000_000,
        }
    )
    response = as_user(lead).post(LIST, body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["volume"]["output_tokens_per_month"] == 400_000_000
    # A revision to the misread volume asks again; the version stays as it was
    brief = WorkloadBrief.objects.get(pk=response.json()["id"])
    response = as_user(lead).post(
        _revise(brief),
        {
            "monthly_accepted_outputs_likely": 400_000_000,
            "monthly_accepted_outputs_high": 600_000_000,
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "volume_unconfirmed"
    assert not WorkloadBrief.objects.filter(supersedes=brief).exists()


def test_v1_the_brief_page_and_rfq_text_state_the_unit_and_the_tokens(
    as_user, lead, catalog, login
):
    body = _body(
        **{
            **TOKENS_AS_ANSWERS,
            "monthly_accepted_outputs_likely": 1_600_000,
            "monthly_accepted_outputs_low": 1_000_000,
            "monthly_accepted_outputs_high": 2_000_000,
        }
    )
    brief_id = as_user(lead).post(LIST, body, format="json").json()["id"]
    client = login(lead)
    html = client.get(f"/briefs/{brief_id}/").content.decode()
    assert "1,600,000 answers (accepted requests), not tokens a month × 250 output tokens" in html
    assert "400 M output tokens a month" in html
    html = client.get(f"/catalog/rfqs/new/?brief={brief_id}").content.decode()
    assert "about 1,600,000 accepted answers (requests) a month × 250 output tokens" in html
