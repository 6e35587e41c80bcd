"""U13, U38: a refused checklist save shows an error summary at the top with links to the
items, and keeps the valid chosen files for the next submit."""

from __future__ import annotations

import pytest

from checklist.models import ChecklistAnswer
from tests.checklist import files_checklist as f
from tests.checklist.test_checklist_views import answer_url, form_data

pytestmark = pytest.mark.django_db


def test_refused_save_has_a_summary_with_links_and_names_the_kept_file(
    login, vendor_a, quote_a, private_root
):
    """U13, U38: the broken item is in a summary at the top (a link to it, its error); the
    valid item's file is named as kept for the next save."""
    data = form_data(
        {
            "gpu-model-node-shape": {
                "answer": "8x H100 SXM per node",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.pdf(),
            },
            "interconnect": {
                "answer": "NVLink",
                "status": "yes",
                "scope": "quote",
                "evidence_file": f.upload("nvlink.pdf", f.EXE),
            },
        }
    )
    response = login(vendor_a).post(answer_url(quote_a), data)
    assert response.status_code == 400
    html = response.content.decode()
    summary_at = html.index('id="error-summary"')
    assert summary_at < html.index('id="checklist-answer-form"')
    summary = html[summary_at : html.index("</div>", summary_at)]
    assert "1 item needs attention; nothing was saved" in summary
    assert 'href="#item-interconnect"' in summary
    assert "content is not a PDF" in summary
    assert "gpu-model-node-shape" not in summary
    assert "“spec sheet.pdf” is kept and will be saved with this answer" in html
    assert "8x H100 SXM per node" in html  # the typed answer is kept
    assert not ChecklistAnswer.objects.exists()


def test_no_summary_on_a_fresh_page(login, vendor_a, quote_a):
    html = login(vendor_a).get(answer_url(quote_a)).content.decode()
    assert 'id="error-summary"' not in html
