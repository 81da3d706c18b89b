"""Real gloo ranks for the tests (see worker_agent/rank/local.py), and users' algorithms
registered for one test module only."""

import contextlib
import signal
import subprocess

import psutil

from ringside.worker_agent.core import predict
from ringside.worker_agent.core.algorithms import algorithms, build, registry
from ringside.worker_agent.rank.local import Died, RankError, free_port, run_ranks, unwrap

__all__ = ["Died", "RankError", "free_port", "run_ranks", "unwrap", "registered_here", "stop_torchrun"]


def stop_torchrun(proc: subprocess.Popen) -> None:
    """torchrun and its ranks, whatever state they are in: a stopped rank is let go on first (it
    would not hear the end), then torchrun is told to stop them. Its ranks are sessions of their
    own, so a signal to torchrun's process group does not reach them."""
    if proc.poll() is not None:
        return
    ranks = psutil.Process(proc.pid).children(recursive=True)
    for rank in ranks:
        with contextlib.suppress(psutil.Error):
            rank.send_signal(signal.SIGCONT)
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        for rank in ranks:
            with contextlib.suppress(psutil.Error):
                rank.kill()
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def registered_here(load_all):
    """What `load_all()` registers, for the `with` only: the modules after it, in whatever order a
    test process runs them (pytest-xdist gives a process modules in any order), see the built-ins."""
    before = {(a.collective, a.name) for a in algorithms()}
    load_all()
    try:
        yield
    finally:
        for collective, name in {(a.collective, a.name) for a in algorithms()} - before:
            registry._TABLE[collective].pop(name)
        build.cache_clear()
        predict.forget()
