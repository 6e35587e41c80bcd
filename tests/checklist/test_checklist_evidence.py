"""Evidence checks: size cap, extension AND content, filename sanitising. No database."""

from __future__ import annotations

import hashlib

import pytest

from checklist import evidence
from checklist.evidence import EvidenceRejected
from tests.checklist import files_checklist as f


@pytest.mark.parametrize(
    ("name", "content", "content_type"),
    [
        ("spec.pdf", f.PDF, "application/pdf"),
        ("diagram.PNG", f.PNG, "image/png"),
        ("photo.jpg", f.JPEG, "image/jpeg"),
        ("photo.jpeg", f.JPEG, "image/jpeg"),
        ("anim.gif", f.GIF, "image/gif"),
        ("shot.webp", f.WEBP, "image/webp"),
        ("notes.txt", "Réseau privé: oui\n".encode(), "text/plain; charset=utf-8"),
        ("prices.csv", b"\xef\xbb\xbfitem,price\negress,0.05\n", "text/csv; charset=utf-8"),
        ("readme.md", b"# Topology\n\n* NVLink\n", "text/markdown; charset=utf-8"),
        ("terms.docx", f.ooxml("docx"), evidence.CONTENT_TYPES[".docx"]),
        ("prices.xlsx", f.ooxml("xlsx"), evidence.CONTENT_TYPES[".xlsx"]),
        ("deck.pptx", f.ooxml("pptx"), evidence.CONTENT_TYPES[".pptx"]),
        (
            "terms.odt",
            f.odf("application/vnd.oasis.opendocument.text"),
            evidence.CONTENT_TYPES[".odt"],
        ),
        (
            "prices.ods",
            f.odf("application/vnd.oasis.opendocument.spreadsheet"),
            evidence.CONTENT_TYPES[".ods"],
        ),
    ],
)
def test_checklist_evidence_accepts_allowed_types(name, content, content_type):
    checked = evidence.check_upload(f.upload(name, content))
    assert checked.content_type == content_type
    assert checked.sha256 == hashlib.sha256(content).hexdigest()
    assert checked.size == len(content)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("invoice.pdf", f.EXE, "named .pdf but its content is not a PDF"),
        ("tool.exe", f.EXE, "Files of type .exe are not accepted"),
        ("page.html", f.HTML, "Files of type .html are not accepted"),
        ("page.txt", f.HTML, "HTML, SVG and XML pages are not accepted"),
        ("icon.svg", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "type .svg are not accepted"),
        ("data.csv", b"a,b\n\x00\x01,2\n", "NUL bytes"),
        ("data.txt", b"caf\xe9 latin-1", "not valid UTF-8"),
        ("image.png", f.JPEG, "content is not that image"),
        ("image.webp", f.PNG, "not a WebP image"),
        ("terms.docx", f.PDF, "not a valid DOCX document"),
        ("terms.docx", f.ooxml("xlsx"), "not a DOCX document"),
        ("terms.docx", f.ooxml("docx", macro=True), "macros are not accepted"),
        ("terms.xlsx", b"PK\x03\x04 broken zip", "not a valid XLSX document"),
        ("terms.odt", f.odf("application/vnd.oasis.opendocument.spreadsheet"), "not a ODT"),
        ("terms.ods", f.ooxml("xlsx"), "not a valid ODS document"),
        ("noextension", f.PDF, "no extension"),
        ("empty.pdf", b"", "The file is empty"),
    ],
)
def test_checklist_evidence_refuses_disallowed_or_disguised_files(name, content, message):
    with pytest.raises(EvidenceRejected) as caught:
        evidence.check_upload(f.upload(name, content))
    assert message in caught.value.message
    assert caught.value.fields == {"evidence_file": [caught.value.message]}


def test_checklist_evidence_refuses_a_file_over_the_cap(settings):
    settings.EVIDENCE_UPLOAD_MAX_BYTES = 1000
    with pytest.raises(EvidenceRejected, match=r"larger than the 1 kB limit"):
        evidence.check_upload(f.upload("big.pdf", f.PDF + b" " * 2000))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("spec sheet.pdf", "spec sheet.pdf"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\me\\Réseau.PDF", "Reseau.pdf"),
        ('a"; filename=evil.html; x=".pdf', "a_ filename_evil.html_ x.pdf"),
        ("\r\nInjected: header.txt", "Injected_ header.txt"),
        ("....pdf", "evidence.pdf"),
        ("", "evidence"),
        ("x" * 300 + ".docx", "x" * 100 + ".docx"),
    ],
)
def test_checklist_evidence_filename_is_sanitised(raw, expected):
    assert evidence.sanitise_filename(raw) == expected


def test_checklist_evidence_storage_name_is_a_uuid_with_the_checked_extension():
    checked = evidence.check_upload(f.pdf("../../My Secret.pdf"))
    name = evidence.storage_name(checked)
    assert len(name) == 32 + 4
    assert name.endswith(".pdf")
    assert "Secret" not in name
