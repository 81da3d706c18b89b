"""`ringside up --lesson FILE`: a file with a wrong field stops it before anything starts, exit 2
with the line named; `serve --lesson` hands the page that lesson (GET /api/lesson), the seed's
without one, and the room not what a question's stage prints (its answer) before it is asked."""

from __future__ import annotations

import subprocess

from server_helpers import start_serve

from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.rank.local import free_port

LESSON = """version = 1
title = { en = "One stage", ko = "한 단계", zh = "一个阶段" }

[[stages]]
collective = "broadcast"
ranks = 2
inputs = [[7, 8], []]
caption = { en = "seven, eight", ko = "칠, 팔", zh = "七，八" }
"""


def test_up_with_a_wrong_lesson_exits_2_naming_its_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(LESSON.replace("ranks = 2", "ranks = 0"))
    done = subprocess.run(
        [
            *CLI,
            "up",
            "--ranks",
            "2",
            "--port",
            str(free_port()),
            "--db",
            str(tmp_path / "r.db"),
            "--lesson",
            str(bad),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"{bad} line 6: stage 1: ranks: Input should be greater than or equal to 1" in done.stderr
    assert "Ringside is up" not in done.stdout


def test_serve_hands_the_page_its_lesson(tmp_path):
    given = tmp_path / "one.toml"
    given.write_text(LESSON)
    server = start_serve(tmp_path, "--lesson", str(given))
    try:
        status, body = server.call("GET", "/api/lesson", token=None)
        assert status == 200 and len(body["stages"]) == 1
        stage = body["stages"][0]
        assert stage["run"]["inputs"] == [[7, 8], []] and stage["run"]["count"] == 2
        assert stage["caption"]["ko"] == "칠, 팔" and stage["ranks"] == 2
    finally:
        server.stop()
    seed = start_serve(tmp_path)
    try:
        status, body = seed.call("GET", "/api/lesson", token=None)
        assert status == 200 and body["title"]["en"] == "The collectives, from the seed lecture"
        assert body["stages"][0]["run"]["inputs"] == [[1, 2, 3, 4, 5], [], []]
        # the reduce's question: what it prints answers it, so the room reads it once revealed on stage
        asked = body["stages"][1]
        assert asked["question"]["ask"] == "holds" and asked["prints"] is None
        assert body["stages"][0]["prints"].strip().startswith("rank 0: tensor([1., 2., 3., 4., 5.])")
        status, refused = seed.call("GET", "/api/lesson/stages/1/prints", token=None)
        assert status == 409 and refused["detail"]["field"] == "stage", refused
        assert seed.call("GET", "/api/lesson", token="presenter")[1]["stages"][1]["prints"]
        status, whole = seed.call("GET", "/api/lesson/stages/1/prints")
        assert status == 200 and "rank 0: tensor([6., 6., 6., 6., 6.])" in whole["prints"]
        assert seed.call("GET", "/api/lesson/stages/0/prints", token=None)[0] == 200
        assert seed.call("GET", "/api/lesson/stages/10/prints", token=None)[0] == 404
    finally:
        seed.stop()
