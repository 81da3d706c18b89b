"""The worker servers a torch.distributed.debug page lists (rank 0's page shows the job's TCPStore,
where each rank wrote `http://HOSTNAME:PORT`), and which of them Ringside asks.

The page is data from the network, so what it lists is followed only where the user pointed:
a worker on the debug server's own host (the same name, a name for the same address, or, where the
debug server was reached on loopback, this machine's own name), or on a host named with
--allow-host; anything else refuses the job in one line, naming the host. A name checked by its
address is asked at that address, not resolved again; a rank is one of a job the watch takes; a
handler's address is built from the worker's scheme and host, its path replaced (whatever query or
fragment the page gave is dropped, not carried along)."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from ringside.worker_agent.core.watch_protocol import MAX_JOB_WORLD

from .dumps import DumpError

WORKER = re.compile(r"debug_server/rank(\d+): b'(https?://[^'\s<>]+)'")
SHOWN = 100  # characters of a listed address said in an error


@dataclass(frozen=True)
class Worker:
    origin: str  # scheme://host:port, where it is asked
    host: str  # as the page names it, shown on the job's page

    def url(self, handler: str) -> str:
        """A handler's address (`/handler/fr_trace_json`) on this worker."""
        scheme, netloc, *_ = urlsplit(self.origin)
        return urlunsplit((scheme, netloc, f"/handler/{handler}", "", ""))


def page_url(url: str, path: str) -> str:
    """A path under the debug server's address as given (a prefix kept; query and fragment not)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + path, "", ""))


def listed(page: str, url: str, allowed: Iterable[str] = ()) -> dict[int, Worker]:
    """Each rank's worker as the debug server at `url` lists them on `page`; DumpError where a rank is
    past the largest job, or a worker is on a host neither the debug server's nor `allowed`."""
    hosts = _Hosts(url, allowed)
    found: dict[int, Worker] = {}
    for digits, address in WORKER.findall(page):
        rank = int(digits) if len(digits) <= len(str(MAX_JOB_WORLD)) else MAX_JOB_WORLD
        if rank >= MAX_JOB_WORLD:
            raise DumpError(
                f"{url}: its page lists rank {digits[:20]}{'...' if len(digits) > 20 else ''}, past the "
                f"largest job Ringside watches ({MAX_JOB_WORLD:,} ranks)"
            )
        found[rank] = hosts.worker(address, rank)
    return found


class _Hosts:
    """The hosts a page's workers may be on, each checked once."""

    def __init__(self, url: str, allowed: Iterable[str]):
        self.url = url
        self.home = (urlsplit(url).hostname or "").lower()
        self.allowed = {host.lower().strip("[]") for host in allowed}
        self.home_addresses: set[str] | None = None
        self.checked: dict[str, str] = {}  # host -> where it is asked

    def worker(self, address: str, rank: int) -> Worker:
        parts = urlsplit(address)
        try:
            host, port = parts.hostname or "", parts.port
        except ValueError:
            host, port = "", None
        if not host:
            raise DumpError(
                f"{self.url}: its page lists rank {rank}'s worker at {address[:SHOWN]!r}, no address"
            )
        if host not in self.checked:
            self.checked[host] = self._asked_at(host, rank)
        at = self.checked[host]
        netloc = (f"[{at}]" if ":" in at else at) + (f":{port}" if port is not None else "")
        return Worker(urlunsplit((parts.scheme, netloc, "", "", "")), host[:255])

    def _asked_at(self, host: str, rank: int) -> str:
        """Where a worker on `host` is asked: by the name the user gave, or at the address that made it
        the debug server's host; DumpError where it is neither."""
        if host == self.home or host in self.allowed:
            return host
        if self.home_addresses is None:
            self.home_addresses = _addresses(self.home, self.url, "the debug server")
        addresses = _addresses(host, self.url, f"rank {rank}'s worker")
        same = sorted(addresses & self.home_addresses)
        here = host == socket.gethostname().lower() and all(_loopback(a) for a in self.home_addresses)
        if same or here:
            return (same or sorted(addresses))[0]
        raise DumpError(
            f"{self.url}: its page lists rank {rank}'s worker on {host[:SHOWN]}, not on the debug server's "
            f"host ({self.home[:SHOWN]}): --allow-host {host[:SHOWN]} asks it there"
        )


def _addresses(host: str, url: str, whose: str) -> set[str]:
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError) as e:
        raise DumpError(f"{url}: cannot resolve {whose}'s host {host[:SHOWN]} ({e})") from None


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.partition("%")[0]).is_loopback
    except ValueError:
        return False
