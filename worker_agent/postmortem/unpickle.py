"""A pickled Flight Recorder dump read as data, never as code. torch writes a dump with plain types
only (dicts, lists, tuples, strings, numbers, booleans, None), so a pickle that names any global
(the way a pickle runs code: os.system, builtins.eval, ...) or builds an object is not one of
torch's: it is refused before a byte of it is unpickled, and the unpickler itself resolves no name."""

from __future__ import annotations

import io
import pickle
import pickletools

# the opcodes that build the plain types and nothing else (protocol 0 to 5)
PLAIN = frozenset(
    {
        *("PROTO", "FRAME", "STOP", "MARK", "POP", "POP_MARK", "DUP"),
        *("NONE", "NEWTRUE", "NEWFALSE", "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4"),
        *("FLOAT", "BINFLOAT"),
        *("STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "SHORT_BINUNICODE", "BINUNICODE"),
        *("BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8"),
        *("EMPTY_LIST", "APPEND", "APPENDS", "LIST", "EMPTY_TUPLE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3"),
        *("EMPTY_DICT", "DICT", "SETITEM", "SETITEMS"),
        *("GET", "BINGET", "LONG_BINGET", "PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"),
    }
)


class NotData(ValueError):
    """A pickle that holds more than plain data."""


def plain_loads(data: bytes) -> object:
    """The plain data a pickle holds; NotData naming the first opcode that would do more."""
    strings: list[str] = []  # the last two pushed: what a STACK_GLOBAL names
    try:
        for op, arg, pos in pickletools.genops(data):
            if isinstance(arg, str):
                strings = [*strings[-1:], arg]
            if op.name not in PLAIN:
                name = arg if op.name != "STACK_GLOBAL" else " ".join(strings)
                named = f" ({name})" if isinstance(name, str) and name else ""
                raise NotData(
                    f"it holds {op.name}{named} at byte {pos}, which builds an object or calls a "
                    "function: a Flight Recorder dump holds plain data only, and this is refused unread"
                )
    except NotData:
        raise
    except Exception as e:  # a truncated or corrupt pickle: genops says where
        raise NotData(f"it is not a whole pickle ({e})") from None
    return _Plain(io.BytesIO(data)).load()


class _Plain(pickle.Unpickler):
    """Resolves no name and no persistent id: the scan above already refused any pickle that asks."""

    def find_class(self, module: str, name: str):
        raise NotData(f"it names {module}.{name}: a dump holds plain data only")

    def persistent_load(self, pid):
        raise NotData("it names a persistent object: a dump holds plain data only")
