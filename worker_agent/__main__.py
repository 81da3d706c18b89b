"""`python -m ringside.worker_agent` is `ringside worker` (so torchrun -m ringside.worker_agent works)."""

import sys

from .cli import main

sys.exit(main(["worker", *sys.argv[1:]]))
