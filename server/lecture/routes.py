"""/api/lecture: the link a lecture hall opens, for the presenter's page to show as a QR
code. The link carries the viewer token (watching only), so only the presenter, who
hands it out, may read it here."""

from __future__ import annotations

import segno
from fastapi import APIRouter, Depends, Request

from ringside.server.door.auth import need_presenter, settings_of

router = APIRouter()


@router.get("/api/lecture", dependencies=[Depends(need_presenter)])
async def lecture(request: Request) -> dict:
    """The audience's links, from other machines first, and the first as an SVG QR code."""
    settings = settings_of(request)
    links = [settings.audience_url(url) for url in settings.public_urls()] or [settings.audience_url()]
    qr = segno.make(links[0], error="m").svg_inline(
        scale=8, border=2, dark="#000", light="#fff", omitsize=True
    )
    return {"audience": links, "qr_svg": qr, "exposed": not settings.loopback}
