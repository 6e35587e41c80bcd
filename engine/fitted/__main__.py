"""`python -m engine.fitted fit` / `python -m engine.fitted accuracy [docs path]`.

fit:      refit the current engine version's parameters from the shipped fit data into
          data/<version>/parameters.json (deterministic: the same file each time;
          `make fit-estimate`).
accuracy: judge the current parameters' structure out of sample, write the bands by regime
          into data/<version>/bands.json and the report to docs/engine/accuracy.md
          (`make accuracy`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from engine.fitted.accuracy import bands, report, today
from engine.fitted.cases import FIT_DATA, load_fit_data
from engine.fitted.fit import fit, out_of_sample
from engine.fitted.roofline import CURRENT, PARAMETERS

BANDS = PARAMETERS.parent / "bands.json"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "engine" / "accuracy.md"


def parameters_document() -> dict[str, object]:
    """What `fit` writes: the parameters and where they came from."""
    data = load_fit_data()
    return {
        "engine_version": CURRENT,
        "fitted_on": FIT_DATA.name,
        "runs": len(data),
        "command": "make fit-estimate (python -m engine.fitted fit)",
        "licence": (
            "fit data: MLPerf Inference v4.1 results, mlcommons/inference_results_v4.1, "
            "Apache License 2.0"
        ),
        **fit(data).to_json(),
    }


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "fit":
        PARAMETERS.write_text(json.dumps(parameters_document(), indent=2) + "\n")
        print(f"wrote {PARAMETERS}")
        return 0
    if command == "accuracy":
        items = out_of_sample(load_fit_data())
        band = bands(items)
        BANDS.write_text(json.dumps(band, indent=2, sort_keys=True) + "\n")
        target = Path(argv[1]) if len(argv) > 1 else DOCS
        target.write_text(report(items, band, today()))
        print(f"wrote {BANDS} and {target}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
