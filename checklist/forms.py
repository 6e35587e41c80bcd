"""Forms: the shape of an answer and of a review. The services enforce the rules.

The vendor page holds one AnswerForm per item (prefix = item code, so every field has a
stable id such as `id_region-placement-status`). A form left as it was (same as the current
answer, or blank when there is none) is skipped; the changed ones are saved together.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

from django import forms
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from checklist import evidence, held, services
from checklist.models import ChecklistAnswer, ChecklistItem
from checklist.selectors import SCOPE_PROVIDER, ChecklistDetail, ItemRow
from core.errors import DomainError

SCOPE_CHOICES = [
    (services.SCOPE_QUOTE, "This quote only"),
    (services.SCOPE_PROVIDER, "Use for all my quotes"),
]
STATUS_CHOICES = [("", "Choose…"), *ChecklistAnswer.Status.choices]
# Where a new answer goes by default when the item has no answer yet: what the hardware is
# and what it costs belong to the offer; software and security usually hold provider-wide.
DEFAULT_SCOPE = {
    "hardware": services.SCOPE_QUOTE,
    "commercial": services.SCOPE_QUOTE,
    "software": services.SCOPE_PROVIDER,
    "security": services.SCOPE_PROVIDER,
}


# Any of these in a POST means the item was on the page (a chosen file comes in FILES).
SENT_FIELDS = ("answer", "status", "evidence_url", "scope", "remove_evidence", "held_evidence")


class AnswerTextField(forms.CharField):
    """Browsers send CRLF line ends; compare and store with LF so an untouched answer
    does not count as changed."""

    def to_python(self, value: Any) -> str:
        return str(super().to_python(value)).replace("\r\n", "\n")


class AnswerForm(forms.Form):
    answer = AnswerTextField(
        label="Answer",
        max_length=5000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    status = forms.ChoiceField(label="Status", choices=STATUS_CHOICES, required=False)
    evidence_url = forms.URLField(
        label="Evidence link", max_length=500, required=False, assume_scheme="https"
    )
    evidence_file = forms.FileField(
        label="Evidence document",
        required=False,
        help_text=f"{evidence.ALLOWED_LABEL}; up to {evidence.max_bytes_label()}.",
    )
    remove_evidence = forms.BooleanField(label="Remove the current evidence", required=False)
    # The token of a valid file kept from a refused save (checklist.held).
    held_evidence = forms.CharField(required=False, widget=forms.HiddenInput, max_length=1000)
    discard_held = forms.BooleanField(label="Do not use this file", required=False)
    scope = forms.ChoiceField(
        label="Applies to", choices=SCOPE_CHOICES, widget=forms.RadioSelect, required=False
    )

    def __init__(
        self,
        *args: Any,
        item: ChecklistItem,
        fixed_scope: str | None = None,
        oversized: dict[str, str] | None = None,
        user_id: int | None = None,
        draft: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.item = item
        self.user_id = user_id
        # What the quote already says (checklist.drafts): shown as the answer's starting
        # text, saved only once the vendor confirms it with a status.
        self.draft = draft
        # The file kept for the next submit: claimed from the token, or held after a refusal.
        self.held: held.HeldFile | None = None
        self.fixed_scope = fixed_scope
        self.oversized = oversized or {}
        if fixed_scope:
            del self.fields["scope"]
        self.fields["evidence_file"].widget.attrs["accept"] = ",".join(evidence.CONTENT_TYPES)

    def has_changed(self) -> bool:
        """Changed answer, status or evidence; a scope switch counts only for an existing
        answer (moving an empty item between scopes means nothing)."""
        sent = any(self.add_prefix(name) in self.data for name in SENT_FIELDS)
        if not sent and self.add_prefix("evidence_file") not in self.files:
            return self.add_prefix("evidence_file") in self.oversized  # item not on the page
        if self.draft and self._untouched_draft():
            return False  # the quote's words, not yet confirmed: nothing to save
        changed = set(self.changed_data)
        if "scope" in changed and not (
            self.initial.get("answer") and self.data.get(self.add_prefix("scope"))
        ):
            changed.discard("scope")
        if self.data.get(self.add_prefix("discard_held")):
            changed -= {"held_evidence", "discard_held"}  # dropping a kept file alone is no edit
        return bool(changed) or self.add_prefix("evidence_file") in self.oversized

    def _untouched_draft(self) -> bool:
        """The draft sent back as it was shown: same text, no status, no evidence."""
        text = str(self.data.get(self.add_prefix("answer")) or "").replace("\r\n", "\n")
        return (
            text.strip() == self.draft.strip()
            and not self.data.get(self.add_prefix("status"))
            and not self.data.get(self.add_prefix("evidence_url"))
            and not self.data.get(self.add_prefix("held_evidence"))
            and self.add_prefix("evidence_file") not in self.files
        )

    def clean_evidence_file(self) -> UploadedFile[bytes] | None:
        # A file, False when "clear" was ticked, or None.
        upload: UploadedFile[bytes] | Literal[False] | None = self.cleaned_data.get("evidence_file")
        name = self.oversized.get(self.add_prefix("evidence_file"))
        if name is not None:
            raise ValidationError(evidence.too_large_message(name))
        if upload is False:
            return None
        if upload is None:
            return self._claim_held()
        try:
            evidence.check_upload(upload)
        except DomainError as exc:
            raise ValidationError(exc.message) from exc
        return upload

    def _claim_held(self) -> UploadedFile[bytes] | None:
        """No new file chosen, so the one kept from the last refused save, if any."""
        token = self.data.get(self.add_prefix("held_evidence")) or ""
        if not token or self.data.get(self.add_prefix("discard_held")) or self.user_id is None:
            return None
        claimed = held.claim(token, user_id=self.user_id, field=self.add_prefix("evidence_file"))
        if claimed is None:
            raise ValidationError(
                "The document kept from your last try is no longer available (it expires "
                f"after {held.HOLD_MAX_AGE.total_seconds() / 3600:g} hours); choose it again."
            )
        self.held, upload = claimed
        return upload

    def hold_valid_file(self) -> None:
        """After a refused save: keep this form's valid file for the next submit."""
        cleaned = getattr(self, "cleaned_data", {})
        upload = cleaned.get("evidence_file")
        if not upload or self.user_id is None or self.held is not None:
            return
        self.held = held.hold(upload, user_id=self.user_id, field=self.add_prefix("evidence_file"))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.has_changed():
            return data
        if not (data.get("answer") or "").strip():
            self.add_error("answer", "Write an answer (what you offer, or why not).")
        if not data.get("status"):
            self.add_error("status", "Choose yes, partial, no or unknown.")
        url, upload = data.get("evidence_url") or "", data.get("evidence_file")
        initial_url = self.initial.get("evidence_url") or ""
        if upload and url and url == initial_url:
            data["evidence_url"] = url = ""  # a new document replaces the old link
        if upload and url:
            self.add_error("evidence_url", "Give either a document or a link, not both.")
        if initial_url and not url and not upload:
            data["remove_evidence"] = True  # the link was cleared on purpose
        data["scope"] = self.fixed_scope or data.get("scope") or DEFAULT_SCOPE[self.item.section]
        return data

    def entry(self) -> services.AnswerEntry:
        return services.entry_from_data(self.item, self.cleaned_data)


