"""The ``delve`` command: parse, call the library, print. User errors are one line on
stderr with exit code 2; failed runs exit 1.

Each group of commands lives in its own module and registers itself on the one
:data:`~._group.cli` group; this module imports them and holds the entry point."""

from __future__ import annotations

import signal
import sys

import click

from ..blas import pin_openblas
from ..errors import DelveError
from . import (  # noqa: F401  (registers the commands)
    analyse,
    check,
    completion,
    data,
    demo,
    power,
    run,
    selftest,
    study,
)
from ._group import cli

__all__ = ["cli", "main"]

TERMINATED = "terminated (SIGTERM)"


class Terminated(KeyboardInterrupt):
    """SIGTERM (a shutdown, `kill`, a batch system's time limit): stopped as Ctrl-C stops a
    run -- workers stopped, unfinished jobs left undone -- and said so."""


_TERMINATED: list[bool] = []


def terminated() -> bool:
    """True once this process received SIGTERM."""
    return bool(_TERMINATED)


def _on_sigterm(signum, frame) -> None:
    _TERMINATED.append(True)
    raise Terminated()


def main() -> None:
    """Entry point: user errors become one line and exit code 2 (1 for failed runs).

    Everything printed passes through :class:`~.printable.Printable`, which strips control
    characters (terminal escape sequences in a method summary or a directory name).

    First of all it pins OpenBLAS's kernels (:func:`~delve_bench.blas.pin_openblas`):
    numpy is not imported yet, and every worker process inherits the setting, so a
    work-mode result is the same on every x86-64 CPU."""
    pin_openblas()
    from .printable import install

    install()
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = cli.main(prog_name="delve", standalone_mode=False)
        if isinstance(code, int) and code:  # ctx.exit(n) returns n without standalone mode
            sys.exit(code)
    except click.exceptions.Abort:  # click turns a KeyboardInterrupt (and so SIGTERM) into this
        if terminated():
            click.echo(TERMINATED, err=True)
            sys.exit(143)
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.exceptions.NoArgsIsHelpError as e:
        e.show()
        sys.exit(e.exit_code)
    except click.UsageError as e:  # one line, like every other user error
        where = e.ctx.command_path if e.ctx else "delve"
        click.echo(f"{where}: error: {e.format_message()} (`{where} -h` for help)", err=True)
        sys.exit(e.exit_code)
    except click.ClickException as e:
        click.echo(f"delve: error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    except DelveError as e:
        click.echo(f"delve: error: {e}", err=True)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        if isinstance(sys.exc_info()[1], Terminated) or terminated():
            click.echo(f"{TERMINATED}; finished instances are kept, rerun to resume", err=True)
            sys.exit(143)
        click.echo("interrupted; finished instances are kept, rerun to resume", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as e:  # a read-only folder, a full disk: the user's to fix, in one line
        where = f"{e.filename}: " if e.filename else ""
        click.echo(f"delve: error: {where}{e.strerror or e}", err=True)
        sys.exit(2)
