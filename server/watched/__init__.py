"""A user's own torchrun job that Ringside watches (never drives): matching across ranks, hangs, store, routes."""
