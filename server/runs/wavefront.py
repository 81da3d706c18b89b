"""What the server keeps of a perturbed run (perturb.py): the extra time the schedule
predicts, and, for a hang, the wavefront, as PyTorch's flight recorder would name it.

A hang run's ranks report every step as it completes and every step as they begin
it (protocol.Arrived). From those alone the wavefront follows: a rank inside a step
waits for the peers of that step that have not begun it; a rank that has finished
one step but not begun the next, while others wait on it (directly or through
ranks that wait on it), is the rank everyone is waiting for. It is sent to viewers
as it changes (`wavefront` messages) and kept in the run, and a run that then fails
is said to have failed on that rank and step."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel

from ringside.server.door.audience import Audience, RunNamed
from ringside.server.door.guard import bounded
from ringside.worker_agent.core import perturb, vocabulary
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import Arrived, StepEvent

if TYPE_CHECKING:
    from ringside.server.runs.run import Run


class Wavefront(BaseModel):
    """Where every rank is, and, once one is, the rank the others wait for."""

    done: dict[str, int]  # each rank's last completed step (-1: none yet)
    arrived: dict[str, int]  # the last step each rank has begun (-1: none yet)
    rank: int | None = None  # the rank the others wait for
    step: int | None = None  # the step it has not begun
    waiting: list[int] = []  # the ranks that wait for it, directly or through others
    sends: list[tuple[int, int]] = []  # what it is to send there: (chunk, to rank)
    receives: list[tuple[int, int]] = []  # and to receive: (chunk, from rank)
    text: str = ""


class Perturbed(BaseModel):
    """A perturbed run's record besides its spec."""

    predicted_extra_s: float | None = None  # what the schedule predicts it adds; None for a hang
    wavefront: Wavefront | None = None  # a hang run's, while it runs and after


class WavefrontMessage(BaseModel):
    """To viewers, whenever a hang run's wavefront changes (each change is a time)."""

    audience: ClassVar[Audience] = Audience.HELD
    type: Literal["wavefront"] = "wavefront"
    run_id: str
    wavefront: Wavefront

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run_id),)


def record(run: Run) -> Perturbed | None:
    """A new run's record of its perturbation (None if it has none). The run must be planned."""
    option = run.spec.perturb
    if option is None:
        return None
    itemsize = vocabulary.ITEMSIZE[get(run.spec.collective).dtype(run.spec)]
    chunk_bytes = [(b - a) * itemsize for a, b in run.chunk_bounds]
    steps = [s.transfers for s in run.steps] if run.algorithm.planned else None
    extra = perturb.predicted_extra(option, steps, chunk_bytes, run.group)
    start = {str(r): -1 for r in run.group}
    return Perturbed(
        predicted_extra_s=extra, wavefront=Wavefront(done=start, arrived=dict(start)) if option.live else None
    )


def observe(run: Run, event) -> Wavefront | None:
    """Take a rank's step or arrival into a hang run's wavefront; the wavefront if it changed."""
    front = run.perturbed.wavefront if run.perturbed is not None else None
    if front is None or not isinstance(event, (Arrived, StepEvent)) or str(event.rank) not in front.done:
        return None
    # a step beyond the plan names nothing (service.nonsense fails the run)
    if not 0 <= event.step < len(run.steps):
        return None
    kind = "arrived" if isinstance(event, Arrived) else "done"
    mine = getattr(front, kind)
    if event.step <= mine[str(event.rank)]:
        return None
    mine[str(event.rank)] = event.step
    if kind == "done":  # a step done was begun, even if its arrival is yet to come
        front.arrived[str(event.rank)] = max(front.arrived[str(event.rank)], event.step)
    before = (front.rank, front.step, front.waiting)
    _locate(front, [s.transfers for s in run.steps], run.group)
    return front if (front.rank, front.step, front.waiting) != before else None


def _locate(front: Wavefront, steps: list[list[list[int]]], group: list[int]) -> None:
    """Name the one rank that blocks the others, if there is one now."""
    done = {r: front.done[str(r)] for r in group}
    arrived = {r: front.arrived[str(r)] for r in group}
    last = len(steps) - 1
    waits_for = {}
    for r in group:
        s = arrived[r]
        if s > done[r]:  # inside step s: its peers there that have not begun it hold it up
            waits_for[r] = {q for q in perturb.peers(steps[s]).get(r, ()) if arrived[q] < s}
    idle = {q for q in group if arrived[q] == done[q] < last}  # between steps, with steps to go
    blocked_by: dict[int, set[int]] = {}
    for r in waits_for:
        for q in _reach(r, waits_for):
            if q in idle:
                blocked_by.setdefault(q, set()).add(r)
    front.rank = front.step = None
    front.waiting, front.sends, front.receives, front.text = [], [], [], ""
    if len(blocked_by) != 1:  # nobody waits, or for several: no one rank to name
        return
    ((rank, waiting),) = blocked_by.items()
    step = done[rank] + 1
    front.rank, front.step, front.waiting = rank, step, sorted(waiting)
    front.sends = [(c, dst) for src, dst, c, *_ in steps[step] if src == rank != dst]
    front.receives = [(c, src) for src, dst, c, *_ in steps[step] if dst == rank != src]
    front.text = describe(front, final=False)


def _reach(start: int, waits_for: dict[int, set[int]]) -> set[int]:
    """Every rank `start` waits for, directly or through the ranks it waits for."""
    seen, frontier = set(), [start]
    while frontier:
        for q in waits_for.get(frontier.pop(), ()):
            if q not in seen:
                seen.add(q)
                frontier.append(q)
    return seen


def describe(front: Wavefront, final: bool) -> str:
    """'rank 2 never arrived at step 3 (step 4 counting from 1); ranks 0, 1, 3 waited for it: it was to
    send chunk 1 to rank 3'. The step as the run's hang option gives it (from 0), and as the page's
    player counts it (from 1)."""
    waiting = ", ".join(map(str, front.waiting))
    who = f"rank{'s' if len(front.waiting) > 1 else ''} {waiting}"
    sends = " and ".join(f"chunk {c} to rank {d}" for c, d in front.sends)
    receives = " and ".join(f"chunk {c} from rank {s}" for c, s in front.receives)
    duty = f"send {sends}" if sends else f"receive {receives}"
    step = "0 (its first)" if front.step is None else f"{front.step} (step {front.step + 1} counting from 1)"
    if final:
        return f"rank {front.rank} never arrived at step {step}; {who} waited for it: it was to {duty}"
    return f"rank {front.rank} has not arrived at step {step}; {who} wait for it: it is to {duty}"


def blame(run: Run, error: str | None, reports: dict[int, str]) -> None:
    """A failed hang run names the rank and step the others waited for, before that rank's own
    report of it if it came (`reports`: each rank's first error), else the first report of the
    failure (a rank's, or `error`, the server's): the ranks that gave up on it first say only
    that a peer did not answer."""
    front = run.perturbed.wavefront if run.perturbed is not None else None
    if front is None or front.rank is None:
        return
    own, first = reports.get(front.rank), run.error or error
    said = f" (its own report: {own})" if own else f" (first report: {first})" if first else ""
    run.error = bounded(describe(front, final=True) + said, 1000)
