"""Decisions: comparisons of offers against a brief, their reviews and the decision record."""
