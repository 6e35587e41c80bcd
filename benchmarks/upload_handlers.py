"""Upload size cap enforced while the body streams in, never after it sits in memory.

Views install `CappedTemporaryFileUploadHandler` before the body is parsed (so they are
`csrf_exempt` and call a `csrf_protect`-ed inner view, as Django's docs describe): every
file goes to a temporary file on disk, and the upload stops as soon as it passes the cap.
A `Content-Length` above the cap is refused before a byte of the body is read.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import StopUpload, TemporaryFileUploadHandler
from django.http import HttpRequest

# Room for the multipart boundaries and the small form fields next to the file.
MULTIPART_SLACK_BYTES = 64 * 1024


def upload_cap_bytes() -> int:
    return int(settings.BENCHMARK_UPLOAD_MAX_BYTES)


def too_large_message(size: int | None = None) -> str:
    cap = upload_cap_bytes()
    got = f" ({size:,} bytes)" if size else ""
    limit = f"{cap:,} bytes" + (f" ({cap / 1e6:,.0f} MB)" if cap >= 1_000_000 else "")
    return f"The file is too large{got}: the limit is {limit}."


def declared_length_too_large(request: HttpRequest) -> bool:
    """True when the request says it carries more than the cap allows (nothing read yet)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return length > upload_cap_bytes() + MULTIPART_SLACK_BYTES


class CappedTemporaryFileUploadHandler(TemporaryFileUploadHandler):
    """Streams each file to a temporary file and stops the upload once the cap is passed."""

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.cap = upload_cap_bytes()
        self.received = 0
        self.too_large = False

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.received > self.cap:
            self.too_large = True
            self.upload_interrupted()  # removes the partial temporary file
            raise StopUpload(connection_reset=True)
        return super().receive_data_chunk(raw_data, start)


def install_capped_handler(request: Any) -> CappedTemporaryFileUploadHandler:
    """Replace the request's upload handlers (call before anything reads the body)."""
    handler = CappedTemporaryFileUploadHandler(request)
    request.upload_handlers = [handler]
    return handler
