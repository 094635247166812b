"""Write docs/cli.md from the commands' own ``--help`` (their examples included), so the
reference cannot drift from the command: ``python -m delve_bench.cli._helpdoc > docs/cli.md``
(tests/cli/test_helpdoc.py checks the file is current)."""

from __future__ import annotations

import click

from . import cli

WIDTH = 100


def render() -> str:
    # the settings `delve` itself runs with, whatever process renders the page
    help_names = ["-h", "--help"]
    root = click.Context(
        cli,
        info_name="delve",
        terminal_width=WIDTH,
        max_content_width=WIDTH,
        help_option_names=help_names,
    )
    out = [
        "# The `delve` command",
        "",
        "Generated from `delve COMMAND --help` by `python -m delve_bench.cli._helpdoc`; every",
        "command's help ends with real examples. Global option: `--root DIR` (or `DELVE_ROOT`).",
        "JSON output: docs/json.md. Python API: docs/api.md.",
        "",
    ]
    for path, cmd, ctx in commands(root):
        out += [f"## delve {path}", "", "```text", cmd.get_help(ctx).rstrip(), "```", ""]
    return "\n".join(out)


def commands(root: click.Context, prefix: str = ""):
    """(``name subname``, command, its context) for every command, groups' subcommands
    after the group, with ``delve``'s own help settings."""
    group = root.command
    assert isinstance(group, click.Group)
    for name in sorted(group.commands):
        cmd = group.commands[name]
        ctx = click.Context(
            cmd,
            info_name=name,
            parent=root,
            terminal_width=WIDTH,
            max_content_width=WIDTH,
            help_option_names=root.help_option_names,
        )
        yield prefix + name, cmd, ctx
        if isinstance(cmd, click.Group):
            yield from commands(ctx, prefix + name + " ")


if __name__ == "__main__":
    print(render(), end="")
