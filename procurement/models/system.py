"""Operational records: worker round-trip probes."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class WorkerProbe(models.Model):
    """A round trip web → broker → worker → database, requested from the dashboard."""

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    worker_hostname = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"Probe {self.pk}"
