"""`torchrun ... -m ringside.bench ARGS`: `ringside bench` on every rank of a torchrun job, on
one node or many; every rank measures and rank 0 prints the one table of all the ranks' numbers
(ringside/worker_agent/bench.py says what they are). The flags are `ringside bench`'s, less
--ranks: the ranks are torchrun's."""
