"""Text a spreadsheet will never run as a formula (no Django: the exports are pure).

OWASP "CSV injection": a cell whose text begins with `=`, `+`, `-`, `@`, a tab or a carriage
return is read as a formula by Excel and LibreOffice. The control characters are dropped
*first* (an XLSX cannot hold them, and a `\\x01` in front of `=` once hid the formula from the
check, round 4's R1), then text that would start a formula, after any leading spaces, gets a
leading single quote. Numbers are never passed here: they stay numbers.
"""

from __future__ import annotations

import re

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# C0 but tab, line feed and carriage return; DEL; C1. None has a use in a title or a note.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def spreadsheet_text(value: str) -> str:
    """`value` with its control characters dropped and a formula start quoted."""
    text = CONTROL_CHARACTERS.sub("", value)
    if text.lstrip(" \u00a0").startswith(FORMULA_PREFIXES):
        return "'" + text
    return text
