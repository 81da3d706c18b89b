"""A pickled Flight Recorder dump read as data, never as code, and at a bounded cost. torch writes a
dump with plain types only (dicts, lists, tuples, strings, numbers, booleans, None), so a pickle that
names any global (the way a pickle runs code: os.system, builtins.eval, ...) or builds an object is
not one of torch's: it is refused before a byte of it is unpickled, and the unpickler itself resolves
no name. What it would build is counted first, as it would be built, shared objects each time they
are used (pickle_cost.py): past BUDGET it is refused unread too."""

from __future__ import annotations

import io
import pickle
import pickletools

from .pickle_cost import Unread, cost

# what a pickle may cost (pickle_cost.py): torch's entry costs about 100, and 14 more for each frame
# of its stack, so a ring of 2,000 entries with 100-frame stacks costs 3 million; at the budget a
# dump is read in a few seconds, in under 200 MB however its objects are shaped
BUDGET = 4_000_000


class NotData(ValueError):
    """A pickle that holds more than plain data, or more than a dump."""


def plain_loads(data: bytes, budget: int = BUDGET) -> object:
    """The plain data a pickle holds; NotData naming the first opcode that would do more, or saying
    that it would build more than `budget` (pickle_cost.py)."""
    try:
        cost(data, budget)
    except Unread as e:
        raise NotData(_said(data, e)) from None
    try:
        return _Plain(io.BytesIO(data)).load()
    except NotData:
        raise
    except Exception as e:  # well-formed opcodes that build nothing sound (a dict keyed by a list)
        raise NotData(f"it is not a pickle of plain data ({type(e).__name__}: {e})") from None


def _said(data: bytes, stopped: Unread) -> str:
    if stopped.over:
        return (
            f"{stopped} by byte {stopped.at} (a shared one counted each time it is used): more than a "
            "Flight Recorder dump holds, refused unread"
        )
    if not stopped.code:
        return f"it is not a whole pickle ({stopped}, at byte {stopped.at})"
    strings: list[str] = []  # the last two pushed: what a STACK_GLOBAL names
    try:  # the opcode named as pickletools names it (the scan stopped within the budget)
        for op, arg, pos in pickletools.genops(data):
            if pos == stopped.at:
                named = arg if op.name != "STACK_GLOBAL" else " ".join(strings)
                shown = f" ({named})" if isinstance(named, str) and named else ""
                return (
                    f"it holds {op.name}{shown} at byte {pos}, which builds an object or calls a "
                    "function: a Flight Recorder dump holds plain data only, and this is refused unread"
                )
            if isinstance(arg, str):
                strings = [*strings[-1:], arg]
    except Exception as e:  # a corrupt opcode: genops says what
        return f"it is not a whole pickle ({e})"
    return f"it is not a whole pickle (an unknown opcode at byte {stopped.at})"


class _Plain(pickle.Unpickler):
    """Resolves no name and no persistent id: the scan above already refused any pickle that asks."""

    def find_class(self, module: str, name: str):
        raise NotData(f"it names {module}.{name}: a dump holds plain data only")

    def persistent_load(self, pid):
        raise NotData("it names a persistent object: a dump holds plain data only")
