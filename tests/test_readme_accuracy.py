"""The README's word on accuracy with no benchmark of your own is docs/engine/accuracy.md's.

`make accuracy` rewrites docs/engine/accuracy.md; the README rounds its figures. Each figure the
README states is read here from the report, so a refit that moves one fails until the README
says so too.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
REPORT = (ROOT / "docs" / "engine" / "accuracy.md").read_text(encoding="utf-8")


def _summary(held: str, regime: str) -> tuple[float, float, float]:
    """(median error %, p90 error %, coverage %) of the report's summary row."""
    found = re.search(
        rf"^\| {held} \| {regime} \| \d+ \| ([\d.]+)% \| ([\d.]+)% \| (\d+)% \|$",
        REPORT,
        re.MULTILINE,
    )
    assert found, (held, regime)
    return float(found[1]), float(found[2]), float(found[3])


def _accelerator(slug: str) -> tuple[float, float]:
    """(estimate ÷ measured, median error %) of the report's row for one accelerator."""
    found = re.search(rf"^\| {slug} \| \d+ \| ([\d.]+) \| ([\d.]+)% \|", REPORT, re.MULTILINE)
    assert found, slug
    return float(found[1]), float(found[2])


def test_the_readme_states_the_reports_errors_by_what_was_held_out():
    median, p90, coverage = _summary("accelerator", "all")
    assert f"about {median:.0f} % off at the median for an accelerator the fit never saw" in README
    assert f"(p90 about {p90:.0f} %;" in README
    assert f"({coverage / 10:.0f} runs in 10 inside)" in README
    latency, _, _ = _summary("accelerator", "latency-bound")
    assert f"{latency:.0f} % where a TPOT limit binds" in README
    median, p90, _ = _summary("model", "all")
    assert f"and {median:.0f} % for a model it never saw (p90 about {p90:.0f} %)" in README


def test_the_readme_names_the_pcie_cards_the_estimate_misses_most():
    figures = [_accelerator(slug) for slug in ("h100-pcie-80gb", "l40s-48gb")]
    assert all(ratio < 1 for ratio, _ in figures)  # "estimated low"
    errors = {f"{error:.0f}" for _, error in figures}
    assert len(errors) == 1
    assert f"H100 PCIe and L40S, about {errors.pop()} %, estimated low" in README


def test_the_readme_states_the_reports_pairs_bands_and_engine_version():
    pairs = re.search(r"held out\): (\d+) of (\d+) .*?more than 10 %: (\d+) of (\d+)", REPORT)
    assert pairs
    right, total, right10, total10 = (int(x) for x in pairs.groups())
    tenths = {9: "nine"}[round(10 * right / total)]
    assert f"{tenths} pairs of accelerators in ten are ordered as measured" in README
    assert f"({round(100 * right10 / total10)} in 100 of those more than 10 % apart)" in README
    bands = {
        name: (low, high)
        for name, low, high in re.findall(r"([a-z-]+) p10 ([\d.]+), p90 ([\d.]+)", REPORT)
    }
    low, high = bands["throughput-bound"]
    assert f"about {low}–{high} from p10 to p90 where memory sets the batch" in README
    low, high = bands["latency-bound"]
    assert f"and {low}–{high} where a TPOT limit does" in README
    version = re.search(r"for engine (\d+\.\d+\.\d+)'s estimate", REPORT)
    assert version
    assert f"(engine {version[1]})" in README
