"""A job's dumps in the watch's own protocol: each rank's hello and the reports its reporter would
have sent had it read the recorder at the moment of the dump (flight.FlightReader.take reads a dump
as it reads the rank's live recorder), so the server matches and judges them with the watch's rules.

What a dump does not say is found where it can be: the rank from its file's name (dumps.py); the
process groups' ranks from the dump's pg_config where it lists them (NCCL does) and else from which
ranks issued in each group (gloo lists none); the world from the default group, or the highest rank;
where a rank was, from the innermost line outside libraries of its newest entry's stack."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable

from ringside.watch.flight import FlightReader
from ringside.worker_agent.core.dump_protocol import MAX_REPORTS, DumpedRank, DumpsHello
from ringside.worker_agent.core.watch_protocol import MAX_GROUPS, MAX_ISSUED, Issued, WatchHello, WatchReport

from .dumps import DumpError, RankDump
from .fields import group_ranks

HOST = "unknown"  # a dump does not say which node wrote it
LIBRARIES = ("/site-packages/", "/dist-packages/", "/lib/python", "/torch/")
DEFAULT_GROUP = "default_pg"  # the description torch gives the world's group
KEPT = MAX_REPORTS * MAX_ISSUED  # collectives of a rank sent: a ring of more keeps its newest


class Groups:
    """The job's process groups and their ranks, learnt from dumps as they come (a group's members are
    those seen issuing in it, where the dump does not list them)."""

    def __init__(self) -> None:
        self.seen: dict[str, set[int]] = {}
        self.told: dict[str, list[int]] = {}  # from pg_config, where it lists ranks
        self.world: set[str] = set()  # the default group's names: its collectives are the world's
        self.said: dict[str, list[int]] = {}
        self.descs: dict[str, str] = {}  # the names torch gave them (group_desc, DeviceMesh's "mesh_dp")

    def learn(self, rank: int, dump: dict, issued: list[Issued]) -> None:
        for one in issued:
            self.seen.setdefault(one.group, set()).add(rank)
        for entry in dump.get("entries", ()):
            pg = tuple(entry["process_group"])
            if pg[1:2] == (DEFAULT_GROUP,):
                self.world.update(pg[:2])
            elif len(pg) > 1 and isinstance(pg[1], str) and pg[1] not in ("", "undefined"):
                self.descs[pg[0]] = pg[1][:64]
        for name, config in (dump.get("pg_config") or {}).items():
            ranks = group_ranks(config)  # checked: within the largest job
            if name and ranks:
                self.told[name] = ranks

    def names(self, groups: Iterable[str]) -> dict[str, str]:
        """The names torch gave these groups, where it gave one."""
        return {name: self.descs[name] for name in groups if name in self.descs}

    def world_size(self) -> int | None:
        """The default group's size, where pg_config lists its ranks."""
        sizes = [len(ranks) for name, ranks in self.told.items() if name in self.world]
        return max(sizes) if sizes else None

    def changed(self) -> dict[str, list[int]]:
        """The groups (not the world's) whose ranks are new since the last call, up to MAX_GROUPS."""
        now = {
            name: self.told.get(name) or sorted(ranks)
            for name, ranks in sorted(self.seen.items())
            if name not in self.world
        }
        new = {name: ranks for name, ranks in now.items() if self.said.get(name) != ranks}
        new = dict(list(new.items())[:MAX_GROUPS])
        self.said.update(new)
        return new


def where_of(dump: dict) -> str | None:
    """The innermost line outside libraries in the newest entry's stack ("train.py:87"), if it has one."""
    for entry in sorted(dump.get("entries", ()), key=lambda e: e["record_id"], reverse=True):
        frames = entry.get("frames")
        if not isinstance(frames, list) or not frames:
            continue
        for frame in frames:
            name = frame.get("filename", "") if isinstance(frame, dict) else ""
            line = frame.get("line") if isinstance(frame, dict) else None
            if (
                isinstance(name, str)
                and name
                and not name.startswith("<")
                and not any(lib in name for lib in LIBRARIES)
            ):
                # a line is a number, said as one: not whatever a hostile dump put there
                shown = line if isinstance(line, int) and 0 <= line < 1 << 31 else "?"
                return f"{os.path.basename(name)[:250]}:{shown}"
        return None
    return None


def backend_of(dumps: Iterable[dict]) -> str:
    """The backend its entries name ("gloo:all_reduce"), the commonest."""
    names = Counter(
        e["profiling_name"].partition(":")[0]
        for dump in dumps
        for e in dump.get("entries", ())
        if ":" in e["profiling_name"]
    )
    return names.most_common(1)[0][0][:64] if names else "unknown"


