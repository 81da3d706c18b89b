"""One rank, with torch: its process group, the executor and runner, native calls, capture
and verification, and its link to the server (or the local ranks `ringside up` starts)."""
