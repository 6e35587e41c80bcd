"""What a reviewer reads before deciding (found on the browser walk through the demo): the
recommended vendor's checklist red flags (the demo's recommended quote carried one, "no
certified deletion at contract end", while the review page said only "checklist: 100 % of the
basic level"), and a decision select that names each row once."""

from __future__ import annotations

import html as html_lib

import pytest

pytestmark = pytest.mark.django_db

FLAG = {
    "code": "data-lifecycle",
    "title": "Data storage, checkpoint retention, backup, deletion and legal hold",
    "section": "security",
    "comment": "No certified deletion at contract end.",
}


@pytest.fixture
def flagged(comparison):
    row = comparison.candidates.get(key=comparison.recommended_key)
    row.checklist = {**row.checklist, "red_flags": [FLAG]}
    row.save(update_fields=["checklist"])
    return comparison


@pytest.mark.parametrize("path", ["", "review/", "record/"])
def test_the_recommended_rows_red_flags_show_on_every_decision_page(flagged, finance, login, path):
    page = login(finance).get(f"/comparisons/{flagged.pk}/{path}")
    assert page.status_code == 200
    text = html_lib.unescape(page.content.decode())
    banner = text.split('class="notice bad red-flags"')[1].split("</div>")[0]
    assert "1 red flag" in banner
    assert FLAG["title"] in banner
    assert "(security)" in banner
    assert f"“{FLAG['comment']}”" in banner


def test_no_banner_without_a_red_flag(comparison, finance, login):
    page = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    assert "red-flags" not in page


def test_the_decision_select_lists_the_recommended_row_once(comparison, finance, login):
    """The candidate select offered "The recommended row" and the same row again as
    "… (recommended)"."""
    import re

    page = login(finance).get(f"/comparisons/{comparison.pk}/review/").content.decode()
    select = page.split('name="candidate"')[1].split("</select>")[0]
    options = re.findall(r"<option[^>]*>([^<]*)</option>", select)
    assert "The recommended row" not in options
    assert sum("(recommended)" in o for o in options) == 1
    assert re.search(r'<option value="[^"]+" selected>[^<]*\(recommended\)', select)


def test_the_record_states_only_the_brief_fields_its_class_uses(comparison, finance, login):
    """The demo's inference record listed "Optimizer adamw" and "Sharding zero3" (fields a
    training brief uses) among the brief's facts."""
    from briefs.models import WorkloadBrief

    WorkloadBrief.objects.filter(pk=comparison.brief_id).update(optimizer="adamw", sharding="zero3")
    comparison.brief.refresh_from_db()
    assert comparison.brief.workload_class != "training"
    page = html_lib.unescape(
        login(finance).get(f"/comparisons/{comparison.pk}/record/").content.decode()
    )
    brief = page.split('aria-labelledby="brief-h"')[1].split("</section>")[0]
    assert "Workload class" in brief
    assert "Optimizer" not in brief
    assert "Sharding" not in brief
