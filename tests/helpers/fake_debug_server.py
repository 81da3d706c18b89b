"""torch.distributed.debug's page and its workers, faked: an HTTP server on a loopback address that
answers each path as told and keeps every request, for the tests of `ringside open URL` (the page
lists where each rank's worker listens; a worker answers its handlers)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Answer = tuple[int, dict[str, str], bytes]  # status, headers, body


class FakeServer(ThreadingHTTPServer):
    """`answers` by path; `asked`: (method, path) of each request, in order."""

    def __init__(self, host: str, answers: dict[str, Answer]):
        self.answers, self.asked = answers, []
        super().__init__((host, 0), _Answer)
        self.url = f"http://{host}:{self.server_address[1]}"
        # a short poll: stop() waits for the loop to see it
        threading.Thread(target=self.serve_forever, args=(0.02,), daemon=True).start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Answer(BaseHTTPRequestHandler):
    server: FakeServer

    def _answer(self) -> None:
        self.server.asked.append((self.command, self.path))
        status, headers, body = self.server.answers.get(self.path, (404, {}, b""))
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


def page(*workers: tuple[int | str, str]) -> Answer:
    """The debug server's /tcpstore: the job's store, where each rank wrote its worker's address."""
    rows = [f"<tr><td>debug_server/rank{rank}: b'{url}'</td></tr>" for rank, url in workers]
    return 200, {}, "\n".join(rows).encode()
