"""The ``delve`` command: parse, call the library, print. User errors are one line on
stderr with exit code 2; failed runs exit 1.

Each group of commands lives in its own module and registers itself on the one
:data:`~._group.cli` group; this module imports them and holds the entry point."""

from __future__ import annotations

import sys

import click

from ..errors import DelveError
from . import analyse, data, demo, run  # noqa: F401  (registers the commands)
from ._group import cli

__all__ = ["cli", "main"]


def main() -> None:
    """Entry point: user errors become one line and exit code 2 (1 for failed runs)."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except DelveError as e:
        click.echo(f"delve: error: {e}", err=True)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted; finished instances are kept, rerun to resume", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
