"""The process groups a watched rank has made, by the names torch gave them: their ranks, and the
names their makers gave (new_group's group_desc, DeviceMesh's "mesh_dp"), each said to the server
once. Learnt on the user's thread too (the launcher calls `learn` after every new_group: a group of
a short job is gone by the next poll), hence the lock."""

from __future__ import annotations

import threading

import torch.distributed.distributed_c10d as c10d


class Groups:
    def __init__(self):
        self.ranks: dict[str, list[int]] = {}  # every group known, by name
        self.descs: dict[str, str] = {}  # the names torch gave them
        self.said: set[str] = set()
        self.lock = threading.Lock()

    def ranks_of(self, name: str) -> list[int] | None:
        """A group's global ranks, by its name; None for one not known."""
        return self.ranks.get(name)

    def learn(self) -> None:
        """Note the process groups that exist now, and the names torch gave them."""
        with self.lock:
            for pg, name in list(c10d._world.pg_names.items()):
                if name not in self.ranks and pg in c10d._world.pg_group_ranks:
                    self.ranks[name] = sorted(c10d._world.pg_group_ranks[pg])
                    desc = getattr(pg, "group_desc", "")
                    if desc and desc != "undefined":
                        self.descs[name] = str(desc)[:64]

    def unsaid(self) -> tuple[dict[str, list[int]], dict[str, str]]:
        """The groups not said yet, and their names, taken as said."""
        self.learn()
        with self.lock:
            new = {name: ranks for name, ranks in self.ranks.items() if name not in self.said}
            self.said.update(new)
            descs = {name: self.descs[name] for name in new if name in self.descs}
        return new, descs
