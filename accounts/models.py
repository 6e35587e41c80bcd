"""Users, their role, and the provider organisation a vendor user belongs to."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q

from core.roles import Role


class Provider(models.Model):
    """An organisation offering GPUs or a model API; vendor users belong to exactly one."""

    class Kind(models.TextChoices):
        HYPERSCALER = "hyperscaler", "Hyperscale cloud"
        GPU_CLOUD = "gpu_cloud", "GPU cloud"
        MARKETPLACE = "marketplace", "Marketplace"
        PRIVATE_CLOUD = "private_cloud", "Private cloud / colocation"
        OEM = "oem", "Hardware vendor (purchase)"
        MODEL_API = "model_api", "Model API"

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.GPU_CLOUD)
    website = models.URLField(blank=True)
    contact_email = models.EmailField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class User(AbstractUser):
    """A person using the workbench, with one role; vendors also carry their provider."""

    role = models.CharField(max_length=20, choices=Role.choices, default=Role.PROCUREMENT_LEAD)
    provider = models.ForeignKey(
        Provider, null=True, blank=True, on_delete=models.PROTECT, related_name="users"
    )
    # Where the user last logged in: the per-account login limit never refuses it.
    last_login_address = models.GenericIPAddressField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="vendor_has_provider",
                condition=~Q(role="vendor") | Q(provider__isnull=False),
            )
        ]

    def __str__(self) -> str:
        return self.get_full_name() or self.username


class LoginFailure(models.Model):
    """A failed login (or, with `throttled`, one address's refusals in a window, counted in
    `attempts`), kept to throttle guessing; rows older than two windows are purged."""

    username = models.CharField(max_length=150, db_index=True)
    ip_address = models.GenericIPAddressField(null=True, db_index=True)
    throttled = models.BooleanField(default=False)
    # The known-device id when the attempt came from a browser that logged in to this account
    # before ("" otherwise): such a device is limited on its own.
    device = models.CharField(max_length=32, blank=True, default="")
    # A refusal row aggregates an address's refusals, so a flood adds no rows.
    attempts = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.username} from {self.ip_address}"


class PasswordResetRequest(models.Model):
    """One request for a reset link, kept to throttle them per address and per e-mail address
    (known or not, so the limit tells nothing about accounts); purged after two windows."""

    email = models.CharField(max_length=254, db_index=True)
    ip_address = models.GenericIPAddressField(null=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.email} from {self.ip_address}"


class LoginLinkRequest(models.Model):
    """A one-time sign-in link asked for by a stepped-up login with the right password, kept to
    limit the mails per account (``LOGIN_LINK_MAIL_LIMIT`` per window); purged after two."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    ip_address = models.GenericIPAddressField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"sign-in link for {self.user_id} from {self.ip_address}"
