"""`ringside open` on hostile input (worker_agent/postmortem): what a pickle would build is counted
before it is built, a shared object each time it is used; every field the watch reads is bounded
and said, naming the file and the field; a file's name gives a rank only within the largest job;
a debug page's workers are asked only on the debug server's own host (or one named with
--allow-host), at a handler path built, not pasted onto what the page listed."""

from __future__ import annotations

import json
import pickle
import socket
from collections.abc import Iterator

import pytest
from fake_debug_server import FakeServer, page
from test_postmortem_dumps import dump, entry

from ringside.worker_agent.cli import main as ringside
from ringside.worker_agent.postmortem import cli as postmortem_cli
from ringside.worker_agent.postmortem import dumps
from ringside.worker_agent.postmortem.debug_server import main_line
from ringside.worker_agent.postmortem.dumps import DumpError, RankDump, parse, read_paths
from ringside.worker_agent.postmortem.pickle_cost import cost
from ringside.worker_agent.postmortem.reports import opened, where_of
from ringside.worker_agent.postmortem.unpickle import BUDGET, NotData, plain_loads

# --- a pickle's cost ---------------------------------------------------------------------------


def test_a_shared_object_costs_what_its_copies_would():
    x = list(range(50))
    shared, copies = (
        pickle.dumps([x] * 100, protocol=2),
        pickle.dumps([list(x) for _ in range(100)], protocol=2),
    )
    assert len(shared) < len(copies) / 20  # the pickler wrote x once, and 99 gets of it
    assert cost(shared, BUDGET) >= 0.9 * cost(copies, BUDGET)
    text = "y" * 6400  # a string costs by its length, shared or not
    assert cost(pickle.dumps([text] * 100, protocol=2), BUDGET) >= 100 * 100


def test_kilobytes_that_refer_to_one_dict_a_thousand_times_are_refused_unread():
    """1,000 entries that are one dict, whose sizes are 500 references to one list of 500: 6 KB
    that expand to 250 million sizes, which every reader of the entries would walk."""
    sizes = [7] * 500
    one = entry(0, 1, input_sizes=[sizes] * 500)
    data = pickle.dumps(dump(*[one] * 1000), protocol=2)
    assert len(data) < 8000
    with pytest.raises(
        NotData, match=r"builds more than 4,000,000 objects by byte \d+ \(a shared one counted"
    ):
        plain_loads(data)


def test_two_million_references_are_refused_unread():
    data = pickle.dumps(dump(*[entry(0, 1)] * 2_000_000), protocol=2)
    assert len(data) < 5 << 20
    with pytest.raises(NotData, match="builds more than 4,000,000 objects"):
        plain_loads(data)


def test_a_memo_index_past_those_put_is_refused_before_the_unpickler_sizes_its_memo_by_it():
    with pytest.raises(NotData, match="memoizes at 4294967295, past the 0 it holds"):
        plain_loads(b"\x80\x02]r\xff\xff\xff\xff.")  # EMPTY_LIST, LONG_BINPUT 2^32-1: 32 GB of memo
    with pytest.raises(NotData, match="gets memo 3, which it never put"):
        plain_loads(b"\x80\x02h\x03.")


def test_a_container_changed_after_it_was_shared_is_refused():
    """Else a list counted small when a thousand others took it could grow after: no pickler of data
    writes that (a list is filled before anything holds it)."""
    # A = [], B = [A], then 1 appended to A
    data = b"\x80\x02]q\x00]h\x00aK\x01h\x00K\x01a."
    with pytest.raises(NotData, match="changes a container after holding or sharing it"):
        plain_loads(data)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_plain_data_of_any_protocol_costs_what_it_builds_and_reads_whole(protocol):
    shared = {"a": [1, 2.5, "x" * 200, None, True, ("t", 1)]}
    data = {"entries": [shared, shared, (shared, 1), (), (1,), (1, 2), (1, 2, 3)], "big": 10**40, "s": "é\n"}
    assert plain_loads(pickle.dumps(data, protocol=protocol)) == data
    with pytest.raises(NotData, match="builds more than 20 objects"):
        plain_loads(pickle.dumps(data, protocol=protocol), budget=20)


# --- a dump's fields ---------------------------------------------------------------------------


def said(data: dict | bytes, where: str = "dumps/fr_7") -> str:
    with pytest.raises(DumpError) as refused:
        parse(data if isinstance(data, bytes) else json.dumps(data).encode(), where)
    return str(refused.value)


