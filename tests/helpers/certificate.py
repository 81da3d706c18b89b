"""A self-signed TLS certificate for `localhost` alone, made by the openssl command (tests skip
where there is none): what `--certfile/--keyfile` serve in the TLS tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def self_signed(where: Path) -> tuple[Path, Path]:
    """(certificate, key) in `where`, valid two days, naming DNS:localhost and nothing else."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key
