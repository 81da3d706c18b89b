"""Real gloo ranks for the tests: see worker_agent/rank/local.py."""

from ringside.worker_agent.rank.local import Died, RankError, free_port, run_ranks, unwrap

__all__ = ["Died", "RankError", "free_port", "run_ranks", "unwrap"]
