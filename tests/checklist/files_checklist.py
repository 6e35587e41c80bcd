"""Sample evidence files, good and bad, built in memory."""

from __future__ import annotations

import io
import zipfile

from django.core.files.uploadedfile import SimpleUploadedFile

PDF = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 40
GIF = b"GIF89a" + b"\x00" * 40
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 40
EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 200
HTML = b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"

OOXML_MAIN = {
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
}


def ooxml(kind: str, *, main: str | None = None, macro: bool = False) -> bytes:
    types = (
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        f'content-types"><Override PartName="/main.xml" ContentType="{main or OOXML_MAIN[kind]}"/>'
    )
    if macro:
        types += '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/>'
    types += "</Types>"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", types)
        archive.writestr("main.xml", "<doc/>")
    return buffer.getvalue()


def odf(mimetype: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), mimetype)
        archive.writestr("content.xml", "<office:document-content/>")
    return buffer.getvalue()


def upload(name: str, content: bytes, content_type: str = "application/octet-stream"):
    return SimpleUploadedFile(name, content, content_type=content_type)


def pdf(name: str = "spec sheet.pdf"):
    return upload(name, PDF, "application/pdf")
