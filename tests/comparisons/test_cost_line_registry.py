"""One list of cost lines (A12): the chart, the labels, the review tables and the FinOps
forecast read the engine's lines from core.cost_lines, so a row's bars add up to its unit
cost whatever lines it carries."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from core.cost_lines import LINE_LABELS, LINE_ORDER
from core.templatetags.numbers import human
from engine.cost import common
from procurement import charts


def _row(cost_lines: dict[str, str], unit: str = "10.00", total: str = "1000.00") -> object:
    return SimpleNamespace(
        key="q:1",
        eligible=True,
        rank=1,
        unit_cost_usd=unit,
        total_usd=total,
        label="Reserved H100",
        provider_name="P",
        accelerator_name="H100",
        kind="gpu",
        capacity_model="reserved",
        cost_lines=cost_lines,
    )


def _bars(row: object) -> dict[str, float]:
    fig = charts.cost_stack_figure([row], "per 1M accepted output tokens")
    assert fig is not None
    return {trace["name"]: trace["x"][0] for trace in fig["data"]}


def test_a_row_of_ten_draws_bars_that_sum_to_ten() -> None:
    """The finding's row: 600 + 300 (term past the horizon) + 100 = 1,000 a month at 10.00
    per 1M tokens → bars 6.00 + 3.00 + 1.00 = 10.00 (the chart used to drop the 3.00)."""
    row = _row({"gpu_compute": "600.00", "term_beyond_horizon": "300.00", "storage": "100.00"})
    assert _bars(row) == {
        "GPU compute": 6.0,
        "Term not used (beyond the horizon, or the run)": 3.0,
        "Storage": 1.0,
    }


@pytest.mark.parametrize("name", LINE_ORDER)
def test_every_engine_line_draws_a_bar_equal_to_the_unit_cost(name: str) -> None:
    assert _bars(_row({name: "1000.00"})) == {LINE_LABELS[name]: 10.0}


def test_a_line_no_engine_writes_today_still_draws() -> None:
    """A stored row of an older engine version keeps every line it froze."""
    assert sum(_bars(_row({"gpu_compute": "500.00", "retired_line": "500.00"})).values()) == 10.0


@pytest.mark.parametrize("name", LINE_ORDER)
def test_every_line_has_its_label_on_the_pages(name: str) -> None:
    assert human(name) == LINE_LABELS[name]


def test_the_engine_orders_lines_by_the_same_list() -> None:
    assert common.LINE_ORDER is LINE_ORDER


def test_the_list_is_pure_python() -> None:
    """The engine may import it (the engine's purity test allows it by name)."""
    import ast
    import sys
    from pathlib import Path

    import core.cost_lines

    tree = ast.parse(Path(core.cost_lines.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            is_from = isinstance(node, ast.ImportFrom)
            names = [node.module] if is_from else [a.name for a in node.names]  # type: ignore[union-attr]
            for name in names:
                assert str(name).split(".")[0] in sys.stdlib_module_names | {"__future__"}


@pytest.mark.parametrize("name", LINE_ORDER)
def test_every_line_is_an_export_column_in_the_pages_words(name: str) -> None:
    from procurement.exports import line_header

    assert line_header(name) == f"{LINE_LABELS[name]} (USD)"
