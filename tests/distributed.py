"""Real gloo ranks for the tests: see worker_agent/local.py."""

from ringside.worker_agent.local import Died, RankError, free_port, run_ranks, unwrap

__all__ = ["Died", "RankError", "free_port", "run_ranks", "unwrap"]
