"""Users' own algorithms: schedules from their files, MSCCL XML, and send/recv code that is
recorded as it runs and rebuilt into a schedule. A user's file imports what it writes with
from here: `from ringside.worker_agent.user import algorithm, reduce, send, step, traced`."""

from .user_algorithms import algorithm, reduce, send, step, traced

__all__ = ["algorithm", "reduce", "send", "step", "traced"]