def answer_initial(row: ItemRow) -> dict[str, Any]:
    answer = row.answer
    if answer is None:
        return {"scope": DEFAULT_SCOPE[row.item.section]}
    scope = services.SCOPE_PROVIDER if row.scope == SCOPE_PROVIDER else services.SCOPE_QUOTE
    return {
        "answer": answer.answer,
        "status": answer.status,
        "evidence_url": answer.evidence_url,
        "scope": scope,
    }


def build_answer_forms(
    rows: list[ChecklistRow],
    *,
    data: Any = None,
    files: Any = None,
    fixed_scope: str | None = None,
    oversized: dict[str, str] | None = None,
    user_id: int | None = None,
    drafts: dict[str, str] | None = None,
) -> list[AnswerForm]:
    """One form per row, attached to the row as `row.form`. `drafts`: {item code: text}
    from the quote (checklist.drafts), offered on items with no answer yet."""
    out = []
    for row in rows:
        draft = (drafts or {}).get(row.item.code, "") if row.answer is None else ""
        initial = answer_initial(row)
        if draft and data is None:  # shown, not given: a bound form compares with blank
            initial["answer"] = draft
        form = AnswerForm(
            data,
            files,
            prefix=row.item.code,
            initial=initial,
            item=row.item,
            fixed_scope=fixed_scope,
            oversized=oversized,
            user_id=user_id,
            draft=draft,
        )
        row.form = form
        out.append(form)
    return out


def changed_entries(answer_forms: list[AnswerForm]) -> list[services.AnswerEntry] | None:
    """The entries to save, or None when any changed form is invalid."""
    changed = [f for f in answer_forms if f.has_changed()]
    if not all(f.is_valid() for f in changed):
        return None
    return [f.entry() for f in changed]


def hold_valid_files(answer_forms: list[AnswerForm]) -> None:
    """A refused save keeps every valid chosen file server-side for the next submit."""
    for form in answer_forms:
        # .errors runs the validation the all-or-nothing check may have skipped.
        if form.is_bound and form.errors is not None:
            form.hold_valid_file()


def release_held_files(answer_forms: list[AnswerForm]) -> None:
    """After a save: the answers hold their own copies, so the kept files go."""
    for form in answer_forms:
        if form.held is not None:
            held.release(form.held)


class ReviewForm(forms.Form):
    decision = forms.ChoiceField(
        label="Decision",
        choices=[(c, label) for c, label in ChecklistAnswer.ReviewStatus.choices if c != "pending"],
    )
    comment = forms.CharField(
        label="Comment",
        max_length=5000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Required unless you accept the answer.",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        decision = data.get("decision")
        if decision and decision != "accepted" and not (data.get("comment") or "").strip():
            self.add_error(
                "comment",
                "Say what is missing or wrong: a comment is required unless you accept the answer.",
            )
        return data


@dataclass
class ChecklistRow(ItemRow):
    """An item row as a checklist page shows it: the read row plus what the page attaches
    (the vendor's answer form; for staff, whether they may review it and the review form)."""

    form: AnswerForm | None = None
    can_review: bool = False
    review_form: ReviewForm | None = None

    @classmethod
    def of(cls, row: ItemRow) -> ChecklistRow:
        return cls(**{f.name: getattr(row, f.name) for f in fields(ItemRow)})


def checklist_rows(detail: ChecklistDetail) -> list[ChecklistRow]:
    """Turn the detail's rows into page rows (in place, so its sections show them too)."""
    rows = [ChecklistRow.of(row) for row in detail.rows]
    detail.rows = [*rows]
    return rows
