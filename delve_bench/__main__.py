"""``python -m delve_bench`` is the ``delve`` command."""

from .cli import main

main()
