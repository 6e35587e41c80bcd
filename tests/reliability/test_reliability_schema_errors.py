"""The OpenAPI schema documents the API's one error shape on every operation.

`core.api.schema.AutoSchema` adds the error statuses each operation can answer with
(400 and 404 everywhere; 401/403 behind a login; 409/415 on writes; 413 on uploads), all
with the `Error` body `{"detail", "code", "fields"}` that the exception handler renders.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_CLASS = "core.api.schema.AutoSchema"
METHODS = {"get", "post", "put", "patch", "delete"}
# A fresh process: views decorated with @extend_schema bake the default schema class in at
# import time, so it must be set before anything is imported (as settings.py does).
SETTINGS = f"""
from config.settings_test import *  # noqa: F403
REST_FRAMEWORK = {{**REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": "{SCHEMA_CLASS}"}}  # noqa: F405
"""


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("schema")
    (folder / "schema_settings.py").write_text(SETTINGS)
    out = folder / "schema.json"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "schema_settings",
        "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--format", "openapi-json", "--file", out],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def _operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def test_every_operation_documents_its_errors_with_the_error_body(schema):
    error = schema["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"detail", "code", "fields"}
    operations = list(_operations(schema))
    assert len(operations) >= 40
    for path, method, operation in operations:
        responses = operation["responses"]
        assert {"400", "404"} <= set(responses), (method, path)
        if path != "/api/v1/auth/token/":
            assert {"401", "403"} <= set(responses), (method, path)
        if method == "post":
            assert {"409", "415"} <= set(responses), (method, path)
        for code, response in responses.items():
            if code.startswith(("4", "5")) and "content" in response:
                body = response["content"]["application/json"]["schema"]
                assert body in ({"$ref": "#/components/schemas/Error"}, {}), (method, path, code)


def test_uploads_document_413_and_hand_written_responses_are_kept(schema):
    upload = schema["paths"]["/api/v1/benchmark-results/"]["post"]["responses"]
    assert "413" in upload
    assert {"200", "201"} <= set(upload)  # the area's own extend_schema entries stay
    token = schema["paths"]["/api/v1/auth/token/"]["post"]["responses"]
    assert "401" not in token  # AllowAny: no credentials to refuse
