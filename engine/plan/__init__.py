"""Plans over the brief's load: break-even between capacity models, the hybrid base + overflow."""
