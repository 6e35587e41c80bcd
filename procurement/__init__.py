"""The GPU procurement workbench: Django project package and the decision app."""

from procurement.celery import app as celery_app

__all__ = ("celery_app",)
