"""Security fixtures: the world built once per module, in a transaction rolled back at the end.

Each test still runs inside pytest-django's own savepoint (`db`), and the matrix wraps every
request in one more savepoint, so a successful write never leaks into the next request.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client, override_settings

from tests.security.factories_security import ROLES, World, build_world


def private_storage_settings(root: Any) -> dict[str, Any]:
    storages = copy.deepcopy(settings.STORAGES)
    storages["default"]["OPTIONS"]["location"] = str(root)
    return {"STORAGES": storages, "MEDIA_ROOT": str(root)}


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("security-private")
    with (
        override_settings(**private_storage_settings(root)),
        django_db_blocker.unblock(),
        transaction.atomic(),
    ):
        built = build_world()
        built.clients = role_clients(built)
        yield built
        transaction.set_rollback(True)


def role_clients(world: World) -> dict[str, Client]:
    """One logged-in test client per matrix column (anonymous: none logged in)."""
    clients: dict[str, Client] = {}
    for role in ROLES:
        client = Client()
        if role != "anonymous":
            client.force_login(world.users[role])
        clients[role] = client
    return clients
