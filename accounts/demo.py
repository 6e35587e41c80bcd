"""Demo organisations and users (make run only; refused in production mode)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from accounts.models import Provider, User
from core.roles import Role

DEMO_PROVIDERS = [
    ("Northwind GPU Cloud", "northwind", Provider.Kind.GPU_CLOUD, "https://northwind.example"),
    ("Contoso Compute", "contoso", Provider.Kind.GPU_CLOUD, "https://contoso.example"),
]
DEMO_USERS = [
    ("lead", Role.PROCUREMENT_LEAD, None, "Lena", "Lead"),
    ("engineer", Role.PLATFORM_ENGINEER, None, "Eli", "Engineer"),
    ("finance", Role.FINANCE_REVIEWER, None, "Fatima", "Finance"),
    ("finance2", Role.FINANCE_REVIEWER, None, "Felix", "Finance"),
    ("security", Role.SECURITY_REVIEWER, None, "Sam", "Security"),
    ("vendor_a", Role.VENDOR, "northwind", "Vera", "Northwind"),
    ("vendor_b", Role.VENDOR, "contoso", "Victor", "Contoso"),
    ("admin", Role.ADMIN, None, "Ada", "Admin"),
]


def load(stdout: Any = None) -> dict[str, User]:
    providers = {}
    for name, slug, kind, website in DEMO_PROVIDERS:
        providers[slug], _ = Provider.objects.get_or_create(
            slug=slug, defaults={"name": name, "kind": kind, "website": website}
        )
    users = {}
    for username, role, provider_slug, first, last in DEMO_USERS:
        user, created = User.objects.get_or_create(
            username=username,
            defaults={
                "role": role,
                "provider": providers.get(provider_slug) if provider_slug else None,
                "first_name": first,
                "last_name": last,
                "email": f"{username}@example.com",
                "is_staff": role == Role.ADMIN,
                "is_superuser": role == Role.ADMIN,
            },
        )
        if created:
            user.set_password(settings.DEMO_PASSWORD)
            user.save(update_fields=["password"])
        users[username] = user
    if stdout:
        stdout.write(f"demo users: {', '.join(users)} (password {settings.DEMO_PASSWORD})")
    return users
