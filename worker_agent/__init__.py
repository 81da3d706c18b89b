"""Ringside's worker agent: one rank that runs collectives for real and reports every step."""
