"""The adapter at the engine's edge: models → frozen JSON snapshot → engine dataclasses.

`freeze(...)` (Django side) copies every input of a comparison into one JSON document;
`thaw(snapshot)` (pure) turns it into the engine's `ComparisonInput` plus the facts each
candidate row shows. Results are reproducible from snapshot + seed + ENGINE_VERSION
(docs/adr/0003-reproducible-comparisons.md).
"""

from procurement.snapshot.freeze import freeze
from procurement.snapshot.schema import SNAPSHOT_FORMAT
from procurement.snapshot.thaw import Thawed, thaw
from procurement.snapshot.upgrade import upgrade

__all__ = [
    "SNAPSHOT_FORMAT",
    "Thawed",
    "freeze",
    "thaw",
    "upgrade",
]
