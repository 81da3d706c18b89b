"""What a server is told at start: where to listen, where to keep runs, who may do what."""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from ringside.server.door.transport import HEADERS_WITHIN_S, MESSAGE_WITHIN_S, PING_EVERY_S
from ringside.server.watched.rank_waits import HANG_S

DEFAULT_HOST = "127.0.0.1"  # the server makes workers run code: loopback unless told otherwise
DEFAULT_PORT = 8000
WILDCARDS = ("0.0.0.0", "::", "")  # every interface


def default_db() -> Path:
    return Path(platformdirs.user_data_dir("ringside")) / "runs.db"


def frontend_dir() -> Path:
    return Path(os.environ.get("RINGSIDE_FRONTEND", Path(__file__).resolve().parent.parent / "frontend"))


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address) can be reached from this machine only."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """A host as it goes into a URL: IPv6 addresses in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclass
class Settings:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    db: Path = field(default_factory=default_db)
    presenter_token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    worker_token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    viewer_token: str | None = None  # None: anyone who can reach the server may watch
    allowed_origins: tuple[str, ...] = ()  # besides the server's own
    allow_hosts: tuple[str, ...] = ()  # names the server answers to besides loopback's and --host (guard.py)
    open_viewing: bool = False  # watch without a token even when other hosts can reach the server
    lost_after: float = 5.0  # seconds of silence before a rank is shown lost (a busy CPU can delay a beat)
    hang_after: float = (
        HANG_S  # seconds a watched job's wait lasts before it is a hang (a job may say its own)
    )
    # seconds a whole world whose ranks all went is held for them (cluster/cluster.py: Cluster.held)
    world_hold: float = 30.0
    viewer_queue: int = 2048  # messages a viewer may fall behind before it is dropped
    headers_within: float = HEADERS_WITHIN_S  # seconds a request's headers may take (transport.py)
    message_within: float = MESSAGE_WITHIN_S  # seconds a websocket message begun may take to end
    ping_every: float = PING_EVERY_S  # seconds between a websocket's pings, and for its answer
    access_log: str | None = None  # a file, or "-" for stderr; None: beside the store (access_log_path)
    access_log_bytes: int = 10_000_000  # the file is rotated past this size
    access_log_keep: int = 5  # rotated files kept beside it
    keep_runs: int | None = None  # retention (operate/retention.py): the newest this many runs
    keep_days: float | None = None  # and none older than this many days
    certfile: Path | None = None  # TLS: the server's certificate (its chain), and its key unless keyfile
    keyfile: Path | None = None
    lesson: Path | None = None  # the lesson key U steps through (lessons/); None: the seed lecture's
    token_file: Path | None = None  # where the tokens go instead of the printed lines (operate/tokens.py)
    notify: str | None = None  # an http(s) URL each watched job's hang is POSTed to (watched/notify.py)

    def __post_init__(self):
        # Watching shows host names, pids and every run: once other hosts can reach the
        # server, that takes a token unless the waiver was asked for (as Jupyter does).
        if not self.loopback and self.viewer_token is None and not self.open_viewing:
            self.viewer_token = secrets.token_urlsafe(16)

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def scheme(self) -> str:
        return "https" if self.certfile else "http"

    @property
    def access_log_path(self) -> str:
        """Where the access log goes: as given, or beside the store (runs.db: runs-access.log)."""
        return self.access_log or str(self.db.with_name(f"{self.db.stem}-access.log"))

    @property
    def url(self) -> str:
        """Where this machine reaches the server (local workers, the presenter)."""
        host = "127.0.0.1" if self.host in WILDCARDS else self.host
        return f"{self.scheme}://{url_host(host)}:{self.port}"

    @property
    def page_url(self) -> str:
        """Where others open the page: the first address another machine reaches, else this machine's."""
        return (self.public_urls() or [self.url])[0]

    def presenter_url(self, token: str | None = None) -> str:
        """`token`: what the link shows in the token's place (operate/tokens.py), else the token."""
        return f"{self.url}/?token={token or self.presenter_token}"

    def audience_url(self, base: str | None = None, token: str | None = None) -> str:
        token = token or self.viewer_token
        return f"{base or self.url}/" + (f"?token={token}" if token else "")

    def public_urls(self) -> list[str]:
        """Where other machines reach the server: its listening address, or for a
        wildcard every non-loopback address of this machine."""
        if self.loopback:
            return []
        if self.host not in WILDCARDS:
            return [f"{self.scheme}://{url_host(self.host)}:{self.port}"]
        import psutil

        families = (socket.AF_INET, socket.AF_INET6) if ":" in self.host else (socket.AF_INET,)
        found = []
        for addrs in psutil.net_if_addrs().values():
            for a in addrs:
                if a.family not in families:
                    continue
                ip = ipaddress.ip_address(a.address.split("%")[0])
                if not (ip.is_loopback or ip.is_link_local):  # link-local needs a scope; no one types that
                    found.append(f"{self.scheme}://{url_host(str(ip))}:{self.port}")
        return found
