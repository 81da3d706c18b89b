"""The words a run is written in, each said once: its element types (dtypes), its
reductions (ops) and the shapes a page places ranks in (layouts). protocol's Literals,
the checks, the catalog the page builds its controls from, the inputs, the numpy and
torch tables and the server's models all read them here. No torch.
"""

from __future__ import annotations

from dataclasses import dataclass

BACKENDS = ("gloo", "nccl")


@dataclass(frozen=True)
class DType:
    itemsize: int  # bytes per element
    integer: bool = False
    generated_as: str | None = None  # numpy's dtype for its inputs, where numpy has none of its own
    exact_up_to: int | None = None  # integer inputs wrap here: every value stays exact and finite


# In the order the page lists them. Half-precision floats hold every integer only so far
# (float16 overflows at 65504); numpy has no bfloat16, so its inputs are made as float32 and
# rounded in torch.
DTYPES: dict[str, DType] = {
    "int32": DType(4, integer=True),
    "int64": DType(8, integer=True),
    "float16": DType(2, exact_up_to=2048),
    "bfloat16": DType(2, generated_as="float32", exact_up_to=256),
    "float32": DType(4),
    "float64": DType(8),
}
ITEMSIZE = {name: dtype.itemsize for name, dtype in DTYPES.items()}


@dataclass(frozen=True)
class Op:
    elementwise: str  # numpy's and torch's name for the function that combines two buffers
    bitwise: bool = False  # integer dtypes only
    mean: bool = False  # the sum, then divided by the group's size: floating dtypes only
    backends: tuple[str, ...] = BACKENDS  # where the backend has it


OPS: dict[str, Op] = {
    "SUM": Op("add"),
    "PRODUCT": Op("multiply"),
    "MIN": Op("minimum"),
    "MAX": Op("maximum"),
    "AVG": Op("add", mean=True),
    # NCCL has no bitwise reductions
    "BAND": Op("bitwise_and", bitwise=True, backends=("gloo",)),
    "BOR": Op("bitwise_or", bitwise=True, backends=("gloo",)),
    "BXOR": Op("bitwise_xor", bitwise=True, backends=("gloo",)),
}


@dataclass(frozen=True)
class Layout:
    around_root: bool = False  # drawn around one rank (a tree's top, a star's middle), which the page marks


# How the browser places the ranks: round a loop, as a tree from the root, the root in the
# middle of a star, in a grid (pairs that swap), or servers above workers.
LAYOUTS: dict[str, Layout] = {
    "ring": Layout(),
    "tree": Layout(around_root=True),
    "star": Layout(around_root=True),
    "grid": Layout(),
    "servers": Layout(),
}