def report(
    rank: int,
    issued: list[Issued],
    reader: FlightReader,
    groups: dict[str, list[int]],
    descs: dict[str, str],
    **said,
) -> list[WatchReport]:
    """A rank's reports: the collectives in reports of MAX_ISSUED, the first with the groups."""
    first = WatchReport(
        rank=rank,
        issued=issued[:MAX_ISSUED],
        groups=groups,
        group_descs=descs,
        pending=reader.pending,
        **said,
    )
    return [
        first,
        *(
            first.model_copy(update={"issued": issued[i : i + MAX_ISSUED], "groups": {}, "group_descs": {}})
            for i in range(MAX_ISSUED, len(issued), MAX_ISSUED)
        ),
    ]


def job_key(kind: str, source: str) -> str:
    return f"{kind}:{hashlib.sha256(source.encode()).hexdigest()[:24]}"


def opened(
    dumps: list[RankDump], source: str, world_size: int | None = None, allow_incomplete: bool = False
) -> tuple[DumpsHello, list[DumpedRank]]:
    """The job the dumps show, as the watch's protocol says it; DumpError if some rank left none and
    `allow_incomplete` is not given, or a rank is past the world."""
    world = world_size or max(d.rank for d in dumps) + 1
    empty = [d.rank for d in dumps if d.empty]
    dumps = [d for d in dumps if not d.empty]
    if not dumps:
        raise DumpError(f"every dump is empty ({_listed(empty)}): torch wrote none of them through")
    readers = {d.rank: FlightReader() for d in dumps}
    issued = {d.rank: readers[d.rank].take(d.dump) for d in dumps}
    groups = Groups()
    for d in dumps:
        groups.learn(d.rank, d.dump, issued[d.rank])
    world = world_size or groups.world_size() or world
    _check_ranks([d.rank for d in dumps], world, allow_incomplete, empty)
    members = groups.changed()
    descs = groups.names(members)
    times = [e["time_created_ns"] for d in dumps for e in d.dump.get("entries", ())]
    taken = max(d.taken_ns for d in dumps)
    key = job_key("dumps", f"{source}@{taken}")
    ranks = []
    for d in dumps:
        ones = issued[d.rank][-KEPT:]  # the newest: the oldest count as overwritten, as the ring's own are
        overwritten = min((e["record_id"] for e in d.dump.get("entries", ())), default=0)
        reports = report(
            d.rank,
            ones,
            readers[d.rank],
            members,
            descs,
            t_ns=d.taken_ns,
            where=where_of(d.dump),
            missed=overwritten + len(issued[d.rank]) - len(ones),
        )
        hello = WatchHello(
            job=key,
            rank=d.rank,
            world_size=world,
            host=HOST,
            pid=0,
            launcher="dump",
            backend=backend_of([d.dump]),
            script=source[:200],
            started_ns=min(times, default=taken),
            mechanisms=["flight_recorder"],
        )
        ranks.append(DumpedRank(hello=hello, reports=reports))
    said = DumpsHello(source=source[:200], world_size=world, ranks=[d.rank for d in dumps], taken_ns=taken)
    return said, ranks


def _check_ranks(ranks: list[int], world: int, allow_incomplete: bool, empty: list[int]) -> None:
    beyond = [r for r in ranks if r >= world]
    if beyond:
        raise DumpError(f"rank {beyond[0]} has a dump, but the job has {world} ranks (0 to {world - 1})")
    missing = _missing(ranks, world)
    if missing and not allow_incomplete:
        raise DumpError(
            f"dumps of {len(ranks)} of the job's {world} ranks: {_listed(missing, world - len(set(ranks)))} "
            "left none"
            + (f" ({_listed(empty)}: an empty file, a dump cut short)" if empty else "")
            + ". --allow-incomplete-ranks opens them anyway (as fr_trace's flag does)"
        )


def _missing(ranks: list[int], world: int, shown: int = 16) -> list[int]:
    """The first `shown` ranks of the world with no dump, found in the ranks given (a world of
    65,536 with two dumps is not counted out rank by rank)."""
    missing: list[int] = []
    rank = 0
    for next_had in [*sorted(set(ranks)), world]:
        while rank < next_had and len(missing) < shown:
            missing.append(rank)
            rank += 1
        if len(missing) >= shown:
            break
        rank = next_had + 1
    return missing


def _listed(ranks: list[int], total: int | None = None) -> str:
    """Ranks said: the first 16, and how many more of `total` (default: all of them given)."""
    total = len(ranks) if total is None else total
    shown = ", ".join(map(str, ranks[:16])) + (f" and {total - 16} more" if total > 16 else "")
    return ("rank " if total == 1 else "ranks ") + shown
