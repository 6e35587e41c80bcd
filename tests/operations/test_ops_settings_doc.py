"""L4: the configuration table of docs/deployment.md is the one generated from the settings."""

from __future__ import annotations

import pytest

from config import settings_doc


def test_l4_the_docs_table_is_the_generated_one():
    documented = settings_doc.documented(settings_doc.DOC.read_text())
    assert documented == settings_doc.table(), (
        "docs/deployment.md's settings table is stale: run `python -m config.settings_doc --write`"
    )


def test_l4_every_variable_the_settings_read_is_in_the_table_and_no_other():
    read = {name for name, _ in settings_doc.settings_read(settings_doc.SETTINGS.read_text())}
    # The ones round 4 found read by the code but missing from the hand-written table.
    assert {
        "CSRF_TRUSTED_ORIGINS",
        "DB_CONN_MAX_AGE",
        "CELERY_TASK_TIME_LIMIT",
        "CELERY_UNACKED_RESTORE_INTERVAL",
        "MONTE_CARLO_SAMPLES",
        "MIXED_PLAN_TIME_LIMIT_S",
        "VAR_DIR",
        "WHITENOISE_MAX_AGE",
        "PRICE_CHANGE_TOLERANCE_PCT",
        "BRIEF_CONFIRM_ABOVE_GPUS",
    } <= read
    assert set(settings_doc.MEANINGS) == read


def test_l4_a_new_setting_without_a_meaning_fails_the_generation():
    source = 'X = env_int("SOMETHING_NEW", 3)\nY = os.environ.get("VAR_DIR", "v")\n'
    with pytest.raises(KeyError, match="no meaning for SOMETHING_NEW"):
        settings_doc.table(source)
    assert settings_doc.settings_read(source) == [("SOMETHING_NEW", "3"), ("VAR_DIR", "'v'")]
