"""Ringside's server: cluster registry, run queue, store, fan-out to viewers, cost model."""
