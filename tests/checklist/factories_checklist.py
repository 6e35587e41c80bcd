"""Factories for checklist answers and reviews (items come from the seed migration)."""

from __future__ import annotations

import factory
from factory.django import DjangoModelFactory

from checklist.models import ChecklistAnswer, ChecklistItem, ChecklistReview
from core.roles import Role
from tests.factories import ProviderFactory, UserFactory


def item(code: str) -> ChecklistItem:
    return ChecklistItem.objects.get(code=code)


class AnswerFactory(DjangoModelFactory[ChecklistAnswer]):
    """A provider default answer with an evidence link, unless told otherwise."""

    class Meta:
        model = ChecklistAnswer

    provider = factory.SubFactory(ProviderFactory)
    quote = None
    item = factory.LazyFunction(lambda: ChecklistItem.objects.order_by("order").first())
    answer = "Documented in our public specification."
    status = ChecklistAnswer.Status.YES
    evidence_url = "https://example.com/spec.pdf"
    answered_by = factory.SubFactory(
        UserFactory,
        role=Role.VENDOR,
        provider=factory.SelfAttribute("..provider"),
    )


class ReviewFactory(DjangoModelFactory[ChecklistReview]):
    class Meta:
        model = ChecklistReview

    answer = factory.SubFactory(AnswerFactory)
    reviewer = factory.SubFactory(UserFactory, role=Role.ADMIN)
    decision = "accepted"
    comment = ""
