"""Ringside's server: app.py assembles it; each feature is a package of its own (DESIGN.md)."""
