"""What every answer carries: a browser may not guess a type other than the one given (a JSON
body taken for HTML would run a string a client named), no other site may frame a page (a
presenter's buttons clicked through a page laid over them), and a page runs only the scripts
the server serves, never one a client's text smuggled into markup (the Content-Security-Policy:
the page's one inline script, its import map, is allowed by its hash; styles may be inline, as
plotly writes its own)."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

INLINE = re.compile(rb"<script[^>]*>(.+?)</script>", re.S)


def policy(page: Path | None) -> str:
    """The Content-Security-Policy, allowing the inline scripts of `page` (index.html) by hash."""
    hashes = [
        f"'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
        for script in (INLINE.findall(page.read_bytes()) if page is not None and page.exists() else [])
    ]
    return "; ".join(
        (
            "default-src 'self'",
            " ".join(("script-src 'self'", *hashes)),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )


class SafeHeaders:
    def __init__(self, app: ASGIApp, csp: str):
        self.app = app
        self.always = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"content-security-policy", csp.encode()),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.always]}
            await send(message)

        await self.app(scope, receive, sending)
