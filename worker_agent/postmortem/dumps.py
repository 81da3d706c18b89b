"""The Flight Recorder dumps a job left, one per rank: the files torch writes (the watchdog's
TORCH_FR_DUMP_TEMP_FILE prefix and the rank, pickled; or `_dump_fr_trace_json`'s JSON) from folders or
files as given. A dump names no rank: its file name's last number is the rank, as torch's own analyzer
(fr_trace) reads it. Each is checked for the fields the watch reads, so a file that is not a dump is
said as such, naming the file and what it lacks."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .unpickle import NotData, plain_loads

# a dump's name: torch's prefix, then the rank; a JSON one may end in .json
NAMED = re.compile(r"^(?P<prefix>.*?)(?P<rank>\d+)(?P<suffix>\.json|\.pkl|\.pickle)?$")
MAX_BYTES = 1 << 30  # one rank's dump: a ring of 20,000 entries with their stacks is tens of MB


class DumpError(ValueError):
    """What is wrong with the dumps given, said for the command line."""


@dataclass
class RankDump:
    rank: int
    source: str  # the file, or the address it was fetched from
    dump: dict
    taken_ns: int  # when it was written (the file's time) or fetched
    empty: bool = False  # an empty file: the rank's dump was cut short (a rank that left none)


def read_paths(paths: list[str]) -> list[RankDump]:
    """Every dump in these folders and files, by rank; DumpError if a rank has two, or none is found."""
    named = [one for path in paths for one in _files(Path(path))]
    by_rank: dict[int, Path] = {}
    for rank, file in named:
        if rank in by_rank:
            raise DumpError(f"two dumps of rank {rank}: {by_rank[rank]} and {file}")
        by_rank[rank] = file
    return [read_file(file, rank) for rank, file in sorted(by_rank.items())]


def _files(path: Path) -> list[tuple[int, Path]]:
    if path.is_file():
        match = NAMED.match(path.name)
        if match is None:
            raise DumpError(f"{path}: its name does not end in a rank, as torch names a dump (PREFIX, rank)")
        return [(int(match["rank"]), path)]
    if not path.is_dir():
        raise DumpError(f"{path}: no such file or folder")
    found = [(f, m) for f in sorted(path.iterdir()) if f.is_file() and (m := NAMED.match(f.name))]
    prefixes = sorted({m["prefix"] for _, m in found})
    if not found:
        raise DumpError(f"{path}: no file named as torch names a dump (PREFIX, rank: nccl_trace_rank_0)")
    if len(prefixes) > 1:
        raise DumpError(
            f"{path}: files of {len(prefixes)} prefixes ({', '.join(map(repr, prefixes[:4]))}): "
            "give the files of one job"
        )
    return [(int(m["rank"]), f) for f, m in found]


def read_file(path: Path, rank: int) -> RankDump:
    if path.stat().st_size > MAX_BYTES:
        raise DumpError(f"{path}: over {MAX_BYTES >> 20} MiB, more than a Flight Recorder ring holds")
    if path.stat().st_size == 0:
        return RankDump(rank, str(path), {"entries": []}, path.stat().st_mtime_ns, empty=True)
    return RankDump(rank, str(path), parse(path.read_bytes(), str(path)), path.stat().st_mtime_ns)


def parse(data: bytes, where: str) -> dict:
    """A dump's dict from its bytes, pickled or JSON; DumpError saying why it is not one."""
    if data.lstrip()[:1] != b"{" and data[:1] != b"\x80":  # a pickle's PROTO: torch pickles with protocol 2
        raise DumpError(f"{where}: neither a pickled nor a JSON Flight Recorder dump")
    try:
        dump = json.loads(data) if data[:1] != b"\x80" else plain_loads(data)
    except (NotData, ValueError) as e:  # json's errors are ValueErrors
        raise DumpError(f"{where}: {e}") from None
    return checked(dump, where)


ENTRY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "record_id": int,
    "collective_seq_id": int,
    "profiling_name": str,
    "time_created_ns": int,
    "process_group": (list, tuple),
}


def checked(dump: object, where: str) -> dict:
    """The dump, if it holds what the watch reads of each entry (fields, and sizes as lists of ints)."""
    if not isinstance(dump, dict) or not isinstance(dump.get("entries", []), list):
        raise DumpError(f"{where}: not a Flight Recorder dump (a dict with a list of entries)")
    for i, entry in enumerate(dump.get("entries", [])):
        problem = _entry_problem(entry)
        if problem:
            raise DumpError(f"{where}: entry {i} {problem}")
    return dump


def _entry_problem(entry: object) -> str | None:
    if not isinstance(entry, dict):
        return "is not a dict"
    for field, kind in ENTRY_FIELDS.items():
        if not isinstance(entry.get(field), kind) or isinstance(entry.get(field), bool):
            return f"has no {field} of the right type"
    if not entry["process_group"] or not isinstance(entry["process_group"][0], str):
        return "names no process group"
    for field in ("input_sizes", "output_sizes"):
        sizes = entry.get(field) or []
        if not isinstance(sizes, list) or not all(
            isinstance(s, list) and all(isinstance(n, int) and n >= 0 for n in s) for s in sizes
        ):
            return f"has {field} that are not lists of sizes"
    return None
