"""M1 with one query per token check: revocation, deactivation and expiry still hold at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIRequestFactory

from accounts.auth import TokenAuthentication, api_tokens_purge_expired
from accounts.tasks import api_tokens_purge_expired_task

pytestmark = pytest.mark.django_db


def _check(key: str) -> object:
    request = APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {key}")
    return TokenAuthentication().authenticate(request)


def test_a_token_check_is_one_query_whatever_the_users_other_tokens(engineer):
    key = AuthToken.objects.create(user=engineer)[1]
    for _ in range(3):
        AuthToken.objects.create(user=engineer, expiry=timedelta(days=-1))
    with CaptureQueriesContext(connection) as ctx:
        user, token = _check(key)
    assert user == engineer
    assert token.user_id == engineer.pk
    assert len(ctx.captured_queries) == 1


def test_a_revoked_token_and_a_deactivated_user_fail_on_the_next_request(engineer, finance):
    from rest_framework.exceptions import AuthenticationFailed

    revoked = AuthToken.objects.create(user=engineer)[1]
    assert _check(revoked)
    AuthToken.objects.filter(user=engineer).delete()
    with pytest.raises(AuthenticationFailed):
        _check(revoked)
    key = AuthToken.objects.create(user=finance)[1]
    assert _check(key)
    type(finance).objects.filter(pk=finance.pk).update(is_active=False)
    with pytest.raises(AuthenticationFailed):
        _check(key)


def test_an_expired_token_is_refused_and_deleted_when_presented(engineer):
    from rest_framework.exceptions import AuthenticationFailed

    key = AuthToken.objects.create(user=engineer)[1]
    AuthToken.objects.filter(user=engineer).update(expiry=timezone.now() - timedelta(seconds=1))
    with pytest.raises(AuthenticationFailed):
        _check(key)
    assert not AuthToken.objects.filter(user=engineer).exists()


def test_the_periodic_purge_deletes_only_expired_tokens(engineer, finance):
    AuthToken.objects.create(user=engineer, expiry=timedelta(days=-1))
    AuthToken.objects.create(user=finance, expiry=timedelta(days=-2))
    kept = AuthToken.objects.create(user=finance)[0]
    assert api_tokens_purge_expired() == 2
    assert list(AuthToken.objects.values_list("pk", flat=True)) == [kept.pk]
    assert api_tokens_purge_expired_task() == 0


def test_the_purge_runs_on_the_beat_schedule():
    from django.conf import settings

    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["purge-expired-api-tokens"]
    assert entry["task"] == "accounts.tasks.api_tokens_purge_expired_task"
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks
