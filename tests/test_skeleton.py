"""A2: every app has the same rooms, so a newcomer knows where a file goes; A10/A1: sizes.

Each room is a module or, past ~400 lines, a package of the same name. `api` is always a
package with its own `urls.py`.
"""

from __future__ import annotations

import io
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("accounts", "catalog", "checklist", "briefs", "benchmarks", "procurement", "finops")
ROOMS = ("models", "services", "selectors", "views", "forms", "access", "urls")
MAX_LINES = 500


def _room(app: str, name: str) -> Path | None:
    module, package = ROOT / app / f"{name}.py", ROOT / app / name / "__init__.py"
    return module if module.is_file() else package if package.is_file() else None


@pytest.mark.parametrize("app", APPS)
def test_every_app_has_the_same_rooms(app: str) -> None:
    missing = [name for name in ROOMS if _room(app, name) is None]
    assert missing == [], f"{app} lacks {missing}"
    assert (ROOT / app / "api" / "__init__.py").is_file(), f"{app} has no api/ package"
    assert (ROOT / app / "api" / "urls.py").is_file(), f"{app}/api has no urls.py"


@pytest.mark.parametrize("app", APPS)
def test_no_second_spelling_of_a_room(app: str) -> None:
    """No `services_x.py` beside `services/`, no `views_x.py` or `urls_x.py`."""
    odd = sorted(
        p.name
        for p in (ROOT / app).iterdir()
        if any(p.name.startswith(f"{room}_") for room in (*ROOMS, "api"))
    )
    assert odd == []


def test_config_and_the_kernel_stand_apart() -> None:
    for name in ("settings.py", "settings_test.py", "urls.py", "celery.py", "wsgi.py", "asgi.py"):
        assert (ROOT / "config" / name).is_file()
        assert not (ROOT / "procurement" / name).exists() or name == "urls.py"
    for name in ("roles.py", "errors.py", "audit.py", "models.py", "forms.py", "jobs.py"):
        assert (ROOT / "core" / name).is_file()


def test_no_product_module_is_over_500_lines() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    long = {
        name: n
        for name in tracked
        if not name.startswith("tests/")
        and "/migrations/" not in name
        and (ROOT / name).is_file()
        and (n := len((ROOT / name).read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_engine_is_a_top_level_package_split_by_concept() -> None:
    # The pure engine sits below every app, not inside the decisions app.
    assert not (ROOT / "procurement" / "engine").exists()
    for package in ("types", "memory", "cost", "montecarlo", "operating_points", "plan"):
        assert (ROOT / "engine" / package / "__init__.py").is_file(), package


def _untyped_lines(path: Path) -> list[str]:
    """Lines of ``path`` that name ``typing.Any``: every one if it is ``dict[str, Any]``,
    otherwise those without a comment saying why the value is any JSON."""
    source = path.read_text()
    lines = source.splitlines()
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    commented = {t.start[0] for t in tokens if t.type == tokenize.COMMENT}
    found = []
    for token in tokens:
        if token.type != tokenize.NAME or token.string != "Any":
            continue
        number = token.start[0]
        if "dict[str, Any]" in lines[number - 1] or number not in commented:
            found.append(f"{path.relative_to(ROOT)}:{number}: {lines[number - 1].strip()}")
    return found


def test_issue31_the_snapshot_holds_no_untyped_dict() -> None:
    """The frozen snapshot and the row facts are typed (procurement/snapshot/schema.py and
    facts.py, mypy strict): no ``dict[str, Any]`` in procurement/snapshot/, and ``Any`` only
    where a value is genuinely any JSON, said on its line."""
    found = [
        line
        for path in sorted((ROOT / "procurement" / "snapshot").rglob("*.py"))
        for line in _untyped_lines(path)
    ]
    assert found == []
