"""V9 (U14): the checklist does not ask again for what the quote already said. The interconnect
and node-resources items open with the quote's words as a draft; the draft is saved only when
the vendor confirms it with a status, and the saved answer says it came from the quote; an
untouched draft saves nothing and the item still counts as unanswered."""

from __future__ import annotations

import html as html_lib
import re
from decimal import Decimal

import pytest

from checklist import selectors
from checklist.drafts import quote_drafts
from checklist.models import ChecklistAnswer
from tests.checklist.factories_checklist import AnswerFactory, item
from tests.factories import QuoteFactory

pytestmark = pytest.mark.django_db

INTERCONNECT = (
    "From our quote (version 1): inside the node NVLink 4 / NVSwitch; "
    "between nodes InfiniBand NDR, 3,200 Gbit/s per node."
)
NODE = "From our quote (version 1): 208 vCPU, 2,048 GB RAM, 30.72 TB local NVMe per node."


@pytest.fixture
def spec_quote(items, provider_a, vendor_a):
    """A reserved quote that states its interconnect and node resources (as in the finding)."""
    return QuoteFactory(
        provider=provider_a,
        capacity_model="reserved",
        term_months=12,
        entered_by=vendor_a,
        intra_node_interconnect="NVLink 4 / NVSwitch",
        inter_node_fabric="InfiniBand NDR",
        inter_node_bandwidth_gbps=3200,
        vcpu_per_node=208,
        ram_gb_per_node=2048,
        local_nvme_tb_per_node=Decimal("30.72"),
    )


def _url(quote) -> str:
    return f"/checklist/quotes/{quote.pk}/answer/"


def _textarea(page: str, code: str) -> str:
    found = re.search(rf'<textarea name="{code}-answer"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, code
    return html_lib.unescape(found.group(1)).strip()


def _browser_post(client, quote, **answers):
    """The page's fields as a browser sends them: the two drafts as shown (no status), and
    whatever the test answers on top."""
    data = {
        "interconnect-answer": INTERCONNECT,
        "interconnect-status": "",
        "interconnect-evidence_url": "",
        "interconnect-scope": "quote",
        "node-resources-answer": NODE,
        "node-resources-status": "",
        "node-resources-evidence_url": "",
        "node-resources-scope": "quote",
    }
    for code, fields in answers.items():
        data.update({f"{code}-{name}": value for name, value in fields.items()})
    return client.post(_url(quote), data)


def test_v9_the_checklist_opens_with_what_the_quote_said(login, vendor_a, spec_quote):
    assert quote_drafts(spec_quote) == {"interconnect": INTERCONNECT, "node-resources": NODE}
    page = login(vendor_a).get(_url(spec_quote)).content.decode()
    assert _textarea(page, "interconnect") == INTERCONNECT
    assert _textarea(page, "node-resources") == NODE
    assert 'id="draft-interconnect"' in page
    assert "Pre-filled from what your quote says" in page
    # The vendor's to-do list still names the items, saying a draft is ready to confirm.
    status = page.split('id="vendor-status"', 1)[1].split("</section>", 1)[0]
    assert "pre-filled from your quote: confirm it with a status" in status
    # Items the quote says nothing about stay blank.
    assert _textarea(page, "hardware-replacement") == ""


def test_v9_an_untouched_draft_saves_nothing_and_still_counts_as_unanswered(
    login, vendor_a, spec_quote
):
    client = login(vendor_a)
    response = _browser_post(
        client,
        spec_quote,
        **{
            "region-placement": {
                "answer": "eu-west-1, one placement group",
                "status": "yes",
                "evidence_url": "https://example.com/regions",
                "scope": "quote",
            }
        },
    )
    assert response.status_code == 302
    saved = ChecklistAnswer.objects.filter(quote=spec_quote)
    assert [a.item.code for a in saved] == ["region-placement"]
    missing = {m["code"] for m in selectors.quote_checklist_summary(spec_quote)["missing_items"]}
    assert {"interconnect", "node-resources"} <= missing


def test_v9_a_confirmed_draft_is_saved_as_the_vendors_answer_and_reviewed_as_today(
    login, vendor_a, spec_quote
):
    client = login(vendor_a)
    response = _browser_post(
        client,
        spec_quote,
        interconnect={
            "answer": INTERCONNECT,
            "status": "yes",
            "evidence_url": "https://example.com/topology.pdf",
        },
    )
    assert response.status_code == 302
    answer = ChecklistAnswer.objects.get(quote=spec_quote, item__code="interconnect")
    assert answer.answer == INTERCONNECT  # says where it came from
    assert answer.answer.startswith("From our quote (version 1):")
    assert answer.status == "yes"
    assert answer.answered_by == vendor_a
    assert answer.review_status == ChecklistAnswer.ReviewStatus.PENDING  # a reviewer accepts it
    assert not ChecklistAnswer.objects.filter(item__code="node-resources").exists()
    # Once answered, the item shows its answer and no draft.
    page = client.get(_url(spec_quote)).content.decode()
    assert 'id="draft-interconnect"' not in page
    assert 'id="draft-node-resources"' in page


def test_v9_an_edited_draft_without_a_status_is_a_clear_error(login, vendor_a, spec_quote):
    response = _browser_post(
        login(vendor_a),
        spec_quote,
        interconnect={"answer": INTERCONNECT + " Rail-optimised."},
    )
    assert response.status_code == 400
    assert "Choose yes, partial, no or unknown." in response.content.decode()
    assert not ChecklistAnswer.objects.filter(quote=spec_quote).exists()


def test_v9_no_draft_over_an_answer_or_from_a_silent_quote(login, vendor_a, spec_quote, items):
    AnswerFactory(provider=spec_quote.provider, item=item("interconnect"), answer="Our default")
    page = login(vendor_a).get(_url(spec_quote)).content.decode()
    assert 'id="draft-interconnect"' not in page  # the provider's default answer counts
    assert 'id="draft-node-resources"' in page
    silent = QuoteFactory(provider=spec_quote.provider, capacity_model="reserved")
    assert quote_drafts(silent) == {}
