"""`python -m worker_agent` is `ringside worker` (so torchrun -m worker_agent works)."""

import sys

from .cli import main

sys.exit(main(["worker", *sys.argv[1:]]))
