"""Clients of a running server: `ringside run`, the bench's --server, and the harness that
tests and benchmarks start a server with."""
