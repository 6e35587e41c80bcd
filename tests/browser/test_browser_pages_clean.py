"""Every main page renders for the roles that use it: HTTP 200, its key content, every Plotly
chart drawn, a screenshot, and no console error under the strict CSP.

A tour visits the pages one after the other and notes each problem instead of stopping at
the first, so one run names every broken page; the test fails at the end if any was noted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.worlds_browser import (
    AIPERF_SAMPLE,
    VLLM_SAMPLE,
    catalog_world,
    decision_world,
    upload_result,
)
from tests.factories import WorkloadBriefFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Tour:
    """Visits pages as one user at a time; collects problems, asserts them at the end."""

    def __init__(self, browser_page: Any) -> None:
        self.bp = browser_page
        self.page = browser_page.page
        self.problems: list[str] = []

    def as_user(self, username: str) -> Tour:
        self.bp.login(username)
        return self

    def visit(
        self,
        path: str,
        label: str,
        *,
        text: str | None = None,
        charts: int = 0,
        check: Callable[[Any], None] | None = None,
        full_page: bool = True,
    ) -> None:
        """Open `path`; expect `text` in <main>, at least `charts` charts and every chart on
        the page drawn, and whatever `check(page)` asserts; then take a screenshot."""
        response = self.bp.goto(path)
        status = response.status if response is not None else None
        if status != 200:
            self.problems.append(f"{path}: HTTP {status}")
            self.bp.shot(label, full_page=False)
            return
        try:
            main = self.page.locator("main")
            if text:
                expect(main).to_contain_text(text)
            containers = self.page.locator("[data-plotly]")
            assert containers.count() >= charts, f"{containers.count()} charts, not {charts}"
            for i in range(containers.count()):
                expect(containers.nth(i).locator("svg.main-svg").first).to_be_visible()
            if check:
                check(self.page)
        except AssertionError as exc:
            self.problems.append(f"{path}: {str(exc).splitlines()[0]}")
        self.bp.shot(label, full_page=full_page)

    def assert_clean(self) -> None:
        assert not self.problems, "pages with problems:\n" + "\n".join(self.problems)
        self.bp.assert_no_console_errors()


def test_dashboard_renders_for_every_role(
    browser_page, lead, engineer, finance, security, vendor_a, admin_member
):
    tour = Tour(browser_page)
    for user in (lead, engineer, finance, security, vendor_a, admin_member):
        tour.as_user(user.username).visit(
            "/", f"dashboard-{user.role}", text="Dashboard", check=_nav_names_role(user)
        )
    tour.assert_clean()


def _nav_names_role(user: Any) -> Callable[[Any], None]:
    def check(page: Any) -> None:
        expect(page.locator("header .who")).to_contain_text(user.username)
        mine = "My RFQs" if user.role == "vendor" else "Comparisons"
        expect(page.locator("nav.mainnav")).to_contain_text(mine)

    return check


def test_catalog_quote_rfq_checklist_and_vendor_pages_render(
    browser_page, checklist_items, lead, vendor_a, provider_a, provider_b
):
    world = catalog_world(
        lead=lead, vendor_a=vendor_a, provider_a=provider_a, provider_b=provider_b
    )
    fresh, stale, rfq = world.fresh, world.stale, world.rfq
    tour = Tour(browser_page).as_user("lead")
    tour.visit("/catalog/", "catalog", text="H200 SXM 141GB", charts=1)
    tour.visit(
        "/catalog/compare/?a=h100-sxm-80gb&b=h200-sxm-141gb&c=l40s-48gb",
        "compare-3",
        text="L40S 48GB",
        charts=2,
        check=lambda page: expect(page.locator("table.compare thead th")).to_have_count(4),
    )
    tour.visit("/catalog/accelerators/h100-sxm-80gb/", "accelerator-detail", charts=1)

    def stale_badge(page: Any) -> None:
        expect(page.locator("tr", has_text="H200 SXM 141GB").locator(".badge.warn")).to_have_text(
            "stale"
        )
        expect(page.locator("tr", has_text="H100 SXM 80GB").locator(".badge.warn")).to_have_count(0)

    tour.visit("/catalog/quotes/", "quote-list-stale-badge", check=stale_badge)

    def two_versions(page: Any) -> None:
        expect(page.locator("table.versions tbody tr")).to_have_count(2)
        expect(page.locator("table.versions tr.selected")).to_contain_text("v2")

    tour.visit(f"/catalog/quotes/{fresh.pk}/", "quote-detail-versions", check=two_versions)
    tour.visit("/catalog/rfqs/", "rfq-list", text=rfq.title)
    tour.visit(f"/catalog/rfqs/{rfq.pk}/", "rfq-detail", text=rfq.title)
    tour.visit("/checklist/", "checklist-index", text="H100 on-demand v2")
    tour.visit(f"/checklist/quotes/{stale.pk}/", "checklist-review", text="every item")

    tour.as_user("vendor_a")
    tour.visit("/vendor/", "vendor-my-rfqs", text=rfq.title)
    tour.visit(f"/vendor/rfqs/{rfq.pk}/", "vendor-rfq-detail", text="My answers")
    tour.visit(f"/vendor/quotes/{fresh.pk}/", "vendor-quote-versions", check=two_versions)
    tour.visit(f"/checklist/quotes/{fresh.pk}/answer/", "vendor-checklist", full_page=False)
    tour.assert_clean()


def test_brief_memory_fit_and_benchmark_pages_render(
    browser_page, private_storage, checklist_items, lead, engineer, vendor_a, provider_a, provider_b
):
    world = catalog_world(
        lead=lead, vendor_a=vendor_a, provider_a=provider_a, provider_b=provider_b
    )
    brief = WorkloadBriefFactory(title="Support chat assistant", created_by=lead)
    summary = upload_result(
        engineer=engineer, quote=world.fresh, brief=brief, sample=VLLM_SAMPLE, gpus=2
    )
    per_request = upload_result(
        engineer=engineer, quote=world.stale, brief=brief, sample=AIPERF_SAMPLE, gpus=1
    )
    tour = Tour(browser_page).as_user("engineer")
    tour.visit("/briefs/", "brief-list", text=brief.title)
    tour.visit(f"/briefs/{brief.pk}/", "brief-detail", text="Memory fit", charts=2)
    tour.visit(
        "/briefs/memory-fit/?model=llama-3-1-70b&mode=inference&weight_precision=bf16"
        "&kv_precision=bf16&context_tokens=8192&concurrent_sequences=32"
        "&accelerator=h100-sxm-80gb",
        "memory-fit",
        text="141.2",  # GB of Llama 3.1 70B weights at BF16 (docs/briefs.md)
    )
    tour.visit("/benchmarks/", "benchmark-list", text=summary.original_name[:30])
    tour.visit(f"/benchmarks/results/{summary.pk}/", "benchmark-summary-result", charts=1)
    tour.visit(f"/benchmarks/results/{per_request.pk}/", "benchmark-per-request-result", charts=3)
    tour.visit(f"/benchmarks/compare/?brief={brief.pk}", "benchmark-compare", charts=1)
    tour.visit("/benchmarks/plans/", "benchmark-plans")
    tour.assert_clean()


def test_comparison_review_record_audit_and_api_docs_render(
    browser_page, checklist_items, lead, finance, admin_member
):
    world = decision_world(lead=lead)
    pk = world.comparison.pk
    tour = Tour(browser_page).as_user("lead")
    tour.visit("/comparisons/", "comparison-list", text=world.comparison.title)
    tour.visit(
        f"/comparisons/{pk}/",
        "comparison-detail",
        charts=2,
        check=lambda page: expect(page.locator("#results tr.recommended")).to_have_count(1),
    )

    tour.as_user("finance")
    tour.visit(
        f"/comparisons/{pk}/review/",
        "review",
        check=lambda page: expect(page.locator("#why-h")).to_contain_text("is recommended"),
    )
    tour.visit(
        f"/comparisons/{pk}/side-by-side/",
        "side-by-side",
        check=lambda page: expect(page.locator("table.sbs")).to_be_visible(),
    )
    tour.visit(f"/comparisons/{pk}/record/", "decision-record", text="Why", charts=1)
    tour.visit("/audit/", "audit-finance", text="Hash chain verified")

    tour.as_user("admin")
    tour.visit(
        "/audit/?action=comparison.create",
        "audit-admin",
        check=lambda page: expect(page.locator("table.audit")).to_contain_text("comparison.create"),
    )

    def swagger_ui(page: Any) -> None:
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("GPU procurement")
        expect(page.locator(".swagger-ui .opblock").first).to_be_visible()

    tour.visit("/api/docs/", "api-docs", check=swagger_ui, full_page=False)
    tour.assert_clean()