@pytest.mark.parametrize(
    ("more", "problem"),
    [
        ({"record_id": int("9" * 4000)}, "has a record_id out of bounds (0 to 2^53)"),
        ({"collective_seq_id": -1}, "has a collective_seq_id out of bounds (0 to 2^53)"),
        ({"time_created_ns": 1 << 63}, "has a time_created_ns out of bounds (0 to 2^63)"),
        ({"input_sizes": [[10**300]]}, "has input_sizes of 2^40 elements or more"),
        ({"output_sizes": [[1 << 20] * 3]}, "has output_sizes of 2^40 elements or more"),
        ({"input_sizes": [[-1]]}, "has input_sizes that are not lists of sizes"),
        ({"profiling_name": "gloo:" + "x" * 10_000}, "has a profiling_name of 10,005 characters (at most 64"),
        ({"process_group": ["g" * 65, ""]}, "names a process group of 65 characters (at most 64)"),
        ({"process_group": ["0", "d" * 5000]}, "describes its process group in 5,000 characters"),
        ({"input_dtypes": ["F" * 65]}, "has input_dtypes that are not a list of dtype names"),
        ({"input_dtypes": {"Float": 1}}, "has input_dtypes that are not a list of dtype names"),
        ({"duration_ms": 1e300}, "has a duration_ms out of bounds"),
        ({"duration_ms": int("9" * 400)}, "has a duration_ms out of bounds"),
        ({"is_p2p": True, "profiling_name": "nccl:send 0->99999999"}, "has a profiling_name naming a rank"),
        ({"is_p2p": True, "profiling_name": "nccl:recv 0<-²"}, "has a profiling_name whose ranks are not"),
    ],
)
def test_a_field_out_of_bounds_is_said_naming_the_file_and_the_field(more, problem):
    assert said(dump(entry(0, 1), entry(1, 2, **more))).startswith(f"dumps/fr_7: entry 1 {problem}")


def test_group_configs_and_counts_out_of_bounds_are_said():
    far = {**dump(entry(0, 1)), "pg_config": {"0": {"ranks": "[0, 99999999999]"}}}
    assert (
        said(far)
        == "dumps/fr_7: pg_config '0' lists ranks past the largest job the watch takes (65,536 ranks)"
    )
    assert said({**dump(entry(0, 1)), "pg_config": []}) == "dumps/fr_7: has a pg_config that is not a dict"
    deep = {**dump(entry(0, 1)), "pg_config": {"0": {"ranks": "[" * 50_000}}}
    assert parse(json.dumps(deep).encode(), "x")  # unparsed ranks are no ranks listed, as gloo's "[]"
    groups = dump(*(entry(i, 1, group=(str(i), "")) for i in range(257)))
    assert said(groups) == "dumps/fr_7: names 257 process groups, more than a job may (256)"


def test_json_nested_too_deep_or_too_many_values_is_said_before_it_is_parsed():
    nested = b'{"entries": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert (
        said(nested) == "dumps/fr_7: it nests its lists or objects deeper than Python reads, as no dump does"
    )
    many = b'{"entries": [' + b"0," * 4_000_000 + b"0]}"
    assert (
        said(many)
        == "dumps/fr_7: it holds more than 4,000,000 values: more than a Flight Recorder dump holds"
    )


def test_a_ring_past_max_entries_is_read_from_its_newest_the_older_overwritten(monkeypatch, tmp_path):
    monkeypatch.setattr(dumps, "MAX_ENTRIES", 4)
    ring = dump(*(entry(record, record + 1) for record in (9, 3, 8, 5, 7, 6)))
    assert [e["record_id"] for e in parse(json.dumps(ring).encode(), "x")["entries"]] == [6, 7, 8, 9]
    (tmp_path / "fr_0").write_text(json.dumps(ring))
    _, ranks = opened(read_paths([str(tmp_path)]), "x")
    assert [one.seq for one in ranks[0].reports[0].issued] == [7, 8, 9, 10]
    assert ranks[0].reports[0].missed == 6  # records 0 to 5: the ring's own overwrote 0 to 2


def test_a_frame_s_line_is_said_as_a_number_or_not_at_all():
    frames = [{"filename": "/home/me/train.py", "line": 10**5000, "name": "step"}]
    assert where_of(dump(entry(0, 1, frames=frames))) == "train.py:?"


def test_a_worker_s_stacks_give_a_line_within_the_protocol_s_bound():
    frame = f'  File "/home/{"x" * 1000}.py", line {"9" * 500} in <module>'
    stacks = f"Thread 0x1 (most recent call first):\n{frame}\n"
    assert len(main_line(stacks) or "") == 300


# --- ranks -------------------------------------------------------------------------------------


def test_a_rank_from_a_name_is_one_of_the_largest_job_not_a_number_to_count_to(tmp_path):
    (tmp_path / "nccl_trace_rank_0").write_text(json.dumps(dump(entry(0, 1))))
    far = tmp_path / "nccl_trace_rank_99999999999"
    far.write_text(json.dumps(dump(entry(0, 1))))
    with pytest.raises(DumpError) as refused:
        read_paths([str(tmp_path)])
    assert str(refused.value) == (
        f"{far}: its name gives rank 99999999999, past the largest job Ringside watches (65,536 ranks)"
    )
    far.rename(tmp_path / f"nccl_trace_rank_{'9' * 200}")
    with pytest.raises(DumpError, match=r"gives rank 9{20}\.\.\., past the largest job"):
        read_paths([str(tmp_path)])


