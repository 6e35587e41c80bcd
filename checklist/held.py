"""Evidence files held across a refused checklist save.

A browser never re-sends a chosen file after the page comes back with errors, so a refused
save used to lose every valid document. The page now keeps them server-side: each valid
upload is written to a private folder under a random name, and the page carries a signed
token (django.core.signing) in a hidden field. The next submit claims the file back through
that token. The token names the user and the form field it was issued for, so a copied token
is worthless to anyone else or on another item; it expires after HOLD_MAX_AGE and the files
behind expired tokens are deleted the next time anything is held.

Nothing here touches the database: a refused save stays a save that wrote nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from uuid import uuid4

from django.core import signing
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile, UploadedFile

from checklist import evidence

logger = logging.getLogger(__name__)

HOLD_FOLDER = "held-evidence"
HOLD_MAX_AGE = timedelta(hours=2)
_SALT = "checklist.held-evidence"


@dataclass(frozen=True, slots=True)
class HeldFile:
    """A valid upload waiting for the next submit: the token for the hidden field and the
    name to show the vendor."""

    token: str
    display_name: str
    stored_name: str


def hold(upload: UploadedFile[bytes], *, user_id: int, field: str) -> HeldFile:
    """Keep an upload that already passed evidence.check_upload; return its token."""
    purge_expired()
    checked = evidence.check_upload(upload)  # cheap, and never trusts the caller blindly
    upload.seek(0)
    stored_name = default_storage.save(f"{HOLD_FOLDER}/{uuid4().hex}{checked.extension}", upload)
    upload.seek(0)
    token = signing.dumps(
        {"user": user_id, "field": field, "stored": stored_name, "name": checked.display_name},
        salt=_SALT,
    )
    return HeldFile(token=token, display_name=checked.display_name, stored_name=stored_name)


def claim(token: str, *, user_id: int, field: str) -> tuple[HeldFile, UploadedFile[bytes]] | None:
    """The held file behind a token, as an upload, or None when the token is forged,
    expired, issued to someone else or for another field, or its file is gone."""
    try:
        payload = signing.loads(token, salt=_SALT, max_age=HOLD_MAX_AGE)
    except signing.BadSignature:  # SignatureExpired is a BadSignature too
        return None
    if not isinstance(payload, dict) or payload.get("user") != user_id:
        return None
    stored_name = str(payload.get("stored", ""))
    if payload.get("field") != field or not stored_name.startswith(f"{HOLD_FOLDER}/"):
        return None
    try:
        with default_storage.open(stored_name, "rb") as handle:
            content = handle.read()
    except FileNotFoundError:
        return None
    name = str(payload.get("name") or "evidence")
    upload = SimpleUploadedFile(name, content, content_type=evidence.content_type_for(name))
    return HeldFile(token=token, display_name=name, stored_name=stored_name), upload


def release(held: HeldFile) -> None:
    """Delete a held file once its answer is saved (the answer has its own copy)."""
    default_storage.delete(held.stored_name)


def purge_expired(now: datetime | None = None) -> int:
    """Delete held files older than HOLD_MAX_AGE (their tokens can no longer claim them)."""
    now = now or datetime.now(UTC)
    try:
        _folders, names = default_storage.listdir(HOLD_FOLDER)
    except FileNotFoundError:
        return 0
    removed = 0
    for name in names:
        path = f"{HOLD_FOLDER}/{name}"
        try:
            if now - default_storage.get_modified_time(path) > HOLD_MAX_AGE:
                default_storage.delete(path)
                removed += 1
        except FileNotFoundError:  # another request purged it first
            continue
    if removed:
        logger.info("purged %d expired held evidence files", removed)
    return removed
