"""Plans over the brief's load: break-even between capacity models and the hybrid base + overflow."""