def test_the_ranks_missing_from_the_largest_world_are_found_from_the_files_given():
    dumps = [RankDump(rank, f"fr_{rank}", dump(entry(0, 1)), 1) for rank in (0, 65535)]
    with pytest.raises(DumpError) as refused:
        opened(dumps, "x")
    assert str(refused.value).startswith(
        "dumps of 2 of the job's 65536 ranks: ranks 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "
        "16 and 65518 more left none."
    )


def test_a_world_past_the_largest_job_and_a_file_name_with_a_newline_are_said_in_one_line(tmp_path, capsys):
    assert ringside(["open", "--print", "--world-size", str(10**11), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == "ringside open: error: --world-size must be 1 to 65,536, the largest job Ringside watches\n"
    odd = tmp_path / "evil\nname_0"
    odd.write_text("nccl")
    assert ringside(["open", "--print", str(odd)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "evil\\nname_0: its name does not end in a rank" in err


# --- a debug page's workers ----------------------------------------------------------------------


def a_dump() -> tuple[int, dict, bytes]:
    return 200, {}, json.dumps(dump(entry(0, 1))).encode()


@pytest.fixture
def elsewhere() -> Iterator[socket.socket]:
    """A listener on another loopback address: another host, as far as the page's workers go."""
    with socket.create_server(("127.0.0.2", 0)) as listener:
        listener.setblocking(False)
        yield listener


def connected(listener: socket.socket) -> bool:
    """Whether anything connected: a connection is queued before its client goes on."""
    try:
        listener.accept()[0].close()
        return True
    except BlockingIOError:
        return False


@pytest.fixture
def fakes() -> Iterator[list[FakeServer]]:
    made: list[FakeServer] = []
    yield made
    for one in made:
        one.stop()


def test_a_worker_listed_on_another_host_is_refused_in_one_line_and_never_asked(elsewhere, fakes, capsys):
    there = f"http://127.0.0.2:{elsewhere.getsockname()[1]}"
    debug = FakeServer("127.0.0.1", {"/tcpstore": page((0, there))})
    fakes.append(debug)
    assert ringside(["open", "--print", debug.url]) == 2
    assert capsys.readouterr().err == (
        f"ringside open: error: {debug.url}: its page lists rank 0's worker on 127.0.0.2, not on the debug "
        "server's host (127.0.0.1): --allow-host 127.0.0.2 asks it there\n"
    )
    assert not connected(elsewhere)


def test_a_page_refused_ends_the_command_before_a_server_is_started(elsewhere, fakes, capsys, monkeypatch):
    started = []
    monkeypatch.setattr(postmortem_cli, "_local", lambda *args: started.append(args) or 0)
    debug = FakeServer(
        "127.0.0.1", {"/tcpstore": page((0, f"http://127.0.0.2:{elsewhere.getsockname()[1]}"))}
    )
    fakes.append(debug)
    assert ringside(["open", debug.url]) == 2
    assert "not on the debug server's host (127.0.0.1)" in capsys.readouterr().err
    assert started == [] and not connected(elsewhere)


def test_allow_host_names_a_host_whose_workers_are_asked(fakes, capsys):
    worker = FakeServer("127.0.0.2", {"/handler/fr_trace_json": a_dump()})
    debug = FakeServer("127.0.0.1", {"/tcpstore": page((0, worker.url))})
    fakes.extend([worker, debug])
    assert ringside(["open", "--print", "--allow-host", "127.0.0.2", debug.url]) == 0
    assert "no hang" in capsys.readouterr().out
    assert worker.asked == [("POST", "/handler/fr_trace_json")]


def test_a_handler_s_path_is_built_whatever_query_the_page_listed(fakes, capsys):
    worker = FakeServer("127.0.0.1", {"/handler/fr_trace_json": a_dump()})
    debug = FakeServer("127.0.0.1", {"/tcpstore": page((0, f"{worker.url}/latest/meta-data/iam?x=#y"))})
    fakes.extend([worker, debug])
    assert ringside(["open", "--print", debug.url]) == 0
    assert worker.asked == [("POST", "/handler/fr_trace_json")]


def test_a_worker_s_redirect_is_not_followed(elsewhere, fakes, capsys):
    there = f"http://127.0.0.2:{elsewhere.getsockname()[1]}/handler/fr_trace_json"
    worker = FakeServer("127.0.0.1", {"/handler/fr_trace_json": (307, {"Location": there}, b"")})
    debug = FakeServer("127.0.0.1", {"/tcpstore": page((0, worker.url))})
    fakes.extend([worker, debug])
    assert ringside(["open", "--print", debug.url]) == 2
    assert capsys.readouterr().err == f"ringside open: error: no worker of {debug.url} answered\n"
    assert not connected(elsewhere)


def test_a_page_listing_a_rank_past_the_largest_job_is_refused(fakes, capsys):
    debug = FakeServer(
        "127.0.0.1", {"/tcpstore": page((0, "http://127.0.0.1:1"), (999999999999, "http://127.0.0.1:1"))}
    )
    fakes.append(debug)
    assert ringside(["open", "--print", debug.url]) == 2
    assert capsys.readouterr().err == (
        f"ringside open: error: {debug.url}: its page lists rank 999999999999, past the largest job Ringside "
        "watches (65,536 ranks)\n"
    )
