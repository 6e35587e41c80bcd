"""Operational records: worker round-trip probes and the beat's heartbeat."""

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


class Heartbeat(models.Model):
    """The last time a worker ran the beat's one-minute heartbeat task (L3): fresh only while
    the beat schedules and some worker takes work, which is what /healthz reports."""

    name = models.CharField(max_length=40, unique=True)
    at = models.DateTimeField()
    worker_hostname = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"
