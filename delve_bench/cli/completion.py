"""``delve completion SHELL``: the shell-completion script (Click's), which completes
commands, options, method names, dataset and task names."""

from __future__ import annotations

import click

from ._group import cli, examples

SHELLS = ("bash", "zsh", "fish")


@cli.command(
    epilog=examples(
        'eval "$(delve completion bash)"        # in ~/.bashrc',
        'eval "$(delve completion zsh)"         # in ~/.zshrc',
        "delve completion fish > ~/.config/fish/completions/delve.fish",
    )
)
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the completion script for SHELL: commands, options, and the names of methods,
    datasets and tasks of the workspace (--root / DELVE_ROOT) at the time you press Tab."""
    from click.shell_completion import get_completion_class

    cls = get_completion_class(shell)
    if cls is None:  # pragma: no cover - Click ships all three
        raise click.UsageError(f"no completion for {shell}")
    click.echo(cls(cli, {}, "delve", "_DELVE_COMPLETE").source())
