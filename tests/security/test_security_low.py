"""Low findings fixed in code: L1, L3, L12, L15 (the others: docs/security.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from kombu.exceptions import OperationalError

from core import jobs

pytestmark = pytest.mark.django_db


def test_deeply_nested_json_on_checklist_answers_is_a_400(vendor_a):
    """L1: the checklist answer endpoint uses SafeJSONParser like every other JSON endpoint."""
    from tests.factories import QuoteFactory

    quote = QuoteFactory(provider=vendor_a.provider)
    client = Client()
    client.force_login(vendor_a)
    body = "[" * 100_000 + "]" * 100_000
    response = client.post(
        f"/api/v1/quotes/{quote.pk}/checklist/answers/", body, content_type="application/json"
    )
    assert response.status_code == 400


@pytest.mark.django_db(transaction=True)
def test_the_worker_probe_reports_a_broker_outage(admin_member, monkeypatch):
    """L3: POST to the worker probe with the broker down says so instead of a 500."""

    def down(*args: object, **kwargs: object) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(jobs, "send", down)
    client = Client()
    client.force_login(admin_member)
    response = client.post("/system/worker-probe/", follow=True)
    assert response.status_code == 200
    assert "broker is unreachable" in response.content.decode()


@pytest.mark.parametrize("url", ["/", "/api/v1/quotes/", "/audit/"])
def test_authenticated_responses_are_not_stored(admin_member, url):
    """L12: authenticated HTML and JSON carry Cache-Control: private, no-store."""
    client = Client()
    client.force_login(admin_member)
    response = client.get(url)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


def test_make_run_does_not_keep_persistent_connections(tmp_path):
    """L15: `make run`'s runserver (one connection per thread) gets settings whose database
    connections are not kept. The real script runs, with stand-ins for python and celery that
    record what runserver was started with; then those settings are loaded for real."""
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "scripts").mkdir()
    shutil.copy(root / "scripts" / "run.sh", tmp_path / "scripts" / "run.sh")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    record = tmp_path / "runserver.env"
    stub = f"""#!/usr/bin/env bash
case "$*" in *runserver*) echo "${{DB_CONN_MAX_AGE-unset}}" > {record} ;; esac
exit 0
"""
    for name in ("python", "celery"):
        (bin_dir / name).write_text(stub)
        (bin_dir / name).chmod(0o755)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "run.sh")],
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    conn_max_age = record.read_text().strip()
    assert conn_max_age == "0"
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "from config import settings; print(settings.DATABASES['default']['CONN_MAX_AGE'])",
        ],
        cwd=root,
        env={**os.environ, "DEBUG": "true", "DB_CONN_MAX_AGE": conn_max_age},
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert loaded.stdout.decode().strip() == "0"


@pytest.mark.parametrize(
    "query",
    [
        "quote=abc",
        "brief=abc",
        "status=a%00b",
        "accelerator=%00",
        "format=x%00",
        "quote=1%00",
        "brief=%00",
        "brief=2%00",
        "status=%00",
    ],
)
def test_benchmark_list_filters_refuse_junk_with_a_400(engineer, query):
    """L2: /benchmarks/ with a non-numeric id or a NUL byte in a filter is a 400, not a 500."""
    client = Client()
    client.force_login(engineer)
    assert client.get(f"/benchmarks/?{query}").status_code == 400


def test_a_parse_error_does_not_show_the_interpreters_text():
    """L14: a 100,000-digit integer in a benchmark JSON gives a clear 400 message without
    Python's internal text (sys.set_int_max_str_digits)."""
    from benchmarks import parsers
    from benchmarks.parsers.errors import ParseError

    body = b'{"date": "20240101-000000", "backend": "vllm", "completed": ' + b"9" * 100_000 + b"}"
    with pytest.raises(ParseError) as caught:
        parsers.parse(body, "huge.json")
    assert "set_int_max_str_digits" not in caught.value.message
    assert "4300" not in caught.value.message


