"""A collective run: its record, its job, its store, its figures and trace, and its routes."""
