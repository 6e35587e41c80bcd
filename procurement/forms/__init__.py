"""Forms of the decisions app, one module per area."""
