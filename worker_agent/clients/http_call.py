"""One JSON call to a Ringside server from a command line (`ringside run`, `ringside bench --server`)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from ringside.worker_agent.clients.trust import context_for


def call(method: str, url: str, token: str | None, body: dict | None = None) -> tuple[int, dict]:
    """(status, JSON body); an error whose body is not JSON (a proxy's page) is said as the server's."""
    request = urllib.request.Request(
        url,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {token}"} if token else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30, context=context_for(url)) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.load(e)
        except ValueError:
            return e.code, {"detail": {"field": "server", "message": e.reason}}
