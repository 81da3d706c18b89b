"""A user's own torchrun job that Ringside watches and never drives: matching across ranks,
hangs, store, routes."""
