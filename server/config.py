"""What a server is told at start: where to listen, where to keep runs, who may do what."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

DEFAULT_HOST = "127.0.0.1"  # the server makes workers run code: loopback unless told otherwise
DEFAULT_PORT = 8000


def default_db() -> Path:
    return Path(platformdirs.user_data_dir("ringside")) / "runs.db"


def frontend_dir() -> Path:
    return Path(os.environ.get("RINGSIDE_FRONTEND", Path(__file__).resolve().parent.parent / "frontend"))


@dataclass
class Settings:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    db: Path = field(default_factory=default_db)
    presenter_token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    worker_token: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    viewer_token: str | None = None  # None: anyone who can reach the server may watch
    allowed_origins: tuple[str, ...] = ()  # besides the server's own
    lost_after: float = 5.0  # seconds of silence before a rank is shown lost (a busy CPU can delay a beat)
    viewer_queue: int = 2048  # messages a viewer may fall behind before it is dropped

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}"

    def presenter_url(self) -> str:
        return f"{self.url}/?token={self.presenter_token}"
