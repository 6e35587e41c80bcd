"""The newcomer's findings of round three (N1–N5): what the README and the set-up promise.

The real start of `make run` on a free port with its banner is
`tests/test_run_script.py::test_n1_n4_…`; the absolute e-mail links are
`tests/reviews/test_reviews_notifications.py::test_n3_…`; finance's standing on the demo
comparison is `tests/reviews/test_reviews_standing.py::test_v4_…`.
"""

from __future__ import annotations

import re
from pathlib import Path

from accounts.demo import DEMO_USERS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_n1_make_run_takes_port_and_host_and_the_readme_says_so() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert 'HOST="$(HOST)" PORT="$(PORT)" bash scripts/run.sh' in makefile
    assert "make run PORT=8123 HOST=0.0.0.0" in README


def test_n2_the_readme_says_who_may_approve_the_demo_comparison() -> None:
    assert "the demo FX rates were entered by `admin`, so either finance reviewer" in README
    assert "may approve" in README


def test_n4_the_readme_is_a_five_minute_page_with_a_tour_and_every_demo_login() -> None:
    assert len(README.splitlines()) <= 200
    assert "## A five-minute tour" in README
    logins = set(re.findall(r"^\| `(\w+)`(?:, `(\w+)`)?", README, flags=re.MULTILINE))
    named = {name for pair in logins for name in pair if name}
    assert {username for username, *_ in DEMO_USERS} <= named


def test_n5_the_readme_says_the_machines_pip_warnings_are_harmless() -> None:
    assert "pip warnings" in README
    assert "harmless" in README
