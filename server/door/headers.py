"""What every answer carries: a browser may not guess a type other than the one given (a JSON
body taken for HTML would run a string a client named), and no other site may frame a page
(a presenter's buttons clicked through a page laid over them)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

ALWAYS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
]


class SafeHeaders:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *ALWAYS]}
            await send(message)

        await self.app(scope, receive, sending)
