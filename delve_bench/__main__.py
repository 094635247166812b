"""``python -m delve_bench`` is the ``delve`` command."""

from .cli import main

if __name__ == "__main__":  # job processes re-import the main module: do not run it there
    main()
