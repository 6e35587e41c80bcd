"""The pure side of FinOps: FOCUS columns and files, matching a bill to a decision, and the
reconciliation arithmetic. No Django, no Celery, none of our models (import-linter checks it):
plain values and file bytes in, frozen dataclasses and bytes out."""
