"""The cluster: its ranks, their sockets, and what it offers (health, catalog, metrics)."""
