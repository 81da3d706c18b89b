"""A lecture hall behind one NAT address, through a real server: 300 audience pages from 127.0.0.7, each
a socket with the viewer token that acts as the page does (it joins, fetches the presenter's run its
snapshot names, then follows the view: a run pushed with a view is shown with no GET, any other is
fetched). The presenter steps, then opens an earlier run: every page has each, none refused. How long
each took is printed (a figure for the closing note, not a bound: a test asserts no wall-clock time).
The ranks are scripted: a view needs a run, not what it computed."""

from __future__ import annotations

import asyncio
import json
import random
import re
import resource
import statistics
import time

import pytest
from server_helpers import messages, serve_with_scripted_ranks
from websockets.asyncio.client import ClientConnection, connect

HALL = "127.0.0.7"
PAGES = 300
VIEWER_TOKEN = "hall-viewer-token"
JOINING = 50  # pages opening at once: a hall's phones arrive over a minute, not in one instant
RUN_FRAME = 16 << 10  # a frame longer than this carries a run
FILES = 4 * PAGES  # this process's: a socket a page, a GET's, and the server's own beside


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < FILES:
        if hard != resource.RLIM_INFINITY and hard < FILES:
            pytest.skip(f"{PAGES} pages need {FILES} open files; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, hard))
    try:
        with serve_with_scripted_ranks(
            tmp_path_factory.mktemp("hall"), "--viewer-token", VIEWER_TOKEN
        ) as served:
            yield served
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def scripted_run(server, ranks, count: int = 2) -> str:
    """A broadcast the scripted ranks run: started, a step, finished, every value captured. Its id, once
    it is done. 4,096 values: a run of 160 KB as JSON, larger than a lecture's runs."""
    spec = {"collective": "broadcast", "algorithm": "ring", "count": count, "capture": "full"}
    status, body = server.call("POST", "/api/runs", spec)
    assert status == 202, body
    chunk = {"chunk": 0, "values": [round(random.random(), 6) for _ in range(count)]}
    for rank in ranks:
        command = rank.command()
        rank.start(command, inputs=[chunk])
        rank.step(command, 0, states=[chunk])
        rank.finish(command)
    assert server.wait(body["id"], timeout=10)["state"] == "done"
    return body["id"]


def view(run_id: str, step: int) -> str:
    return json.dumps({"type": "presenter", "run_id": run_id, "step": step, "playing": False, "speed": 1.0})


class Page:
    """An audience page's socket from HALL, following the presenter as presenter.js does."""

    def __init__(self, server, ws: ClientConnection, moved: asyncio.Condition):
        """`moved`: notified whenever it shows something else, or stops (a GET refused)."""
        self.server, self.ws, self.moved = server, ws, moved
        self.shown: str | None = None  # the run on its stage
        self.step: int | None = None
        self.fetched = 0  # GETs of a run it made
        self.pushed: dict | None = None  # the run sent with the next view
        self.at: dict[tuple[str, int], float] = {}  # when it showed each (run, step)
        self.carried: list[bytes] = []  # the frames that carried a run

    async def join(self) -> None:
        (snapshot,) = [m for m in messages(await self.ws.recv()) if m["type"] == "snapshot"]
        if snapshot["presenter"] is not None:
            await self.follow(snapshot["presenter"])

    async def follow(self, view: dict) -> None:
        pushed, self.pushed = self.pushed, None
        if view["run_id"] != self.shown:
            if pushed is None or pushed["id"] != view["run_id"]:
                await self.fetch(view["run_id"])
            self.shown = view["run_id"]
        self.step = view["step"]
        self.at[self.shown, self.step] = time.monotonic()
        async with self.moved:
            self.moved.notify_all()

    async def fetch(self, run_id: str) -> None:
        """GET /api/runs/{id} from HALL, as the page's api() does; refused (reset) or not 200 fails."""
        host, port = self.server.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port), local_addr=(HALL, 0))
        writer.write(
            f"GET /api/runs/{run_id}?token={VIEWER_TOKEN} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        self.fetched += 1

    async def listen(self) -> None:
        try:
            while True:
                for m in self.read(await self.ws.recv(decode=False)):
                    if m["type"] == "shown_run":
                        self.pushed = m["run"]
                    elif m["type"] == "presenter":
                        await self.follow(m)
        finally:
            async with self.moved:
                self.moved.notify_all()

    def read(self, frame: bytes) -> list[dict]:
        """The frame's messages. One that carries a run is kept whole and read as far as the view it
        says: each phone parses its run on its own CPU, here 300 phones' parses would be one CPU's,
        timed as the server's (the test reads the kept frames whole once it has timed them)."""
        if len(frame) <= RUN_FRAME:
            return messages(frame)
        self.carried.append(frame)
        found = re.match(rb'\[?\{"type":"shown_run","run":\{"id":"([^"]+)"', frame)
        heard = [{"type": "shown_run", "run": {"id": found[1].decode()}}] if found else []
        view = frame.rfind(b'{"type":"presenter"')
        return heard + ([json.JSONDecoder().raw_decode(frame[view:].decode())[0]] if view > 0 else [])


async def opened(server, moved: asyncio.Condition, listening: set[asyncio.Task]) -> Page:
    """A page from HALL: its socket with the viewer token, the snapshot read and followed, then
    listening (a page that read nothing would be dropped as one that fell behind)."""
    url = server.ws_url("/ws") + f"?token={VIEWER_TOKEN}"
    ws = await connect(url, local_addr=(HALL, 0), max_size=None, ping_interval=None)
    page = Page(server, ws, moved)
    await page.join()
    listening.add(asyncio.create_task(page.listen()))
    return page


async def drained(ws: ClientConnection) -> None:
    """The presenter's page reads what it is told (else it would be dropped, and its view with it)."""
    async for _ in ws:
        pass


def refused(server) -> dict[str, int]:
    status, text = server.call("GET", "/metrics")
    assert status == 200, text
    return {
        reason: int(float(n))
        for reason, n in re.findall(r'ringside_connections_refused_total\{reason="(\w+)"\} (\S+)', text)
    }


async def shown_by_all(
    pages: list[Page], moved: asyncio.Condition, listening: set[asyncio.Task], run_id: str, step: int
) -> None:
    """Until every page shows the run at the step (woken as each page moves; bounded for a failing run),
    or a page stopped: then why it did is raised."""

    def settled() -> bool:
        return all((run_id, step) in p.at for p in pages) or any(t.done() for t in listening)

    async with moved:
        await asyncio.wait_for(moved.wait_for(settled), 60)
    for task in listening:
        if task.done():
            task.result()  # a page's GET refused: raised here
            raise AssertionError("a page's socket was closed")


def p99(times: list[float]) -> float:
    return statistics.quantiles(times, n=100)[98]


def test_a_hall_of_300_pages_behind_one_address_follows_the_presenter(hall):
    up, ranks = hall
    earlier, later = scripted_run(up, ranks, count=4096), scripted_run(up, ranks)
    before = refused(up)

    async def lecture() -> tuple[list[float], list[float], list[Page]]:
        moved, listening = asyncio.Condition(), set[asyncio.Task]()
        presenter = await connect(up.ws_url("/ws") + f"?token={up.presenter}", max_size=None)
        await presenter.recv()  # the snapshot
        await presenter.send(view(later, 0))
        listening.add(asyncio.create_task(drained(presenter)))
        pages: list[Page] = []
        for start in range(0, PAGES, JOINING):
            joining = range(start, min(PAGES, start + JOINING))
            pages += await asyncio.gather(*(opened(up, moved, listening) for _ in joining))
        assert all(p.shown == later for p in pages)
        status, text = await asyncio.to_thread(up.call, "GET", "/metrics")
        assert f"ringside_hall_pages_per_address_max {PAGES}" in text, "each page is one of the hall's"

        asked = time.monotonic()
        await presenter.send(view(later, 1))  # a step
        await shown_by_all(pages, moved, listening, later, 1)
        steps = [p.at[later, 1] - asked for p in pages]

        fetched = sum(p.fetched for p in pages)
        asked = time.monotonic()
        await presenter.send(view(earlier, 0))  # an earlier run opened
        await shown_by_all(pages, moved, listening, earlier, 0)
        switches = [p.at[earlier, 0] - asked for p in pages]
        assert sum(p.fetched for p in pages) == fetched, (
            "the earlier run came with the view: no page fetched it"
        )

        for task in listening:
            task.cancel()
        await asyncio.gather(*(p.ws.close() for p in pages), presenter.close(), return_exceptions=True)
        return steps, switches, pages

    steps, switches, pages = asyncio.run(lecture())
    assert len(pages) == PAGES and all(p.shown == earlier for p in pages)
    for page in pages:  # each phone has the earlier run whole
        (run,) = [m["run"] for f in page.carried for m in messages(f) if m["type"] == "shown_run"]
        assert run["id"] == earlier and run["inputs"]["0"][0]["values"] == run["inputs"]["1"][0]["values"]
    after = refused(up)
    caps = ("per_address", "in_all")
    assert [after[c] for c in caps] == [before[c] for c in caps], "no connection of the hall was refused"
    ms = {name: (p99(t) * 1000, max(t) * 1000) for name, t in (("step", steps), ("switch", switches))}
    print(
        f"\n{PAGES} pages from {HALL}: a step on all, p99 {ms['step'][0]:.0f} ms (max {ms['step'][1]:.0f}); "
        f"an earlier run on all, p99 {ms['switch'][0]:.0f} ms (max {ms['switch'][1]:.0f}); 0 refused"
    )
