"""U11 / P17: the volume guard judges the brief's likely fleet (the median of the accelerators
a buyer would consider), not the most favourable one, relative to the model as well as in
GPUs, and the brief form says so while typing (htmx), not only after saving."""

from __future__ import annotations

import pytest

from briefs.volume import ImpliedFleet, likely_fleet, volume_echo, volume_verdict
from catalog.models import ModelProfile
from tests.briefs.test_briefs_views import _form

ECHO = volume_echo(
    {
        "workload_class": "realtime_inference",
        "monthly_accepted_outputs_likely": 400_000_000,
        "mean_output_tokens": 250,
    }
)


def test_p17_the_guard_judges_the_median_considered_fleet_not_the_smallest():
    # The finding's brief 7: 72 GB200 passed the 128-GPU guard; H100 needs 288.
    fleets = [
        ImpliedFleet(72, "GB200", 2, 36),
        ImpliedFleet(80, "B200", 2, 40),
        ImpliedFleet(200, "H200 SXM", 2, 100),
        ImpliedFleet(288, "H100 SXM", 4, 72),
        ImpliedFleet(640, "L40S", 8, 80),  # over 4 × 72: not a fleet a buyer considers
    ]
    # considered: 72, 80, 200, 288 → the upper median is the third, H200 SXM (200 GPUs)
    assert likely_fleet(fleets) == fleets[2]
    verdict = volume_verdict(ECHO, fleets, above_gpus=128, above_replicas=1000)
    assert verdict.ask
    assert verdict.reasons[0].startswith("about 200 H200 SXM GPUs at peak")
    assert "above 128 GPUs" in verdict.reasons[0]


def test_p17_a_small_model_slip_is_caught_relative_to_the_model():
    # An 8B brief: 48 GPUs at peak stays under 128, but 48 replicas of a one-GPU model is
    # far more than a service of this kind runs (a unit slip multiplies replicas).
    fleets = [
        ImpliedFleet(40, "MI355X", 1, 40),
        ImpliedFleet(48, "H100 SXM", 1, 48),
        ImpliedFleet(60, "L40S", 1, 60),
    ]
    verdict = volume_verdict(ECHO, fleets, above_gpus=128, above_replicas=32)
    assert verdict.ask
    assert verdict.reasons == ["48 replicas of the model at peak (1 H100 SXM each), above 32"]


def test_u11_an_ordinary_volume_is_not_questioned():
    fleets = [
        ImpliedFleet(10, "B200", 2, 5),
        ImpliedFleet(20, "H200 SXM", 2, 10),
        ImpliedFleet(24, "H100 SXM", 4, 6),
    ]
    verdict = volume_verdict(ECHO, fleets, above_gpus=128, above_replicas=32)
    assert not verdict.ask
    assert verdict.reasons == []


@pytest.mark.django_db
def test_u11_the_form_warns_while_typing(login, lead, catalog):
    model = ModelProfile.objects.get(slug="llama-3-1-70b")
    client = login(lead)
    ordinary = _form(model=str(model.pk), mean_output_tokens="250")
    html = client.post("/briefs/volume-check/", ordinary).content.decode()
    assert "2,000,000 answers (accepted requests), not tokens a month × 250 output tokens" in html
    assert "likely about" in html
    assert 'id="volume-warning"' not in html
    slip = {
        **ordinary,
        "monthly_accepted_outputs_low": "200000000",
        "monthly_accepted_outputs_likely": "400000000",
        "monthly_accepted_outputs_high": "600000000",
    }
    html = client.post("/briefs/volume-check/", slip).content.decode()
    assert 'id="volume-warning"' in html
    assert "Check the unit" in html
    assert 'name="confirm_volume"' in html
    # Nothing is saved by the check; the form page wires it to every change.
    form = client.get("/briefs/new/").content.decode()
    assert 'hx-post="/briefs/volume-check/"' in form


@pytest.mark.django_db
def test_u11_the_check_is_for_brief_writers_only(login, vendor_a, catalog):
    assert login(vendor_a).post("/briefs/volume-check/", _form()).status_code in (403, 404)
