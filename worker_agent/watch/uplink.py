"""The reporter's way to the server: the reports a rank made and has not sent yet, and the socket
they go out on. A server that is away, refuses the token or goes mid-job is said once on stderr
while the job runs on; reports made meanwhile wait in a bounded backlog (one that says only where
the rank is now takes the place of the last such), and what falls out of it is counted
(`dropped`). Nothing the server sends is read."""

from __future__ import annotations

import sys
import threading
import time
from collections import deque

from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from ringside.worker_agent.clients.trust import context_for
from ringside.worker_agent.core.protocol import socket_url
from ringside.worker_agent.core.watch_protocol import WatchBye, WatchHello, WatchReport

BACKLOG = 64  # reports kept while the server is away
RETRY_S = 2.0


def say(text: str) -> None:
    print(f"ringside.watch: {text}", file=sys.stderr, flush=True)


def said_nothing_new(report: WatchReport) -> bool:
    """Whether a report only says how the rank is now (its line, what it waits in): a later one says
    it instead, so reports kept while the server is away are ones that tell what happened."""
    return not (report.issued or report.links or report.waits or report.groups)


class Uplink:
    def __init__(self, server: str, token: str | None):
        self.url, self.token = socket_url(server, "/ws/watch"), token
        self.backlog: deque[WatchReport] = deque(maxlen=BACKLOG)  # the oldest goes when full
        self.dropped = 0
        self.ws: ClientConnection | None = None
        self.refused = False
        self.unreachable_said = False
        self.retry_at = 0.0
        self.sending = threading.Lock()  # one sender at a time: the reporter's thread, or a poll

    def keep(self, reports: list[WatchReport]) -> None:
        """Reports to send, in order: one that says only where the rank is now replaces the last such."""
        for report in reports:
            if self.backlog and said_nothing_new(report) and said_nothing_new(self.backlog[-1]):
                self.backlog[-1] = report  # where the rank is now: the newest says it for both
                continue
            self.dropped += len(self.backlog) == BACKLOG  # the deque lets its oldest go
            self.backlog.append(report)

    def send(self, hello: WatchHello) -> None:
        """Every report kept, on a socket opened with `hello` where there is none (and the server is not
        known to be away or to refuse)."""
        with self.sending:
            self._send_backlog(hello)

    def goodbye(self, bye: WatchBye) -> None:
        """The last word on the socket there is, which is then closed."""
        if self.ws is not None:
            self.ws.send(bye.model_dump_json())
            self.ws.close()

    def _send_backlog(self, hello: WatchHello) -> None:
        if self.refused or not self._connected(hello) or self.ws is None:  # connected: a socket
            return
        try:
            while self.backlog:
                self.ws.send(self.backlog[0].model_dump_json())
                self.backlog.popleft()
        except Exception as e:
            self.ws = None
            self._away(f"lost the server at {self.url}", e)

    def _away(self, what: str, error: Exception) -> None:
        """The server is away: said once until it is back; tried again in a while."""
        self.retry_at = time.monotonic() + RETRY_S
        if not self.unreachable_said:
            self.unreachable_said = True
            say(f"{what} ({type(error).__name__}); the job runs on and reporting retries")

    def _connected(self, hello: WatchHello) -> bool:
        if self.ws is not None:
            return True
        if time.monotonic() < self.retry_at:
            return False
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            self.ws = connect(
                self.url,
                additional_headers=headers,
                open_timeout=2,
                close_timeout=1,
                max_size=1 << 16,
                ssl=context_for(self.url),
            )
            self.ws.send(hello.model_dump_json(exclude_none=True))  # an older server forbids fields it lacks
        except InvalidStatus as e:
            self.ws, self.refused = None, e.response.status_code in (401, 403)
            say(
                f"the server at {self.url} refused the worker token (RINGSIDE_WORKER_TOKEN): "
                "the job runs on, unwatched"
                if self.refused
                else f"the server at {self.url} answered {e.response.status_code}; retrying"
            )
            self.retry_at = time.monotonic() + RETRY_S
            return False
        except Exception as e:
            self.ws = None
            self._away(f"cannot reach the server at {self.url}", e)
            return False
        if self.unreachable_said:
            say(f"reporting to {self.url} again")
            self.unreachable_said = False
        return True
