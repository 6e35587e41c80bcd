"""Reads for the review screens, the decision record, the exports and the audit page."""
