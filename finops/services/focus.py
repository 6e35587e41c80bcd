"""A decision's FOCUS export as a file (the page's download and the API's): its commitment or
price rows, audited, refused before the decision is approved."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.audit import audit_record
from core.errors import Conflict, DomainError
from finops import selectors
from finops.focus.export import DATASETS, to_csv, to_parquet
from finops.focus.spec import FOCUS_VERSION
from procurement.models import Comparison

if TYPE_CHECKING:
    from accounts.models import User


@dataclass(frozen=True, slots=True)
class FocusFile:
    body: bytes
    content_type: str
    filename: str


FOCUS_FORMATS = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}


def focus_export(
    *, acting_user: User, comparison: Comparison, dataset: str, file_format: str = "csv"
) -> FocusFile:
    """A decision's FOCUS commitments or prices as a file, audited (who took which decision's
    commitments out, and when); 409 before the decision is approved."""
    if dataset not in DATASETS:
        raise DomainError(f"Unknown FOCUS dataset {dataset!r}: commitments or prices.")
    if file_format not in FOCUS_FORMATS:
        raise DomainError(f"Unknown format {file_format!r}: csv or parquet.")
    rows = (
        selectors.commitment_rows(comparison)
        if dataset == "commitments"
        else selectors.price_rows(comparison)
    )
    if not rows:
        raise Conflict(
            "Only an approved comparison has a commitment to export: this one is "
            f"{comparison.get_status_display().lower()}."
        )
    columns = DATASETS[dataset]
    body = to_parquet(rows, columns) if file_format == "parquet" else to_csv(rows, columns)
    audit_record(
        actor=acting_user,
        action=f"comparison.exported_focus_{dataset}",
        obj=comparison,
        summary={"format": file_format},
    )
    name = f"focus-{FOCUS_VERSION}-{dataset}-decision-{comparison.pk}.{file_format}"
    return FocusFile(body, FOCUS_FORMATS[file_format], name)
