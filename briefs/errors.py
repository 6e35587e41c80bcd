"""Errors of the briefs app."""

from __future__ import annotations

from core.errors import DomainError


class BriefIncomplete(DomainError):
    code = "brief_incomplete"

    def __init__(self, missing: list[str]) -> None:
        super().__init__(
            "The brief is incomplete, so the selection is paused: fill in "
            + ", ".join(missing)
            + ".",
            fields={"brief": [f"Missing: {', '.join(missing)}."]},
        )
        self.missing = missing
