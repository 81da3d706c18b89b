"""What `ringside up` refuses before it starts anything: ranks that do not split into the nodes asked
for (`--nodes`), said on its output, exit status 2."""

from __future__ import annotations

from ringside.worker_agent import cli


def test_ranks_that_do_not_split_into_the_nodes_are_refused(capsys):
    assert cli.main(["up", "--ranks", "3", "--nodes", "2"]) == 2
    assert "3 ranks do not split into 2 equal nodes" in capsys.readouterr().out