def test_l7_vendors_never_see_the_buyers_custom_models(lead, vendor_a):
    """L7: a lead's custom model (its name, notes and author) is not listed to a vendor by the
    model API or the memory-fit page, and naming it gets the same 404 / 400 as a made-up
    slug; staff still see it."""
    from tests.factories import ModelProfileFactory

    ModelProfileFactory()  # a reference model, seen by everyone
    ModelProfileFactory(
        slug="falcon-internal-300b",
        name="Project Falcon internal 300B",
        notes="M&A due diligence model, confidential",
        is_custom=True,
        created_by=lead,
    )
    vendor, staff = Client(), Client()
    vendor.force_login(vendor_a)
    staff.force_login(lead)

    listed = [m["slug"] for m in vendor.get("/api/v1/models/").json()["results"]]
    assert listed == ["llama-3-1-70b"]
    assert "falcon-internal-300b" in str(staff.get("/api/v1/models/").json())
    secret = vendor.get("/api/v1/models/falcon-internal-300b/")
    made_up = vendor.get("/api/v1/models/no-such-model/")
    assert secret.status_code == made_up.status_code == 404
    assert staff.get("/api/v1/models/falcon-internal-300b/").status_code == 200

    page = vendor.get("/briefs/memory-fit/").content.decode()
    assert "Llama 3.1 70B" in page
    assert "Project Falcon" not in page
    assert "Project Falcon" in staff.get("/briefs/memory-fit/").content.decode()

    def fit(client: Client, slug: str):
        body = {
            "model": slug,
            "mode": "inference",
            "weight_precision": "bf16",
            "kv_precision": "bf16",
            "context_tokens": 8192,
            "concurrent_sequences": 8,
            "accelerator": "h100-sxm-80gb",
        }
        return client.post("/api/v1/memory-fit/", body, content_type="application/json")

    refused, unknown = fit(vendor, "falcon-internal-300b"), fit(vendor, "no-such-model")
    assert refused.status_code == unknown.status_code == 400
    assert "Project Falcon" not in refused.content.decode()
    assert "Unknown model" in refused.content.decode()


def _token_in(html: str) -> str:
    import re

    found = re.search(r'name="submission" value="([^"]+)"', html)
    assert found, "the form carries no submission token"
    return found.group(1)


def test_l10_a_double_submitted_vendor_quote_makes_one_quote(vendor_a, provider_a, lead):
    """L10: the same quote form posted twice (a double click, a replay) makes one quote; the
    second post is sent to the first one's page. Parallel twins wait on the token's unique
    row and find it taken the same way."""
    from django.utils import timezone

    from catalog.models import Quote
    from tests.factories import AcceleratorFactory, RfqFactory

    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB", max_gpus_per_node=8)
    rfq = RfqFactory(title="64 H100s", providers=[provider_a], created_by=lead)
    client = Client()
    client.force_login(vendor_a)
    url = f"/vendor/rfqs/{rfq.pk}/quote/"
    body = {
        "accelerator": h100.pk,
        "capacity_model": "reserved",
        "currency": "EUR",
        "price_per_gpu_hour": "2.10",
        "gpus_per_node": "8",
        "term_months": "12",
        "min_commitment_gpus": "32",
        "quoted_at": timezone.now().strftime("%Y-%m-%dT%H:%M"),
        "inter_node_fabric": "InfiniBand NDR",
        "submission": _token_in(client.get(url).content.decode()),
    }
    first, second = client.post(url, body), client.post(url, body)
    quote = Quote.objects.get()
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == f"/vendor/quotes/{quote.pk}/"
    fresh = {**body, "submission": _token_in(client.get(url).content.decode())}
    assert client.post(url, fresh).status_code == 302  # a new form: a new quote
    assert Quote.objects.count() == 2


def test_l10_a_double_submitted_comparison_form_makes_one_comparison(lead):
    """L10: the comparison form posted twice with its token makes one comparison."""
    from procurement.models import Comparison
    from tests.comparisons.factories_comparisons import scenario_quotes
    from tests.reliability.factories_reliability import complete_brief

    cheap, fast = scenario_quotes(lead)
    brief = complete_brief(lead)
    client = Client()
    client.force_login(lead)
    page = client.get(f"/comparisons/new/?brief={brief.pk}").content.decode()
    body = {
        "brief": brief.pk,
        "quotes": [str(cheap.pk), str(fast.pk)],
        "submission": _token_in(page),
    }
    first, second = client.post("/comparisons/new/", body), client.post("/comparisons/new/", body)
    comparison = Comparison.objects.get()
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == comparison.get_absolute_url()


def test_l5_a_request_that_ends_before_its_first_token_is_refused():
    """L5: e2e 1 ms with a TTFT of 5 ms gave tpot -0.03 ms and 256,000 tok/s; such a file is
    now refused with the request named (a request cannot end before its first token)."""
    from benchmarks import parsers
    from benchmarks.parsers.errors import ParseError

    header = "start_time,ttft_ms,itl_ms,e2e_ms,input_tokens,output_tokens,status,accepted\n"
    good = "2026-01-15T09:30:00.000Z,182.4,21.7,2921.6,1024,128,ok,yes\n"
    bad = "2026-01-15T09:30:00.250Z,5,0.01,1,1024,128,ok,yes\n"
    assert parsers.parse((header + good + good).encode(), "requests.csv")
    with pytest.raises(ParseError) as caught:
        parsers.parse((header + good + bad).encode(), "requests.csv")
    message = str(caught.value)
    assert "request 2" in message
    assert "shorter than the time to first token" in message


