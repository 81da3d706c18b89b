"""Reading Flight Recorder dumps (worker_agent/postmortem): a pickle is data, never code; a file that
is not a dump, or a set of them that is not one job's, is said as such, naming the file."""

from __future__ import annotations

import json
import os
import pickle

import pytest

from ringside.worker_agent.postmortem.dumps import DumpError, read_paths
from ringside.worker_agent.postmortem.reports import opened, where_of
from ringside.worker_agent.postmortem.unpickle import NotData, plain_loads


def entry(record: int, seq: int, op: str = "all_reduce", group=("0", "default_pg"), **more) -> dict:
    return {
        "record_id": record,
        "collective_seq_id": seq,
        "profiling_name": f"gloo:{op}",
        "process_group": group,
        "time_created_ns": 1_000_000_000 + record,
        "input_sizes": [[4]],
        "output_sizes": [[4]],
        "input_dtypes": ["Float"],
        "retired": True,
        "is_p2p": False,
        **more,
    }


def dump(*entries: dict) -> dict:
    return {
        "version": "2.10",
        "pg_config": {"": {"name": "", "desc": "", "ranks": "[]"}},
        "entries": list(entries),
    }


class RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_pickle_that_names_a_function_is_refused_unread(tmp_path, protocol):
    marker = tmp_path / "ran"
    with pytest.raises(NotData, match=r"(STACK_)?GLOBAL \(posix system\).*plain data only"):
        plain_loads(pickle.dumps(RunsCode(marker), protocol=protocol))
    assert not marker.exists()


def test_plain_data_is_read_as_it_was_written():
    data = dump(entry(0, 1), entry(1, 2, frames=[{"filename": "t.py", "line": 3, "name": "f"}]))
    data["none"], data["x"] = None, 1.5
    assert plain_loads(pickle.dumps(data, protocol=2)) == data  # torch's protocol
    data["bytes"] = b"\x00"  # from protocol 3 on: protocol 2 pickles bytes by calling a function
    assert plain_loads(pickle.dumps(data, protocol=4)) == data


def test_an_object_the_unpickler_would_build_is_refused():
    with pytest.raises(NotData, match="builds an object"):
        plain_loads(pickle.dumps({"entries": [set()]}, protocol=2))
    with pytest.raises(NotData, match="not a whole pickle"):
        plain_loads(pickle.dumps(dump(), protocol=2)[:-9])


def test_files_that_are_not_one_job_s_dumps_are_said_as_such(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "fr_0").write_bytes(pickle.dumps(dump(entry(0, 1)), protocol=2))
    (tmp_path / "a" / "other_1").write_text("{}")
    with pytest.raises(DumpError, match=r"files of 2 prefixes \('fr_', 'other_'\)"):
        read_paths([str(tmp_path / "a")])
    with pytest.raises(DumpError, match="no such file or folder"):
        read_paths([str(tmp_path / "gone")])
    (tmp_path / "trace.json").write_text("{}")
    with pytest.raises(DumpError, match="does not end in a rank"):
        read_paths([str(tmp_path / "trace.json")])
    (tmp_path / "fr_0").write_text('{"entries": [{"record_id": 0}]}')
    with pytest.raises(DumpError, match="two dumps of rank 0"):
        read_paths([str(tmp_path / "a" / "fr_0"), str(tmp_path / "fr_0")])
    with pytest.raises(DumpError, match=r"fr_0: entry 0 has no collective_seq_id"):
        read_paths([str(tmp_path / "fr_0")])
    (tmp_path / "fr_0").write_text("nccl")
    with pytest.raises(DumpError) as said:
        read_paths([str(tmp_path / "fr_0")])
    assert str(said.value) == f"{tmp_path / 'fr_0'}: neither a pickled nor a JSON Flight Recorder dump"


def test_a_job_some_of_whose_ranks_left_no_dump_is_refused_unless_allowed(tmp_path):
    for rank in (0, 1, 3):
        (tmp_path / f"fr_{rank}.json").write_text(json.dumps(dump(entry(0, 1))))
    dumps = read_paths([str(tmp_path)])
    with pytest.raises(DumpError, match="3 of the job's 4 ranks: rank 2 left none"):
        opened(dumps, "x")
    said, ranks = opened(dumps, "x", allow_incomplete=True)
    assert (said.world_size, said.ranks, [r.hello.rank for r in ranks]) == (4, [0, 1, 3], [0, 1, 3])
    with pytest.raises(DumpError, match="rank 3 has a dump, but the job has 2 ranks"):
        opened(dumps, "x", world_size=2, allow_incomplete=True)


def test_an_empty_dump_a_cut_short_write_leaves_is_a_rank_that_left_none(tmp_path):
    """A watchdog killed while torch wrote its dump leaves an empty file: that rank left no dump, and
    the job is as many ranks as its files say."""
    for rank in (0, 1, 2):
        (tmp_path / f"fr_{rank}").write_bytes(pickle.dumps(dump(entry(0, 1)), protocol=2))
    (tmp_path / "fr_3").write_bytes(b"")
    dumps = read_paths([str(tmp_path)])
    with pytest.raises(DumpError, match=r"3 of the job's 4 ranks: rank 3 left none \(rank 3: an empty file"):
        opened(dumps, "x")
    said, ranks = opened(dumps, "x", allow_incomplete=True)
    assert (said.world_size, said.ranks, [r.hello.rank for r in ranks]) == (4, [0, 1, 2], [0, 1, 2])
    for rank in (0, 1, 2):
        (tmp_path / f"fr_{rank}").write_bytes(b"")
    with pytest.raises(DumpError, match=r"every dump is empty \(ranks 0, 1, 2, 3\)"):
        opened(read_paths([str(tmp_path)]), "x", allow_incomplete=True)


def test_a_group_gloo_leaves_unlisted_has_the_ranks_that_issued_in_it(tmp_path):
    pair = ("1", "undefined")
    for rank in range(3):
        mine = [entry(0, 1), *([entry(1, 1, group=pair)] if rank < 2 else [])]
        (tmp_path / f"fr_{rank}.json").write_text(json.dumps(dump(*mine)))
    said, ranks = opened(read_paths([str(tmp_path)]), "x")
    assert said.world_size == 3
    assert all(r.reports[0].groups == {"1": [0, 1]} for r in ranks)  # the world's group is not sent


def test_a_group_keeps_the_name_torch_gave_it(tmp_path):
    for rank in range(2):
        mine = [entry(0, 1), entry(1, 1, group=("1", "mesh_dp")), entry(2, 1, group=("2", "undefined"))]
        (tmp_path / f"fr_{rank}.json").write_text(json.dumps(dump(*mine)))
    _, ranks = opened(read_paths([str(tmp_path)]), "x")
    assert [r.reports[0].group_descs for r in ranks] == [{"1": "mesh_dp"}] * 2


def test_where_a_rank_was_is_its_newest_entry_s_line_outside_libraries():
    frames = [
        {
            "filename": "/x/site-packages/torch/distributed/distributed_c10d.py",
            "line": 3245,
            "name": "all_reduce",
        },
        {"filename": "/home/me/train.py", "line": 87, "name": "step"},
    ]
    assert where_of(dump(entry(0, 1), entry(1, 2, frames=frames))) == "train.py:87"
    assert where_of(dump(entry(0, 1))) is None
