"""Project package: settings, root URLs, the Celery application, WSGI/ASGI entry points."""

from config.celery import app as celery_app

__all__ = ("celery_app",)