@pytest.mark.parametrize("field", ["term_months", "amortisation_months"])
def test_l6_a_term_beyond_ten_years_is_refused_with_the_field_named(field):
    """L6: term_months and amortisation_months of 10^9 were accepted (a $1 node amortised
    over 10^9 months was free); at most 120 months now, like a comparison's horizon."""
    from catalog.validation import quote_rule_errors
    from engine.limits import MAX_TERM_MONTHS

    assert MAX_TERM_MONTHS == 120
    for months, refused in ((120, False), (121, True), (10**9, True)):
        errors = quote_rule_errors({field: months}, accelerator=None)
        assert (field in errors) is refused, (months, errors.get(field))


def test_l8_an_implausible_fx_rate_is_refused(finance):
    """L8: GBP→USD 0.000001 was accepted; a rate outside 0.00001–10,000, or more than twice
    or under half the currency's newest rate, is refused with a message and not saved."""
    from datetime import date
    from decimal import Decimal

    from catalog.errors import CatalogInvalid
    from catalog.models import FxRate
    from catalog.services.reference import fx_rate_create

    def create(rate: str, day: int) -> FxRate:
        data = {"currency": "GBP", "rate_to_base": Decimal(rate), "as_of": date(2026, 11, day)}
        return fx_rate_create(acting_user=finance, data=data)

    with pytest.raises(CatalogInvalid) as absurd:
        create("0.000001", 1)
    assert "outside every real rate" in str(absurd.value.fields["rate_to_base"])
    create("1.27", 2)
    with pytest.raises(CatalogInvalid) as jump:
        create("12.7", 3)  # a slipped decimal point
    assert "More than twice" in str(jump.value.fields["rate_to_base"])
    create("1.31", 3)
    assert list(FxRate.objects.values_list("rate_to_base", flat=True).order_by("as_of")) == [
        Decimal("1.27"),
        Decimal("1.31"),
    ]


def test_l7_vendors_see_buyer_staff_as_buyer_not_by_username(vendor_a, provider_a, lead, engineer):
    """L7: a vendor reading their quote and its checklist sees "buyer", not `lead` or
    `engineer` (staff usernames help guess logins, M2 and H1); staff still see usernames and
    a vendor still sees their own colleagues'."""
    from tests.checklist.factories_checklist import AnswerFactory, ReviewFactory
    from tests.factories import QuoteFactory

    by_lead = QuoteFactory(provider=provider_a, entered_by=lead)
    by_vendor = QuoteFactory(provider=provider_a, entered_by=vendor_a, title="own")
    answer = AnswerFactory(provider=provider_a, quote=by_lead, answered_by=vendor_a)
    ReviewFactory(answer=answer, reviewer=engineer, decision="accepted")
    vendor, staff = Client(), Client()
    vendor.force_login(vendor_a)
    staff.force_login(lead)

    assert vendor.get(f"/api/v1/quotes/{by_lead.pk}/").json()["entered_by"] == "buyer"
    assert vendor.get(f"/api/v1/quotes/{by_vendor.pk}/").json()["entered_by"] == "vendor_a"
    assert staff.get(f"/api/v1/quotes/{by_lead.pk}/").json()["entered_by"] == "lead"
    listed = {q["id"]: q["entered_by"] for q in vendor.get("/api/v1/quotes/").json()["results"]}
    assert listed == {by_lead.pk: "buyer", by_vendor.pk: "vendor_a"}

    def reviewers(client: Client) -> list[str]:
        body = client.get(f"/api/v1/quotes/{by_lead.pk}/checklist/").json()
        return [r["reviewer"] for i in body["items"] if i["answer"] for r in i["answer"]["reviews"]]

    assert reviewers(vendor) == ["buyer"]
    assert reviewers(staff) == ["engineer"]
    # The answer page lists the reviews of earlier versions of an answer.
    AnswerFactory(
        provider=provider_a,
        quote=by_lead,
        item=answer.item,
        answered_by=vendor_a,
        supersedes=answer,
    )
    answer_page = vendor.get(f"/checklist/quotes/{by_lead.pk}/answer/").content.decode()
    assert "the buyer's reviewer" in answer_page
    assert "engineer," not in answer_page
    assert "engineer," in staff.get(f"/checklist/quotes/{by_lead.pk}/").content.decode()
