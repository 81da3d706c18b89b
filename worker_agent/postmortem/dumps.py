"""The Flight Recorder dumps a job left, one per rank: the files torch writes (the watchdog's
TORCH_FR_DUMP_TEMP_FILE prefix and the rank, pickled; or `_dump_fr_trace_json`'s JSON) from folders or
files as given. A dump names no rank: its file name's last number is the rank, as torch's own analyzer
(fr_trace) reads it. Each is checked for the fields the watch reads, so a file that is not a dump is
said as such, naming the file and what it lacks or holds out of bounds (fields.py).

Whatever a file holds, reading it is bounded: at most MAX_BYTES of it, what it builds counted before
it is built (a pickle's objects, unpickle.py; a JSON document's values, by its commas and brackets)
and refused past the budget, and a rank from its name below the largest job the watch takes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ringside.worker_agent.core.watch_protocol import MAX_JOB_WORLD

from .fields import MAX_DUMP_ELEMENTS, elements, entry_problem, groups_problem
from .unpickle import BUDGET, NotData, plain_loads

# a dump's name: torch's prefix, then the rank; a JSON one may end in .json
NAMED = re.compile(r"^(?P<prefix>.*?)(?P<rank>\d+)(?P<suffix>\.json|\.pkl|\.pickle)?$")
# one rank's dump: torch pickles a ring of 2,000 entries with their stacks in a few MB (JSON takes
# about three times that); what it holds is bounded by BUDGET before it is read
MAX_BYTES = 32 << 20
JSON_CHARS_PER_UNIT = 64  # a JSON dump costs one for each value, and one for each this many bytes
# a ring's newest entries read (twice what is sent of a rank, reports.KEPT): the older count as
# overwritten, as the ring's own are, and a huge ring costs no more memory to judge than this
MAX_ENTRIES = 1 << 16


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
        return [(_rank(match, path), path)]
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
    return [(_rank(m, f), f) for f, m in found]


def _rank(match: re.Match, path: Path) -> int:
    """The rank a dump's name ends in: one of a job the watch takes, not a number to count up to."""
    digits = match["rank"].lstrip("0") or "0"
    if len(digits) > len(str(MAX_JOB_WORLD)) or int(digits) >= MAX_JOB_WORLD:
        raise DumpError(
            f"{path}: its name gives rank {digits[:20]}{'...' if len(digits) > 20 else ''}, past the "
            f"largest job Ringside watches ({MAX_JOB_WORLD:,} ranks)"
        )
    return int(digits)


def read_file(path: Path, rank: int) -> RankDump:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
            taken = max(0, path.stat().st_mtime_ns)  # a file dated before 1970 is not given a negative time
    except OSError as e:
        raise DumpError(f"{path}: cannot be read ({e.strerror or e})") from None
    if len(data) > MAX_BYTES:
        raise DumpError(f"{path}: over {MAX_BYTES >> 20} MiB, more than a Flight Recorder ring holds")
    if not data:
        return RankDump(rank, str(path), {"entries": []}, taken, empty=True)
    return RankDump(rank, str(path), parse(data, str(path)), taken)


def parse(data: bytes, where: str) -> dict:
    """A dump's dict from its bytes, pickled or JSON; DumpError saying why it is not one."""
    if data.lstrip()[:1] != b"{" and data[:1] != b"\x80":  # a pickle's PROTO: torch pickles with protocol 2
        raise DumpError(f"{where}: neither a pickled nor a JSON Flight Recorder dump")
    try:
        dump = _json(data) if data[:1] != b"\x80" else plain_loads(data)
    except (NotData, ValueError) as e:  # json's errors are ValueErrors
        raise DumpError(f"{where}: {e}") from None
    return _newest(checked(dump, where))


def _newest(dump: dict) -> dict:
    entries = dump.get("entries", [])
    if len(entries) <= MAX_ENTRIES:
        return dump
    return {**dump, "entries": sorted(entries, key=lambda e: e["record_id"])[-MAX_ENTRIES:]}


def _json(data: bytes) -> object:
    """A JSON document, if what it would build (a value for each comma, colon or bracket, and one for
    each JSON_CHARS_PER_UNIT bytes) is within the pickle's budget."""
    values = sum(data.count(c) for c in (b",", b":", b"[", b"{")) + len(data) // JSON_CHARS_PER_UNIT
    if values > BUDGET:
        raise ValueError(f"it holds more than {BUDGET:,} values: more than a Flight Recorder dump holds")
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("it nests its lists or objects deeper than Python reads, as no dump does") from None


def checked(dump: object, where: str) -> dict:
    """The dump, if it holds what the watch reads of each entry, within bounds (fields.py)."""
    if not isinstance(dump, dict) or not isinstance(dump.get("entries", []), list):
        raise DumpError(f"{where}: not a Flight Recorder dump (a dict with a list of entries)")
    moved = 0
    for i, entry in enumerate(dump.get("entries", [])):
        problem = entry_problem(entry)
        if problem:
            raise DumpError(f"{where}: entry {i} {problem}")
        moved += elements(entry)
    if moved >= MAX_DUMP_ELEMENTS:
        raise DumpError(f"{where}: its collectives move 2^56 elements or more in all, more than a job can")
    problem = groups_problem(dump)
    if problem:
        raise DumpError(f"{where}: {problem}")
    return dump
