"""The element types and reductions a bench runs: every dtype torch has whose values torch's
gloo or NCCL process groups carry, each under torch's name and, where nccl-tests has one, under
theirs (`-d half` is `-d float16`), with the reductions each backend takes for it.

What a backend takes is torch's answer, not the collective's definition: gloo's collectives
refuse float8 and the unsigned types past uint8 ("Invalid scalar type"), reduce complex values
only by SUM and AVG, and gather none; torch's NCCL carries float8 as bytes (so it moves them but
does not reduce them) and complex values as pairs of reals (SUM and AVG). A test runs every
combination this module says gloo takes on real gloo ranks, so a torch that changes its mind is
caught. No torch is imported here: the server plans benches with it."""

from __future__ import annotations

from dataclasses import dataclass

from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.vocabulary import OPS

ALL = "all"  # nccl-tests' -d all and -o all


@dataclass(frozen=True)
class BenchType:
    """One element type: torch's name, nccl-tests' where it differs, and how its inputs are made."""

    name: str  # torch's: getattr(torch, name)
    itemsize: int
    kind: str  # bool, int, uint, float or complex
    nccl: str | None = None  # nccl-tests' -d name and type column, where nccl-tests has the type
    generated_as: str | None = None  # numpy's dtype for its inputs, where numpy has none of its own
    backends: tuple[str, ...] = ("gloo", "nccl")

    @property
    def column(self) -> str:
        """The type column's word: nccl-tests' name, else torch's."""
        return self.nccl or self.name

    @property
    def numpy(self) -> str:
        return self.generated_as or self.name


def _t(name: str, itemsize: int, kind: str, nccl: str | None = None, **more) -> BenchType:
    return BenchType(name, itemsize, kind, nccl, **more)


# In nccl-tests' order (their -d all), then the types nccl-tests has no name for.
TYPES: dict[str, BenchType] = {
    t.name: t
    for t in (
        _t("int8", 1, "int", "int8"),
        _t("uint8", 1, "uint", "uint8"),
        _t("int32", 4, "int", "int32"),
        _t("uint32", 4, "uint", "uint32", backends=()),
        _t("int64", 8, "int", "int64"),
        _t("uint64", 8, "uint", "uint64", backends=()),
        _t("float16", 2, "float", "half"),
        _t("float32", 4, "float", "float"),
        _t("float64", 8, "float", "double"),
        _t("bfloat16", 2, "float", "bfloat16", generated_as="float32"),
        _t("float8_e4m3fn", 1, "float", "f8e4m3", generated_as="float32", backends=("nccl",)),
        _t("float8_e5m2", 1, "float", "f8e5m2", generated_as="float32", backends=("nccl",)),
        _t("bool", 1, "bool"),
        _t("int16", 2, "int", backends=()),
        _t("uint16", 2, "uint", backends=()),
        _t("float8_e4m3fnuz", 1, "float", generated_as="float32", backends=("nccl",)),
        _t("float8_e5m2fnuz", 1, "float", generated_as="float32", backends=("nccl",)),
        _t("complex64", 8, "complex"),
        _t("complex128", 16, "complex"),
    )
}
# nccl-tests' older names, and the short ones torch users write
ALIASES = {
    **{t.nccl: t.name for t in TYPES.values() if t.nccl},
    "char": "int8",
    "int": "int32",
    "float": "float32",
    "half": "float16",
    "double": "float64",
    "bf16": "bfloat16",
    "fp16": "float16",
    "fp32": "float32",
    "fp64": "float64",
}
OP_NAMES = {"sum": "SUM", "prod": "PRODUCT", "max": "MAX", "min": "MIN", "avg": "AVG"}  # nccl-tests' words
OP_COLUMN = {op: word for word, op in OP_NAMES.items()}
FLOAT8_MOVED_ONLY = "torch's NCCL carries float8 as bytes: it moves them but does not reduce them"


