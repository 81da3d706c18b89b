"""What a dump must hold where the watch reads it, each field checked for its type and bounded, so
that a file that is not a dump is said as such (naming the field) before anything reads it, and no
value can reach the watch's protocol out of its bounds (a sequence number, a size, a name).

Bounds: record ids and sequence numbers count from 0 and stay below 2^53 (what the page's
JavaScript counts exactly); times are nanoseconds since 1970 (below 2^63); the name of a collective
or a group is at most 64 characters, as torch's are; a collective moves below 2^40 elements each
way, and a dump's collectives below 2^56 in all (their bytes stay below the protocol's 2^62); a
rank, in a group's ranks or a send's peer, is below 65,536, the largest job the watch takes; a dump
names at most 256 process groups, as many as a job may."""

from __future__ import annotations

import json

from ringside.worker_agent.core.watch_protocol import MAX_GROUPS, MAX_JOB_WORLD

MAX_ID = 1 << 53
MAX_NS = 1 << 63
MAX_NAME = 64
MAX_DESC = 1024  # a group's description (cut to MAX_NAME where it is shown)
MAX_ELEMENTS = 1 << 40  # of one collective, each way: more than any device holds
MAX_DUMP_ELEMENTS = 1 << 56
MAX_DURATION_MS = 1e9  # the protocol's longest duration, 10^6 s


def entry_problem(entry: object) -> str | None:
    """What is wrong with one entry, said after "entry N" ("has no record_id of the right type"), or
    None; its elements each way are counted by `elements`."""
    if not isinstance(entry, dict):
        return "is not a dict"
    for field, kind, bound in (
        ("record_id", int, MAX_ID),
        ("collective_seq_id", int, MAX_ID),
        ("time_created_ns", int, MAX_NS),
    ):
        value = entry.get(field)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"has no {field} of the right type"
        if not 0 <= value < bound:
            return f"has a {field} out of bounds (0 to 2^{bound.bit_length() - 1})"
    return _name_problem(entry) or _group_problem(entry.get("process_group")) or _measure_problem(entry)


def _name_problem(entry: dict) -> str | None:
    name = entry.get("profiling_name")
    if not isinstance(name, str):
        return "has no profiling_name of the right type"
    if len(name) > MAX_NAME:
        return f"has a profiling_name of {len(name):,} characters (at most {MAX_NAME}, as torch's are)"
    return _peers_problem(name) if entry.get("is_p2p") else None


def _peers_problem(name: str) -> str | None:
    """The two ranks a send's or receive's name gives ("nccl:send 0->1"), read as flight.p2p_seen
    reads them: numbers, and ranks of a job the watch takes."""
    op, _, peers = name.rpartition(":")[2].partition(" ")
    mine, _, peer = peers.partition("->" if op == "send" else "<-")
    if op not in ("send", "recv") or not mine.strip().isdigit() or not peer.strip().isdigit():
        return None
    if not (mine.strip().isdecimal() and peer.strip().isdecimal()):
        return "has a profiling_name whose ranks are not decimal numbers"
    if max(int(mine), int(peer)) >= MAX_JOB_WORLD:
        return f"has a profiling_name naming a rank past the largest job ({MAX_JOB_WORLD:,} ranks)"
    return None


def _group_problem(group: object) -> str | None:
    if not isinstance(group, (list, tuple)):
        return "has no process_group of the right type"
    if not group or not isinstance(group[0], str):
        return "names no process group"
    if len(group[0]) > MAX_NAME:
        return f"names a process group of {len(group[0]):,} characters (at most {MAX_NAME})"
    if len(group) > 1 and isinstance(group[1], str) and len(group[1]) > MAX_DESC:
        return f"describes its process group in {len(group[1]):,} characters (at most {MAX_DESC})"
    return None


def _measure_problem(entry: dict) -> str | None:
    """Its sizes, dtypes and duration, where it has them."""
    for field in ("input_sizes", "output_sizes"):
        sizes = entry.get(field) or []
        if not isinstance(sizes, list) or not all(
            isinstance(s, list) and all(isinstance(n, int) and n >= 0 for n in s) for s in sizes
        ):
            return f"has {field} that are not lists of sizes"
        if _count(sizes) >= MAX_ELEMENTS:
            return f"has {field} of 2^40 elements or more, more than any device holds"
    for field in ("input_dtypes", "output_dtypes"):
        dtypes = entry.get(field)
        if dtypes is not None and not _names(dtypes):
            return f"has {field} that are not a list of dtype names"
    duration = entry.get("duration_ms")
    number = isinstance(duration, (int, float)) and not isinstance(duration, bool)
    if number and not abs(duration or 0) <= MAX_DURATION_MS:  # NaN too; an int of any size compares exactly
        return f"has a duration_ms out of bounds (at most {MAX_DURATION_MS:.0e})"
    return None


def _names(values: object) -> bool:
    return isinstance(values, (list, tuple)) and all(
        isinstance(v, str) and len(v) <= MAX_NAME for v in values
    )


def _count(sizes: list[list[int]]) -> int:
    """The elements of these tensors, counted up to MAX_ELEMENTS: a product that passes it stops
    there (a size of 10^300 is not multiplied out)."""
    total = 0
    for shape in sizes:
        n = 1
        for dim in shape:
            n *= min(dim, MAX_ELEMENTS)
            if n >= MAX_ELEMENTS:
                return MAX_ELEMENTS
        total += n
        if total >= MAX_ELEMENTS:
            return MAX_ELEMENTS
    return total


def elements(entry: dict) -> int:
    """The elements a checked entry moves, the larger way."""
    return max(_count(entry.get("input_sizes") or []), _count(entry.get("output_sizes") or []))


def group_ranks(config: object) -> list[int] | None:
    """A pg_config entry's ranks ("[0, 1]", as torch writes them), sorted; None where it lists none
    (gloo's "[]", or what does not parse). ValueError where one is past the largest job."""
    text = config.get("ranks") if isinstance(config, dict) else None
    if isinstance(text, str) and len(text) > 16 * MAX_JOB_WORLD:
        raise ValueError(f"lists ranks in {len(text):,} characters, more than {MAX_JOB_WORLD:,} ranks take")
    try:
        ranks = json.loads(text) if isinstance(text, str) else text
    except (ValueError, RecursionError):
        return None
    if not isinstance(ranks, list) or not ranks or not all(isinstance(r, int) and r >= 0 for r in ranks):
        return None
    if len(ranks) > MAX_JOB_WORLD or max(ranks) >= MAX_JOB_WORLD:
        raise ValueError(f"lists ranks past the largest job the watch takes ({MAX_JOB_WORLD:,} ranks)")
    return sorted(ranks)


def groups_problem(dump: dict) -> str | None:
    """Its pg_config, where it has one, and how many groups its entries name."""
    configs = dump.get("pg_config")
    if configs is not None and not isinstance(configs, dict):
        return "has a pg_config that is not a dict"
    for name, config in (configs or {}).items():
        try:
            group_ranks(config)
        except ValueError as e:
            return f"pg_config {str(name)[:MAX_NAME]!r} {e}"
    named = {e["process_group"][0] for e in dump.get("entries", ())}
    if len(named) > MAX_GROUPS:
        return f"names {len(named):,} process groups, more than a job may ({MAX_GROUPS})"
    return None
