"""Data-parallel training on every rank: the data, the rules a training spec follows, the
gradient sync by any method, the loop, and its command line."""
