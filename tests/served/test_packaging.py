"""What pip builds: one import name, the page inside, light clients that load no torch."""

from __future__ import annotations

import site
import subprocess
import sys
import time
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest

from ringside.worker_agent.rank.local import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return next(out.glob("ringside-*.whl"))


def test_the_wheel_holds_one_import_name_and_the_page(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if not n.startswith("ringside-")} == {"ringside"}
    for page in (
        "ringside/frontend/index.html",
        "ringside/frontend/js/main.js",
        "ringside/frontend/css/ringside.css",
        "ringside/bench/__main__.py",
        "ringside/watch/__main__.py",
        "ringside/server/lessons/seed.toml",  # the seed lecture, built in
    ):
        assert page in names


@pytest.mark.slow  # builds and installs a wheel
def test_an_installed_wheel_serves_the_page_without_the_source_tree(wheel, tmp_path):
    """A fresh venv with the wheel; its dependencies come from this venv's site-packages by a
    path entry (whose own .pth files, this checkout's editable finder among them, are not run)."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    where = subprocess.run(
        [python, "-c", "import ringside.server.app as a; print(a.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(env_dir)), where  # the installed copy, not this checkout
    port = free_port()
    server = subprocess.Popen(
        [
            python,
            "-m",
            "ringside.worker_agent.cli",
            "serve",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "runs.db"),
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        page = fetch(f"http://127.0.0.1:{port}/", server)
        assert "<title>Ringside" in page
        assert "export" in fetch(f"http://127.0.0.1:{port}/js/main.js", server)
    finally:
        server.terminate()
        server.wait(10)


def fetch(url: str, server: subprocess.Popen, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read().decode()
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.parametrize("command", ["run --help", "serve --help"])
def test_light_clients_load_no_torch(command):
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ringside.worker_agent.cli", *command.split()],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    imported = [
        line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")
    ]
    assert (
        "ringside.worker_agent.core.catalog" in imported or "ringside.worker_agent.core.protocol" in imported
    )
    assert not [m for m in imported if m == "torch" or m.startswith("torch.")]
