"""One write per form token: a double click, three parallel POSTs or a replayed form make
one quote or one comparison, not three.

A creating form carries a random token (`token_for(request)` in the view, the hidden field
`submission` in the template). The view wraps its write in `once(request)`: the first POST
stores the token in the same transaction as the write (a unique row), so a concurrent twin
waits on that row and then finds it taken; a later replay finds it too. Both are sent to
what the first one made. A POST without a token (an old page, a script) is not deduplicated.

Each write first purges a bounded batch of rows older than `KEEP` (a form is not resubmitted
weeks later), so the table stays small without a periodic task.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone

from core.models import FormSubmission

FIELD = "submission"
KEEP = timedelta(days=7)
PURGE_BATCH = 500  # rows per write: every write removes more than one form adds


def token_for(request: HttpRequest) -> str:
    """The token to render in the form: the posted one when the form is shown again."""
    posted = request.POST.get(FIELD, "") if request.method == "POST" else ""
    return posted if _valid(posted) else secrets.token_urlsafe(24)


def _valid(token: str) -> bool:
    return 16 <= len(token) <= 64 and token.replace("-", "").replace("_", "").isalnum()


@dataclass
class Slot:
    """`done_url`: where the first submission's result is (a duplicate), else None; the view
    calls `made(url)` after its write."""

    token: str
    done_url: str | None = None

    def made(self, url: str) -> None:
        if self.token:
            FormSubmission.objects.filter(token=self.token).update(result_url=url[:300])


def purge_old(*, now: datetime | None = None) -> int:
    """Delete up to PURGE_BATCH rows older than KEEP; how many went."""
    cutoff = (now or timezone.now()) - KEEP
    old = FormSubmission.objects.filter(created_at__lt=cutoff).order_by("created_at")
    ids = list(old.values_list("pk", flat=True)[:PURGE_BATCH])
    if not ids:
        return 0
    deleted, _ = FormSubmission.objects.filter(pk__in=ids).delete()
    return deleted


@contextmanager
def once(request: HttpRequest) -> Iterator[Slot]:
    """A transaction holding this POST's token; `slot.done_url` set when it was used before."""
    token = request.POST.get(FIELD, "")
    user_id = request.user.pk
    if user_id is None or not _valid(token):
        with transaction.atomic():
            yield Slot(token="")
        return
    # Outside the write's transaction: its row locks would otherwise make twins of other
    # forms wait on each other's purge.
    purge_old()
    with transaction.atomic():
        try:
            with transaction.atomic():
                FormSubmission.objects.create(token=token, user_id=user_id)
        except IntegrityError:
            first = FormSubmission.objects.filter(token=token, user_id=user_id).first()
            yield Slot(token="", done_url=(first.result_url if first else "") or "/")
            return
        yield Slot(token=token)
