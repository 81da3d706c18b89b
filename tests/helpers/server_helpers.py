"""The test side of ringside.worker_agent.clients.harness (a real `ringside up` or `serve` on a free
loopback port), plus scripted ranks: real websocket clients that speak the worker protocol
from a script, for what a real rank will not do on demand (stay silent, never finish,
flood the server)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from http.client import HTTPConnection

from websockets.sync.client import connect

from ringside.worker_agent.clients.harness import (
    PRESENTER_TOKEN,
    WORKER_TOKEN,
    Up,
    alive,
    ended,
    messages,
    start_serve,
    start_up,
    wait_gone,
)
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION

# the harness's names, re-exported for the tests beside the helpers of this module
__all__ = [
    "PRESENTER_TOKEN",
    "WORKER_TOKEN",
    "Up",
    "alive",
    "ended",
    "messages",
    "start_serve",
    "start_up",
    "serve_with_scripted_ranks",
    "wait_gone",
    "ScriptedRank",
    "flood",
]


class ScriptedRank:
    """One rank on a real websocket: says hello, beats every 0.2 s while `beating` is set,
    and does with each run only what the test tells it to."""

    def __init__(
        self,
        server: Up,
        rank: int,
        world_size: int,
        pid: int | None = None,
        token: str = WORKER_TOKEN,
        **hello,
    ):
        self.rank, self.world_size = rank, world_size
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(server.ws_url(f"/ws/worker?token={token}"), max_size=None))
        self.send(
            type="hello",
            world_size=world_size,
            local_rank=rank,
            host="scripted",
            pid=pid or 100_000 + rank,
            backend="gloo",
            device="cpu",
            torch_version="scripted",
            **hello,
        )
        self.beating, self.closed = threading.Event(), threading.Event()
        self.beating.set()
        threading.Thread(target=self._beat, daemon=True).start()

    def send(self, **message) -> None:
        self.ws.send(json.dumps({"v": PROTOCOL_VERSION, "rank": self.rank, **message}))

    def _beat(self) -> None:
        while not self.closed.wait(0.2):
            if self.beating.is_set():
                try:
                    self.send(type="heartbeat")
                except Exception:  # noqa: BLE001 - the socket went: nothing left to beat for
                    return

    def command(self, timeout: float = 30) -> dict:
        return json.loads(self.ws.recv(timeout=timeout))

    def start(self, command: dict, **fields) -> None:
        self.send(
            type="run_started", run_id=command["run_id"], group_rank=self.rank, spec=command["spec"], **fields
        )

    def step(self, command: dict, step: int, **fields) -> None:
        self.send(type="step", run_id=command["run_id"], step=step, t0=step, t1=step + 0.5, **fields)

    def finish(self, command: dict, seconds: float = 0.001) -> None:
        self.send(
            type="run_finished",
            run_id=command["run_id"],
            verified=True,
            timings={"iterations": [seconds] * command["spec"]["iterations"]},
        )

    def close(self) -> None:
        self.closed.set()
        self.stack.close()


@contextlib.contextmanager
def serve_with_scripted_ranks(tmp, *flags: str, ranks: int = 2):
    """`ringside serve [flags]` with `ranks` scripted ranks joined: (server, ranks), all stopped after."""
    server = start_serve(tmp, *flags)
    scripted = [ScriptedRank(server, r, ranks) for r in range(ranks)]
    try:
        server.wait_ranks(ranks, timeout=10)
        yield server, scripted
    finally:
        for rank in scripted:
            rank.close()
        server.stop()


def flood(server, sender: ScriptedRank, receiver: ScriptedRank, steps: int = 500, values: int = 4000) -> str:
    """A run of `steps` planned steps (a custom broadcast of two ranks, sent again and again)
    whose receiver reports `values` values at every step: megabytes for every viewer. Returns
    the run's id once both ranks have finished."""
    plan = {"pieces": 1, "steps": [{"transfers": [[0, 1, 0, 0, 0]]}] * steps}
    status, body = server.call(
        "POST",
        "/api/runs",
        {"collective": "broadcast", "algorithm": "custom", "count": values, "schedule": plan},
    )
    assert status == 202, body
    command, other = sender.command(), receiver.command()
    sender.start(command)
    receiver.start(other)
    big = [{"chunk": 0, "values": list(range(values))}]
    for i in range(steps):
        receiver.step(other, i, states=big)
    sender.finish(command)
    receiver.finish(other)
    return body["id"]


def posted_with_a_ballot(up, source: str, path: str, fields: dict) -> tuple[int, dict]:
    """A script's POST from the address `source` with a ballot of its own: a page's socket opened for
    the ballot its snapshot hands out, the request with it, the socket closed again."""
    port = int(up.url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    with connect(up.ws_url("/ws"), sock=sock) as page:
        ballot = None
        while ballot is None:  # the snapshot, the socket's first message, hands it out
            ballot = next(
                (m["ballot"] for m in messages(page.recv(timeout=10)) if m["type"] == "snapshot"), None
            )
        http = HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
        body = json.dumps({"ballot": ballot, **fields})
        http.request("POST", path, body, {"Content-Type": "application/json"})
        answer = http.getresponse()
        status, said = answer.status, json.loads(answer.read())
        http.close()
    return status, said
