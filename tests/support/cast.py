"""THE cast: every user of the suite, one per role, each with why it exists.

`tests/conftest.py` turns each entry into a fixture of the same name (role-parametrised
tests use `request.getfixturevalue("vendor_b")`); worlds built once per module (the security
matrix) call `build_cast()`. Nothing else in the suite creates these users. Usernames are
what the pages show. (A conftest is not meant to be imported, hence this module.)
"""

from __future__ import annotations

from typing import Any

__all__ = ["CAST", "PROVIDERS", "build_cast", "build_member", "build_provider"]

# name: (username, role, extra fields, why). "provider" names a PROVIDERS entry.
CAST: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "lead": ("lead", "PROCUREMENT_LEAD", {}, "creates briefs, quotes, RFQs and comparisons"),
    "lead_other": ("lead2", "PROCUREMENT_LEAD", {}, "a lead who did not create the object"),
    "engineer": ("engineer", "PLATFORM_ENGINEER", {}, "benchmarks, model profiles, fit review"),
    "finance": ("finance", "FINANCE_REVIEWER", {}, "FX rates, the cost review, the audit page"),
    "finance_other": ("finance2", "FINANCE_REVIEWER", {}, "a second approval (two persons)"),
    "security": ("security", "SECURITY_REVIEWER", {}, "the checklist review, the audit page"),
    "vendor_a": ("vendor_a", "VENDOR", {"provider": "provider_a"}, "sees provider A's only"),
    "vendor_b": ("vendor_b", "VENDOR", {"provider": "provider_b"}, "probes A's objects: 404"),
    "admin_member": (  # not pytest-django's `admin_user` (no role), which it used to shadow
        "admin",
        "ADMIN",
        {"is_staff": True, "is_superuser": True},
        "role ADMIN with Django's staff and superuser flags",
    ),
}
# Two providers, so that "another vendor" always exists.
PROVIDERS = {"provider_a": ("Provider A", "provider-a"), "provider_b": ("Provider B", "provider-b")}


def build_provider(name: str) -> Any:
    from tests.factories import ProviderFactory

    label, slug = PROVIDERS[name]
    return ProviderFactory(name=label, slug=slug)


def build_member(name: str, **providers: Any) -> Any:
    """One member of the cast; a vendor needs its provider (`provider_a=...`)."""
    from core.roles import Role
    from tests.factories import UserFactory

    username, role, extra, _why = CAST[name]
    fields = {k: providers[v] if k == "provider" else v for k, v in extra.items()}
    return UserFactory(username=username, role=Role[role], **fields)


def build_cast() -> dict[str, Any]:
    """Every member and both providers, by fixture name."""
    providers = {name: build_provider(name) for name in PROVIDERS}
    return {**providers, **{name: build_member(name, **providers) for name in CAST}}
