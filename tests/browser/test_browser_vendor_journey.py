"""Journey 1 (PRODUCT.md): a vendor answers an RFQ with a quote and the checklist in minutes;
then the checklist review loop (an engineer asks for more, the vendor answers, it is accepted).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from catalog.models import Quote
from checklist.models import ChecklistAnswer
from tests.factories import AcceleratorFactory, RfqFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The smallest file the evidence check accepts as a PDF: the magic bytes and an end marker.
MINIMAL_PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
HARDWARE = "gpu-model-node-shape"
REGION = "region-placement"
# The current answer of an item (earlier answers sit below it, in .checklist-history).
CURRENT_VERDICT = ":scope > .checklist-answer [data-review-status]"
CURRENT_TEXT = ":scope > .checklist-answer .checklist-answer-text"


@pytest.fixture
def rfqs(lead, provider_a, provider_b):
    """One RFQ addressed to provider A (the vendor's), one addressed only to provider B."""
    h100 = AcceleratorFactory(slug="h100-sxm-80gb", name="H100 SXM 80GB")
    mine = RfqFactory(
        title="Support chat capacity, Q3",
        created_by=lead,
        providers=[provider_a],
        requirements="8x H100 per node, eu-west, on-demand.",
        capacity_models=["on_demand", "reserved"],
        region="eu-west",
        deadline=timezone.now() + timedelta(days=10),
    )
    mine.accelerators.set([h100])
    other = RfqFactory(title="Contoso-only batch RFQ", created_by=lead, providers=[provider_b])
    return mine, other


def test_vendor_quotes_answers_checklist_revises_and_review_loop(
    browser_page, checklist_items, private_storage, rfqs, vendor_a, vendor_b, engineer
):
    mine, other = rfqs
    page = browser_page.page

    # The vendor sees the RFQ addressed to their organisation, not the one sent only to B.
    browser_page.login("vendor_a")
    page.click("nav.mainnav >> text=My RFQs")
    my_rfqs = page.locator("#my-rfqs")
    expect(my_rfqs).to_contain_text(mine.title)
    expect(my_rfqs).not_to_contain_text(other.title)
    browser_page.shot("1-my-rfqs")
    assert page.request.get(f"{browser_page.base_url}/vendor/rfqs/{other.pk}/").status == 404

    # The quote form explains every field.
    browser_page.goto("/vendor/")
    page.click(f"#my-rfqs >> text={mine.title}")
    page.click("a.button.primary >> text=Submit a quote")
    expect(page.locator("#id_price_per_gpu_hour_help")).to_be_visible()
    expect(page.locator("#id_price_per_gpu_hour_help")).to_contain_text("Price of one GPU")
    expect(page.locator("#id_accelerator_help")).to_contain_text("exact GPU model")
    assert page.locator("p.help").count() >= 20
    page.select_option("#id_accelerator", label="H100 SXM 80GB")
    page.select_option("#id_capacity_model", "on_demand")
    page.fill("#id_currency", "USD")
    page.fill("#id_price_per_gpu_hour", "2.49")
    page.fill("#id_gpus_per_node", "8")
    page.select_option("#id_region", "eu-west")  # U1: one of the RFQ's regions
    page.fill("#id_source_url", "https://provider-a.example/offer-2025-q3")
    browser_page.shot("2-quote-form")
    with page.expect_navigation():
        page.click("form.quote-form button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Quote submitted")
    quote = Quote.objects.get(provider=vendor_a.provider)
    assert quote.price_per_gpu_hour == Decimal("2.4900")
    browser_page.shot("3-quote-submitted")

    # Next step: the checklist, answered with a PDF for one item and a link for another.
    with page.expect_navigation():
        page.click("a.button >> text=Answer the checklist")
    assert page.url.endswith(f"/checklist/quotes/{quote.pk}/answer/")
    expect(page.locator("#checklist-pct")).to_have_text("0%")
    page.fill(f"#id_{HARDWARE}-answer", "8x H100 SXM 80 GB per node, NVSwitch.")
    page.select_option(f"#id_{HARDWARE}-status", "yes")
    page.set_input_files(
        f"#id_{HARDWARE}-evidence_file",
        files=[{"name": "node-spec.pdf", "mimeType": "application/pdf", "buffer": MINIMAL_PDF}],
    )
    page.fill(f"#id_{REGION}-answer", "eu-west-1, zone b; placement groups on request.")
    page.select_option(f"#id_{REGION}-status", "yes")
    page.fill(f"#id_{REGION}-evidence_url", "https://provider-a.example/regions")
    browser_page.shot("4-checklist-filled")
    with page.expect_navigation():
        page.click("#save-answers")
    hardware = page.locator(f"#item-{HARDWARE}")
    expect(hardware.locator(".checklist-evidence")).to_contain_text("node-spec.pdf")
    expect(page.locator(f"#item-{REGION} .checklist-evidence")).to_contain_text("regions")
    expect(page.locator("#checklist-pct")).not_to_have_text("0%")
    browser_page.shot("5-checklist-saved")
    stored = ChecklistAnswer.objects.get(quote=quote, item__code=HARDWARE)
    assert stored.evidence_file.read() == MINIMAL_PDF

    # Revise the quote: a new version; the history shows both.
    browser_page.goto(f"/vendor/quotes/{quote.pk}/")
    page.click("a.button.primary >> text=Revise")
    page.fill("#id_price_per_gpu_hour", "2.19")
    with page.expect_navigation():
        page.click("form.quote-form button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Saved version 2")
    versions = page.locator("table.versions tbody tr")
    expect(versions).to_have_count(2)
    expect(page.locator("table.versions")).to_contain_text("v1")
    expect(page.locator("table.versions tr.selected")).to_contain_text("2.19")
    browser_page.shot("6-versions")
    revised = Quote.objects.get(supersedes=quote)
    assert revised.version == 2
    quote.refresh_from_db()
    assert quote.price_per_gpu_hour == Decimal("2.4900")  # v1 never changes
    evidence_url = f"/checklist/evidence/{stored.pk}/"
    assert page.request.get(browser_page.base_url + evidence_url).body() == MINIMAL_PDF

    # The other provider's vendor reaches none of it: 404, as if it did not exist.
    browser_page.login("vendor_b")
    for path in (
        f"/vendor/quotes/{revised.pk}/",
        f"/vendor/rfqs/{mine.pk}/",
        f"/checklist/quotes/{revised.pk}/answer/",
        evidence_url,
    ):
        assert page.request.get(browser_page.base_url + path).status == 404, path
    browser_page.goto("/vendor/")
    expect(page.locator("#my-rfqs")).to_contain_text(other.title)
    expect(page.locator("main")).not_to_contain_text(mine.title)

    # The engineer (hardware reviewer) asks for more information on the hardware answer.
    browser_page.login("engineer")
    browser_page.goto(f"/checklist/quotes/{revised.pk}/")
    hardware = page.locator(f"#item-{HARDWARE}")
    page.fill(f"#id_{HARDWARE}-comment", "Please attach nvidia-smi -q output of one node.")
    page.click(f"#review-needs-info-{HARDWARE}")  # htmx: the item is swapped in place
    expect(hardware.locator(CURRENT_VERDICT)).to_have_attribute("data-review-status", "needs_info")
    expect(hardware).to_contain_text("Please attach nvidia-smi")
    browser_page.shot("7-needs-info")

    # The vendor sees the request and answers again (the PDF stays as evidence).
    browser_page.login("vendor_a")
    browser_page.goto(f"/checklist/quotes/{revised.pk}/answer/")
    request_note = page.locator(f"#request-{HARDWARE}")
    expect(request_note).to_contain_text("more information")
    expect(request_note).to_contain_text("Please attach nvidia-smi -q output")
    browser_page.shot("8-vendor-sees-request")
    page.fill(
        f"#id_{HARDWARE}-answer",
        "8x H100 SXM 80 GB per node, NVSwitch. nvidia-smi -q output attached.",
    )
    with page.expect_navigation():
        page.click("#save-answers")
    hardware = page.locator(f"#item-{HARDWARE}")
    expect(hardware.locator(CURRENT_TEXT)).to_contain_text("nvidia-smi -q")
    expect(hardware.locator(CURRENT_VERDICT)).to_have_attribute("data-review-status", "pending")
    expect(page.locator(f"#request-{HARDWARE}")).to_have_count(0)

    # The reviewer accepts the new answer.
    browser_page.login("engineer")
    browser_page.goto(f"/checklist/quotes/{revised.pk}/")
    hardware = page.locator(f"#item-{HARDWARE}")
    expect(hardware).to_contain_text("nvidia-smi -q output attached")
    page.click(f"#review-accept-{HARDWARE}")
    expect(hardware.locator(CURRENT_VERDICT)).to_have_attribute("data-review-status", "accepted")
    browser_page.shot("9-accepted")
    current = ChecklistAnswer.objects.get(
        quote=revised, item__code=HARDWARE, superseded_by__isnull=True
    )
    assert current.review_status == "accepted"
    assert current.evidence_file.read() == MINIMAL_PDF
    browser_page.assert_no_console_errors()
