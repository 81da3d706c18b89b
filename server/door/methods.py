"""Which methods a path takes: those of every API route on it together, as the schema lists them
(Starlette's own 405 names the first route's alone, and a method only the page's files take falls
to them: GET on a route that only posts answered 404), and the page's files' GET and HEAD. A
concrete path is matched before a templated one, as OpenAPI reads them: /api/runs/preview takes
POST, whatever /api/runs/{run_id} takes. The guard answers a method a path lacks 405 with `Allow`,
from the headers alone: no token is checked and no body read for a request no route takes."""

from __future__ import annotations

import re

from fastapi.routing import APIRoute

FILES = ("GET", "HEAD")  # the page's, its vendored scripts' and the docs' files (the mounts')


class Methods:
    def __init__(self, routes: list[APIRoute]):
        self.routes: list[tuple[set[str], re.Pattern, bool]] = [
            (r.methods or set(), r.path_regex, not r.param_convertors) for r in routes
        ]

    def of(self, path: str) -> tuple[str, ...]:
        """What `path` takes, in order: its routes' methods, or the files' if no route is on it."""
        on = [(methods, concrete) for methods, pattern, concrete in self.routes if pattern.match(path)]
        if any(concrete for _, concrete in on):
            on = [(methods, concrete) for methods, concrete in on if concrete]
        taken = set().union(*(methods for methods, _ in on))
        return tuple(sorted(taken)) if taken else FILES
