"""Schedules written out as the data a page or a script sends (`algorithm: custom`): the rank
tests run it, the served and page tests send it."""

from __future__ import annotations

from ringside.worker_agent.core.algorithms import build


def ring_doc(p: int) -> dict:
    """The built-in ring, written out as the data a page or a script would send."""
    ring = build("all_reduce", "ring", p).to_json()
    return {
        "pieces": ring["pieces"],
        "layout": "ring",
        "steps": [
            {"phase": s["phase"], "caption": s["caption"], "transfers": s["transfers"]} for s in ring["steps"]
        ],
    }
