"""Catalog HTML views (staff pages); the vendor portal is `catalog.views.vendor`."""
