"""The SQLite file every feature keeps its records in: its schema, and the writer thread that
lands writes off the event loop."""
