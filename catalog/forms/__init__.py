"""Catalog forms: shape only; the services apply the rules (quotes.py, reference.py)."""
