"""Evidence files: size cap, type check by extension AND content, private storage, download.

Accepted: PDF, PNG, JPEG, GIF, WebP, plain text / CSV / Markdown (UTF-8, no NUL bytes, not
HTML), Office Open XML (docx, xlsx, pptx: a zip whose [Content_Types].xml declares the main
part of that kind, no macros) and OpenDocument text and spreadsheets (odt, ods: a zip whose
first entry `mimetype` names the kind). Files are stored under the default (private) storage
with a UUID name; the original name is kept only as a sanitised label for the download.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from uuid import uuid4

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest

from core.errors import DomainError

_TEXT = "text/plain; charset=utf-8"
CONTENT_TYPES: dict[str, str] = {
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".txt": _TEXT,
    ".csv": "text/csv; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".odt": "application/vnd.oasis.opendocument.text",
    ".ods": "application/vnd.oasis.opendocument.spreadsheet",
}
ALLOWED_LABEL = "PDF, PNG, JPEG, GIF, WebP, TXT, CSV, Markdown, DOCX, XLSX, PPTX, ODT or ODS"
# The main part an Office Open XML package must declare in [Content_Types].xml.
_OOXML_MAIN = {
    ".docx": "wordprocessingml.document.main+xml",
    ".xlsx": "spreadsheetml.sheet.main+xml",
    ".pptx": "presentationml.presentation.main+xml",
}
_ODF_MIMETYPE = {
    ".odt": b"application/vnd.oasis.opendocument.text",
    ".ods": b"application/vnd.oasis.opendocument.spreadsheet",
}
_IMAGE_MAGIC = {
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF87a", b"GIF89a"),
}
_HTML_START = re.compile(rb"^\s*<(!doctype\s+html|html|head|body|script|svg|\?xml)", re.I)
_ZIP_META_MAX_BYTES = 1_000_000


class EvidenceRejected(DomainError):
    code = "evidence_rejected"

    def __init__(self, message: str, *, field: str = "evidence_file") -> None:
        super().__init__(message, fields={field: [message]})


@dataclass(frozen=True, slots=True)
class CheckedEvidence:
    """An upload that passed every check: its safe label, type, size and digest."""

    display_name: str
    extension: str
    content_type: str
    size: int
    sha256: str


def max_bytes_label() -> str:
    limit = settings.EVIDENCE_UPLOAD_MAX_BYTES
    if limit >= 1_000_000:
        return f"{limit / 1_000_000:g} MB"
    return f"{limit / 1000:g} kB"


def too_large_message(name: str = "") -> str:
    what = f"“{sanitise_filename(name)}”" if name else "The file"
    return f"{what} is larger than the {max_bytes_label()} limit for evidence; send a link instead."


def sanitise_filename(name: str) -> str:
    """A harmless ASCII label: no path, no control or quote characters, bounded length."""
    base = re.split(r"[\\/]", name or "")[-1]
    base = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode("ascii")
    base = re.sub(r"[^A-Za-z0-9._ ()-]+", "_", base).strip(" ")
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = base, ""
    stem = stem.strip(" ._")[:100].strip(" ._") or "evidence"
    ext = re.sub(r"[^a-z0-9]", "", ext.lower())[:10]
    return f"{stem}.{ext}" if ext else stem


def extension_of(name: str) -> str:
    return PurePosixPath(sanitise_filename(name)).suffix.lower()


def content_type_for(name: str) -> str:
    return CONTENT_TYPES.get(extension_of(name), "application/octet-stream")


def _read_head(upload: UploadedFile[bytes], size: int = 16) -> bytes:
    upload.seek(0)
    head: bytes = upload.read(size)
    upload.seek(0)
    return head


def _check_text(upload: UploadedFile[bytes]) -> None:
    upload.seek(0)
    data = upload.read()
    upload.seek(0)
    if b"\x00" in data:
        raise EvidenceRejected("The file contains NUL bytes, so it is not plain text.")
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EvidenceRejected("The file is not valid UTF-8 text.") from exc
    if _HTML_START.match(data.removeprefix(b"\xef\xbb\xbf")):
        raise EvidenceRejected("HTML, SVG and XML pages are not accepted; send a PDF or a link.")


def _check_zip_document(upload: UploadedFile[bytes], ext: str) -> None:
    kind = ext.lstrip(".").upper()
    if _read_head(upload, 4) != b"PK\x03\x04":
        raise EvidenceRejected(f"The file is not a valid {kind} document.")
    try:
        upload.seek(0)
        with zipfile.ZipFile(upload) as archive:
            if ext in _OOXML_MAIN:
                _check_ooxml(archive, ext, kind)
            else:
                _check_odf(archive, ext, kind)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError) as exc:
        raise EvidenceRejected(f"The file is not a valid {kind} document.") from exc
    finally:
        upload.seek(0)


def _check_ooxml(archive: zipfile.ZipFile, ext: str, kind: str) -> None:
    info = archive.getinfo("[Content_Types].xml")
    if info.file_size > _ZIP_META_MAX_BYTES:
        raise EvidenceRejected(f"The file is not a valid {kind} document.")
    types = archive.read(info).decode("utf-8", "replace")
    if _OOXML_MAIN[ext] not in types:
        raise EvidenceRejected(f"The file is not a {kind} document (its content type differs).")
    if "vbaProject" in types or "macroEnabled" in types:
        raise EvidenceRejected("Documents with macros are not accepted.")


def _check_odf(archive: zipfile.ZipFile, ext: str, kind: str) -> None:
    first = archive.infolist()[0] if archive.infolist() else None
    if first is None or first.filename != "mimetype" or first.file_size > 200:
        raise EvidenceRejected(f"The file is not a valid {kind} document.")
    if archive.read(first).strip() != _ODF_MIMETYPE[ext]:
        raise EvidenceRejected(f"The file is not a {kind} document (its content type differs).")


def _check_content(upload: UploadedFile[bytes], ext: str) -> None:
    head = _read_head(upload)
    if ext == ".pdf":
        if not head.startswith(b"%PDF-"):
            raise EvidenceRejected("The file is named .pdf but its content is not a PDF.")
    elif ext in _IMAGE_MAGIC:
        if not head.startswith(_IMAGE_MAGIC[ext]):
            raise EvidenceRejected(f"The file is named {ext} but its content is not that image.")
    elif ext == ".webp":
        if not (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
            raise EvidenceRejected("The file is named .webp but its content is not a WebP image.")
    elif ext in (".txt", ".csv", ".md"):
        _check_text(upload)
    else:
        _check_zip_document(upload, ext)


def _sha256(upload: UploadedFile[bytes]) -> str:
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def check_upload(upload: UploadedFile[bytes]) -> CheckedEvidence:
    """Refuse (EvidenceRejected) anything too big, empty, of a disallowed or disguised type."""
    name = upload.name or ""
    if upload.size is not None and upload.size > settings.EVIDENCE_UPLOAD_MAX_BYTES:
        raise EvidenceRejected(too_large_message(name))
    if not upload.size:
        raise EvidenceRejected("The file is empty.")
    ext = extension_of(name)
    if ext not in CONTENT_TYPES:
        shown = ext or "no extension"
        raise EvidenceRejected(f"Files of type {shown} are not accepted; use {ALLOWED_LABEL}.")
    _check_content(upload, ext)
    return CheckedEvidence(
        display_name=sanitise_filename(name),
        extension=ext,
        content_type=CONTENT_TYPES[ext],
        size=int(upload.size),
        sha256=_sha256(upload),
    )


def storage_name(checked: CheckedEvidence) -> str:
    """The stored file name: a fresh UUID, never the uploader's name."""
    return f"{uuid4().hex}{checked.extension}"


class EvidenceSizeLimitHandler(FileUploadHandler):
    """Stops reading an evidence file once it passes the cap, instead of spooling it all.

    The skipped field is remembered on the request (`evidence_oversized`: field → file
    name) so the form or serializer can say which file was too large.
    """

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self._received = 0

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self._received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self._received += len(raw_data)
        if self._received > settings.EVIDENCE_UPLOAD_MAX_BYTES:
            oversized = getattr(self.request, "evidence_oversized", {})
            oversized[self.field_name] = self.file_name or ""
            # A per-request attribute the evidence forms read (set before any form exists).
            setattr(self.request, "evidence_oversized", oversized)  # noqa: B010
            raise SkipFile
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def install_size_limit(request: HttpRequest) -> None:
    """Put the size guard first; call before anything reads request.POST or FILES."""
    request.upload_handlers = [EvidenceSizeLimitHandler(request), *request.upload_handlers]
