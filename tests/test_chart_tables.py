"""U22, U35: every chart on the brief and comparison pages has its table as a text
alternative: one row per bar or point label, one column per series, error bars as low/high."""

from __future__ import annotations

from core.templatetags.chart_tables import cell_text, column_places, figure_table


def test_horizontal_chart_table_lists_the_top_row_first_with_error_bounds():
    fig = {
        "data": [
            {
                "type": "scatter",
                "name": "p50",
                "x": [30.0, 12.5],
                "y": ["RunPod MI300X", "Northwind H100"],  # the chart draws the last on top
                "error_x": {"type": "data", "array": [5.0, 1.5], "arrayminus": [4.0, 0.5]},
            },
            {
                "type": "scatter",
                "name": "point estimate",
                "x": [29.0, 12.0],
                "y": ["RunPod MI300X", "Northwind H100"],
            },
        ],
        "layout": {
            "title": {"text": "Uncertainty"},
            "xaxis": {"title": {"text": "USD per 1M tokens"}},
        },
    }
    table = figure_table(fig)
    assert table is not None
    assert table.caption == "Uncertainty (USD per 1M tokens)"
    assert table.header == ["Item", "p50", "p50: low", "p50: high", "point estimate"]
    assert table.rows == [
        ["Northwind H100", "12.50", "12.00", "14.00", "12.00"],
        ["RunPod MI300X", "30.00", "26.00", "35.00", "29.00"],
    ]


def test_stacked_bars_and_curves_become_category_rows():
    bars = {
        "data": [
            {"type": "bar", "name": "Weights", "x": ["H100 × 2", "B200 × 1"], "y": [70.5, 141.0]},
            {"type": "bar", "name": "KV cache", "x": ["H100 × 2", "B200 × 1"], "y": [5.25, 10.5]},
            {"type": "bar", "name": "platform labor", "x": ["H100 × 2"], "y": [1.0]},
        ],
        "layout": {"yaxis": {"title": {"text": "GB per GPU"}}, "xaxis": {"title": "Accelerator"}},
    }
    table = figure_table(bars)
    assert table.caption == "Chart data (GB per GPU)"
    assert table.header == ["Accelerator", "Weights", "KV cache", "Platform labour"]
    assert table.rows == [["H100 × 2", "70.5", "5.2", "1.0"], ["B200 × 1", "141.0", "10.5", "—"]]
    curve = {"data": [{"type": "scatter", "name": "H100", "x": [1024, 8192], "y": [120, 14]}]}
    assert figure_table(curve).rows == [["1,024", "120"], ["8,192", "14"]]


def test_nothing_drawn_means_no_table_and_cells_read_well():
    assert figure_table(None) is None
    assert figure_table({"data": []}) is None
    assert cell_text(None) == "—"
    assert column_places([2614.9, 12]) == 1
    assert cell_text(2614.9, 1) == "2,614.9"
    assert column_places([0.000153, 0.6429]) is None
    assert cell_text(0.000153, None) == "0.000153"
    assert column_places([0.25, 1.5]) == 2
    assert column_places([12, 8192]) == 0