def dtype_name(text: str) -> str:
    """torch's name for a -d value (torch's, nccl-tests', or `all`); raises ValueError."""
    word = text.strip().lower()
    if word == ALL:
        return ALL
    name = ALIASES.get(word, word)
    if name not in TYPES:
        raise ValueError(
            f"{text!r} is not a dtype (one of {', '.join(TYPES)}; nccl-tests' "
            f"{', '.join(sorted({t.nccl for t in TYPES.values() if t.nccl}))}; or all)"
        )
    return name


def op_name(text: str) -> str:
    """The op's name for a -o value (nccl-tests' sum, prod, max, min, avg, torch's band, bor, bxor,
    or `all`); raises ValueError."""
    word = text.strip().lower()
    if word == ALL:
        return ALL
    if word == "mulsum":
        raise ValueError("mulsum (nccl-tests' pre-multiplied sum) is no op of torch's ReduceOp")
    name = OP_NAMES.get(word, word.upper())
    if name not in OPS:
        raise ValueError(
            f"{text!r} is not a reduction (one of {', '.join(OP_NAMES)}, band, bor, bxor, or all)"
        )
    return name


def refusal(backend: str, collective: str, dtype: str, op: str | None) -> str | None:
    """Why torch's `backend` does not run `collective` on `dtype` with `op` (None: it does), in
    words that fit any dtype it applies to; `op` None for a collective that does not reduce."""
    t = TYPES[dtype]
    if backend not in t.backends:
        return f"torch's {backend} process group does not carry them"
    if t.kind == "complex" and collective == "gather":
        return f"torch's {backend} gather does not take complex values"
    if op is None:
        return None
    if backend not in OPS[op].backends:
        return f"{OP_COLUMN.get(op, op.lower())} is not available on {backend}"
    if t.name.startswith("float8"):
        return FLOAT8_MOVED_ONLY
    if t.kind == "complex" and op not in ("SUM", "AVG"):
        return "torch reduces complex values by sum and avg only"
    if OPS[op].bitwise and t.kind not in ("int", "uint", "bool"):
        return "bitwise reductions need an integer dtype"
    if OPS[op].mean and t.kind not in ("float", "complex"):
        return "avg needs a floating dtype"
    return None


Pair = tuple[str | None, str | None]  # (dtype, op); None where the collective takes none


def combos(backend: str, collective: str, dtype: str, op: str) -> tuple[list[Pair], list[str]]:
    """The (dtype, op) pairs `-d dtype -o op` asks for that `backend` runs, in nccl-tests' order
    (every type, within it every op), and those it leaves out, said by why. A collective that
    moves no data has the one pair (None, None); one that does not reduce takes no op (None)."""
    c = get(collective)
    if not c.payload:
        return [(None, None)], []
    ops: list[str | None] = [None] if not c.reduces else list(OPS) if op == ALL else [op]
    kept: list[Pair] = []
    left: dict[str, dict[str, list[str]]] = {}  # why -> dtype -> its ops left out for it
    for d in list(TYPES) if dtype == ALL else [dtype]:
        for o in ops:
            why = refusal(backend, collective, d, o)
            if why is None:
                kept.append((d, o))
            else:
                left.setdefault(why, {}).setdefault(d, []).append(OP_COLUMN.get(o, o.lower()) if o else "")
    return kept, [_said(why, by_dtype, len(ops)) for why, by_dtype in left.items()]


def _said(why: str, by_dtype: dict[str, list[str]], asked: int) -> str:
    """`int8, uint8 with avg: why`; a dtype all of whose ops are left out, named alone."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for d, ops in by_dtype.items():
        groups.setdefault(() if len(ops) == asked else tuple(ops), []).append(d)
    parts = [", ".join(ds) + (f" with {', '.join(ops)}" if ops else "") for ops, ds in groups.items()]
    return f"{'; '.join(parts)}: {why}"
