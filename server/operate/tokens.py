"""Where a server's tokens are said. On a terminal, in the links it prints, as Jupyter does: whoever
started it reads them there and nowhere else. Anywhere else (the journal under systemd, a file the
output is sent to, `docker logs`) a printed line is kept and read by whoever reads the logs, so the
tokens go to a file only this user may read (0600), shell and systemd alike read it, and the lines
print its path and `$RINGSIDE_…_TOKEN` in each token's place: after `. FILE` in a shell they work as
printed. `--token-file FILE` chooses the file, on a terminal too."""

from __future__ import annotations

import contextlib
import os
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ringside.server.config import Settings

PRESENTER, WORKER, VIEWER = "RINGSIDE_PRESENTER_TOKEN", "RINGSIDE_WORKER_TOKEN", "RINGSIDE_VIEWER_TOKEN"


@dataclass(frozen=True)
class Shown:
    """The tokens as the start's lines show them: each itself, or `$NAME` where they are in `file`."""

    presenter: str
    worker: str
    viewer: str | None
    file: Path | None = None

    def where(self) -> str:
        """The line that says where the tokens are, when they are in a file."""
        return (
            f"in {self.file} (yours alone; after `. {self.file}` in a shell the lines below work as printed)"
        )


def token_file(settings: Settings, terminal: bool) -> Path | None:
    """Where the tokens go: --token-file's file; else, where the output is no terminal, beside the
    store (runs.db: runs-tokens.env); None: printed, to the terminal."""
    if settings.token_file is not None:
        return settings.token_file
    return None if terminal else settings.db.with_name(f"{settings.db.stem}-tokens.env")


def shown(settings: Settings, file: Path | None) -> Shown:
    if file is None:
        return Shown(settings.presenter_token, settings.worker_token, settings.viewer_token)
    viewer = f"${VIEWER}" if settings.viewer_token else None
    return Shown(f"${PRESENTER}", f"${WORKER}", viewer, file)


def text(settings: Settings) -> str:
    """The file: the links with their tokens as comments, then each token as NAME=VALUE."""
    values = {PRESENTER: settings.presenter_token, WORKER: settings.worker_token}
    if settings.viewer_token:
        values[VIEWER] = settings.viewer_token
    return "".join(
        [
            f"# Ringside's tokens, for the server at {settings.url}: keep them secret.\n",
            "# A shell reads it: set -a; . THIS_FILE; set +a. So does systemd: EnvironmentFile=THIS_FILE\n",
            "# (the server started again with them keeps them, and its ranks' and jobs' places).\n",
            f"# presenter: {settings.presenter_url()}\n",
            f"# audience:  {settings.audience_url()}\n",
            *(
                f"# audience, from other machines: {settings.audience_url(url)}\n"
                for url in settings.public_urls()
            ),
            *(f"{name}={shlex.quote(value)}\n" for name, value in values.items()),
        ]
    )


def write(settings: Settings, path: Path) -> None:
    """The tokens into `path`, readable by this user alone: written whole beside it and moved over
    it, so no other mode, no partial file and no link at `path` is ever followed or kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text(settings))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read(path: Path) -> dict[str, str]:
    """The tokens a file of `write`'s holds, by name (what a shell's `.` reads from it)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        words = shlex.split(line, comments=True)
        if words and "=" in words[0]:
            name, value = words[0].split("=", 1)
            found[name] = value
    return found
