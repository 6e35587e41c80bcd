"""Forms of the review screens: the decision, the row filters, the pair picker, audit filters.

They validate shape only; `services_reviews.review_submit` enforces the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms

from core.forms import field_of
from core.templatetags.numbers import human
from procurement.models import CandidateResult, Review
from procurement.selectors.reviews.acknowledge import CODES as ACK_CODES
from procurement.selectors.reviews.acknowledge import Acknowledgement
from procurement.selectors.reviews.rows import SORTS, capacity_choices, provider_choices
from procurement.selectors.reviews.same_need import same_need_choices
from procurement.services.reviews import COMMENT_MAX


class DecisionRadios(forms.RadioSelect):
    """Radio buttons of which some can be shown disabled (Approve, when the reviewer may only
    reject or request changes): the choice is visible, with the reason next to the bar."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.closed: frozenset[str] = frozenset()

    def create_option(self, *args: Any, **kw: Any) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(*args, **kw)
        if str(option["value"]) in self.closed:
            closed = {"disabled": True, "aria-describedby": "approve-closed"}
            option["attrs"] = {**option["attrs"], **closed}
        return option


class AcknowledgeField(forms.MultipleChoiceField):
    """Ticks shown for the candidate the page offered; any warning code is taken, so a
    reviewer who chose another candidate is told by the service what that one needs."""

    def valid_value(self, value: Any) -> bool:
        return str(value) in ACK_CODES


class ReviewForm(forms.Form):
    decision = forms.ChoiceField(choices=Review.Decision.choices, widget=DecisionRadios)
    candidate = forms.ChoiceField(
        required=False,
        help_text="The row you approve, or the cheapest plan across offers; the recommended "
        "row unless you choose another.",
    )
    comment = forms.CharField(
        max_length=COMMENT_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Required: what you checked and why you decided.",
    )
    justification = forms.CharField(
        required=False,
        max_length=COMMENT_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Required when you approve a row other than the recommended one, or the plan.",
    )
    same_need = forms.ChoiceField(
        required=False,
        choices=same_need_choices(),
        widget=forms.RadioSelect,
        label="Approving this comparison",
    )
    # One tick per named warning of what is approved (U8); the service says which are missing.
    acknowledge = AcknowledgeField(
        required=False, widget=forms.CheckboxSelectMultiple, label="I accept"
    )

    def __init__(
        self,
        *args: Any,
        candidates: Sequence[CandidateResult],
        recommended_key: str,
        plan_choice: tuple[str, str] | None = None,
        acknowledgements: Sequence[Acknowledgement] = (),
        acknowledge_for: str = "",
        **kw: Any,
    ) -> None:
        super().__init__(*args, **kw)
        self.acknowledge_for = acknowledge_for or recommended_key  # the ticks' candidate
        field_of(self, "acknowledge", AcknowledgeField).choices = [
            (a.code, a.words) for a in acknowledgements
        ]
        choices = [
            (c.key, f"{c.label}{' (recommended)' if c.key == recommended_key else ''}")
            for c in candidates
            if c.eligible
        ]
        # The cheapest plan across offers, when there is one to approve (its key and words).
        plan = [plan_choice] if plan_choice is not None else []
        # The recommended row is listed once, as itself ("… (recommended)"), and chosen by
        # default; the blank choice only where there is no recommended row to name.
        blank = [] if any(key == recommended_key for key, _ in choices) else [("", "—")]
        field_of(self, "candidate", forms.ChoiceField).choices = [*blank, *plan, *choices]
        self.fields["candidate"].initial = recommended_key
        self.fields["candidate"].widget.attrs["data-recommended"] = recommended_key

    def close_approve(self) -> None:
        """Show Approve disabled: this reviewer may only reject or request changes."""
        widget = self.fields["decision"].widget
        if isinstance(widget, DecisionRadios):
            widget.closed = frozenset({str(Review.Decision.APPROVE)})


class RowFilterForm(forms.Form):
    """GET filters of the candidate table; bad values are reported, defaults then apply."""

    eligible = forms.BooleanField(required=False, label="Eligible only")
    capacity = forms.ChoiceField(required=False, label="Capacity model")
    provider = forms.ChoiceField(required=False)
    sort = forms.ChoiceField(
        required=False, choices=[(k, label) for k, (label, _) in SORTS.items()], label="Sort by"
    )

    def __init__(self, *args: Any, rows: Sequence[CandidateResult], **kw: Any) -> None:
        super().__init__(*args, **kw)
        field_of(self, "capacity", forms.ChoiceField).choices = [("", "Any")] + [
            (c, human(c))
            for c in capacity_choices(rows)  # "Spot / preemptible", as elsewhere
        ]
        field_of(self, "provider", forms.ChoiceField).choices = [("", "Any")] + [
            (p, p) for p in provider_choices(rows)
        ]

    def filters(self) -> dict[str, Any]:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "eligible_only": bool(data.get("eligible")),
            "capacity_model": data.get("capacity") or "",
            "provider": data.get("provider") or "",
            "sort": data.get("sort") or "unit",
        }


class PairForm(forms.Form):
    """Which two candidates the side-by-side view compares."""

    a = forms.ChoiceField(label="Candidate A")
    b = forms.ChoiceField(label="Candidate B")

    def __init__(self, *args: Any, rows: Sequence[CandidateResult], **kw: Any) -> None:
        super().__init__(*args, **kw)
        choices = [(r.key, r.label) for r in rows]
        field_of(self, "a", forms.ChoiceField).choices = choices
        field_of(self, "b", forms.ChoiceField).choices = choices

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("a") and data.get("a") == data.get("b"):
            raise forms.ValidationError("Choose two different candidates.")
        return data


class AuditFilterForm(forms.Form):
    actor = forms.CharField(required=False, max_length=150, help_text="Username")
    action = forms.ChoiceField(required=False)
    object_type = forms.ChoiceField(required=False, label="Object type")
    date_from = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        required=False, label="To", widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(
        self,
        *args: Any,
        actions: Sequence[tuple[str, str]],
        object_types: Sequence[tuple[str, str]],
        **kw: Any,
    ) -> None:
        """`actions` and `object_types`: (code, words) pairs; the menus read as words."""
        super().__init__(*args, **kw)
        field_of(self, "action", forms.ChoiceField).choices = [
            ("", "Any"),
            *sorted(actions, key=lambda pair: pair[1]),
        ]
        field_of(self, "object_type", forms.ChoiceField).choices = [
            ("", "Any"),
            *sorted(object_types, key=lambda pair: pair[1]),
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The end date is before the start date.")
        return data
