"""Shared pieces of the pure importers: limits, decoding, CSV reading, typed cell parsing."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Generic, TypeVar

MAX_BYTES = 20_000_000
MAX_ROWS = 200_000
MAX_COLUMNS = 60
MAX_CELL_CHARS = 2_000
FORMULA_PREFIXES = ("=", "@", "\t", "\r")
EXTRA_CELLS = "__extra_cells__"


class ImportFileError(Exception):
    """The file as a whole cannot be read (encoding, size, not the expected format)."""


@dataclass(frozen=True, slots=True)
class RowError:
    """One problem: `row` is the spreadsheet row (1 = header) or the JSON entry's key."""

    row: int | str | None
    column: str | None
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"row": self.row, "column": self.column, "message": self.message}


T = TypeVar("T")


@dataclass(slots=True)
class ParseResult(Generic[T]):
    rows: list[T] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    facts: dict[str, object] = field(default_factory=dict)  # about the file as a whole

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def decode_text(data: bytes, *, max_bytes: int = MAX_BYTES) -> str:
    """UTF-8 text (a BOM is fine), or a clear ImportFileError."""
    if len(data) > max_bytes:
        raise ImportFileError(
            f"The file is {len(data) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB."
        )
    if not data.strip():
        raise ImportFileError("The file is empty.")
    if b"\x00" in data:
        raise ImportFileError("The file contains NUL bytes: it is binary, not a text file.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFileError(
            f"The file is not UTF-8 text (undecodable byte at position {exc.start}); "
            "save it as CSV UTF-8 and try again."
        ) from exc


def read_csv(
    text: str, *, required: tuple[str, ...], allowed: tuple[str, ...] | None = None
) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """Header plus (row number, {column: cell}) pairs; the header is row 1."""
    # Only ever raise the process-wide limit: other readers (benchmark parsers) share it.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_CELL_CHARS * 10))
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except (StopIteration, csv.Error) as exc:
        raise ImportFileError("The file has no header row.") from exc
    if len(header) > MAX_COLUMNS:
        raise ImportFileError(f"The file has {len(header)} columns; at most {MAX_COLUMNS}.")
    missing = [c for c in required if c not in header]
    if missing:
        raise ImportFileError(
            "Missing column(s): " + ", ".join(missing) + ". Expected: " + ", ".join(required)
        )
    if allowed is not None:
        unknown = [h for h in header if h and h not in allowed]
        if unknown:
            raise ImportFileError(
                "Unknown column(s): " + ", ".join(unknown[:10]) + ". Allowed: " + ", ".join(allowed)
            )
    if len(set(header)) != len(header):
        raise ImportFileError("The header repeats a column name.")

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        try:
            for index, cells in enumerate(reader, start=2):
                if index > MAX_ROWS + 1:
                    raise ImportFileError(f"The file has more than {MAX_ROWS} rows.")
                if not any(c.strip() for c in cells):
                    continue
                padded = cells + [""] * (len(header) - len(cells))
                row = dict(zip(header, padded, strict=False))
                if any(c.strip() for c in cells[len(header) :]):
                    row[EXTRA_CELLS] = "1"
                yield index, row
        except csv.Error as exc:
            raise ImportFileError(
                f"The CSV is malformed near row {reader.line_num}: {exc}."
            ) from exc

    return header, rows()


def is_formula(cell: str) -> bool:
    """A spreadsheet formula (or an injection attempt); signed numbers are not formulas."""
    if not cell:
        return False
    if cell.startswith(FORMULA_PREFIXES):
        return True
    if cell[0] in "+-":
        try:
            Decimal(cell)
        except InvalidOperation:
            return True
    return False


class CellReader:
    """Typed access to one row's cells, recording every problem instead of stopping."""

    def __init__(self, row: int, cells: dict[str, str], errors: list[RowError]) -> None:
        self.row, self.cells, self.errors = row, cells, errors
        self.ok = True
        if cells.pop(EXTRA_CELLS, None):
            self.fail(None, "The row has more cells than the header has columns.")
        for column, value in cells.items():
            if is_formula(value.strip()):
                self.fail(column, "Formula cells are not accepted; enter the plain value.")
            elif len(value) > MAX_CELL_CHARS:
                self.fail(column, f"The cell is longer than {MAX_CELL_CHARS} characters.")

    def fail(self, column: str | None, message: str) -> None:
        self.ok = False
        self.errors.append(RowError(self.row, column, message))

    def text(self, column: str, *, required: bool = False, max_len: int = 200) -> str:
        value = self.cells.get(column, "").strip()
        if is_formula(value):
            return ""
        if required and not value:
            self.fail(column, "Required.")
        elif len(value) > max_len:
            self.fail(column, f"At most {max_len} characters.")
            return value[:max_len]
        return value

    def url(self, column: str) -> str:
        value = self.text(column, max_len=500)
        if value and not value.lower().startswith(("https://", "http://")):
            self.fail(column, "Give a web address starting with https:// (or leave it empty).")
            return ""
        return value

    def decimal(self, column: str, *, required: bool = False) -> Decimal | None:
        value = self.text(column, required=required)
        if not value:
            return None
        try:
            number: Decimal | None = Decimal(value)
        except InvalidOperation:
            number = None
        if number is None or not number.is_finite():
            hint = " (use a dot for decimals, no thousands separators)" if "," in value else ""
            self.fail(column, f"{value[:30]!r} is not a number{hint}.")
            return None
        return number

    def integer(self, column: str, *, required: bool = False) -> int | None:
        number = self.decimal(column, required=required)
        if number is None:
            return None
        if number != number.to_integral_value():
            self.fail(column, f"{number} is not a whole number.")
            return None
        return int(number)

    def moment(self, column: str) -> datetime | None:
        """A date (YYYY-MM-DD, taken as 00:00 UTC) or an ISO 8601 time; UTC if no offset."""
        value = self.text(column)
        if not value:
            return None
        try:
            if len(value) == 10:
                day = date.fromisoformat(value)
                return datetime(day.year, day.month, day.day, tzinfo=UTC)
            moment = datetime.fromisoformat(value)
        except ValueError:
            self.fail(column, f"{value[:30]!r} is not a date (use YYYY-MM-DD).")
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
