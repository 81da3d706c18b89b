"""`ringside serve` whose output goes to a file, as under systemd: no line it prints, nor any line of
its access log, carries a token, even of requests that carry theirs in the query; the tokens are in a
file beside the store that only its user may read, and they are the server's."""

from __future__ import annotations

import stat
import time

from server_helpers import PRESENTER_TOKEN, WORKER_TOKEN, start_serve
from websockets.sync.client import connect

from ringside.server.operate.tokens import PRESENTER, VIEWER, WORKER, read

VIEWER_TOKEN = "viewer-token-for-tests"


def test_output_to_a_file_carries_no_token_and_the_tokens_file_is_the_users_alone(tmp_path):
    server = start_serve(tmp_path, env={"RINGSIDE_VIEWER_TOKEN": VIEWER_TOKEN})
    access = server.db.with_name(f"{server.db.stem}-access.log")
    try:
        with connect(server.ws_url(f"/ws?token={VIEWER_TOKEN}")) as viewer:
            viewer.recv(timeout=10)  # the snapshot: it was let in
        cancelled = server.call("POST", f"/api/runs/r-000001/cancel?token={PRESENTER_TOKEN}", token=None)
        assert cancelled[0] == 404, "the token in the query was taken"
        deadline = time.monotonic() + 10  # its thread writes the lines: wait for the socket's close
        while "WS-CLOSE /ws" not in access.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.stop()
    printed, logged = server.log_text(), access.read_text()
    assert "POST /api/runs/r-000001/cancel 404" in logged and "WS-CLOSE /ws" in logged, logged
    filed = server.db.with_name(f"{server.db.stem}-tokens.env")
    assert f"tokens:     in {filed} (yours alone" in printed, printed
    for token in (PRESENTER_TOKEN, WORKER_TOKEN, VIEWER_TOKEN):
        assert token not in printed and token not in logged, token
    assert stat.S_IMODE(filed.stat().st_mode) == 0o600
    assert read(filed) == {PRESENTER: PRESENTER_TOKEN, WORKER: WORKER_TOKEN, VIEWER: VIEWER_TOKEN}
