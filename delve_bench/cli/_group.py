"""The ``delve`` command group, its global options and the small helpers its commands share:

* :func:`json_output` and :func:`emit`: the one JSON convention (docs/json.md). ``--json``
  prints one JSON document per call: an array with one record per thing listed, or one
  object for a command about one thing (``run``); every record carries ``kind`` and
  ``schema_version``. ``--jsonl`` prints the same records one per line, as a stream.
  A new command that prints data decorates itself with ``@json_output`` and prints
  through ``emit(kind, items, output, text)``.
* :func:`examples`: the "Examples:" epilog every command's ``--help`` ends with.
* :func:`complete_methods`, :func:`complete_tasks`, ...: shell completion of names.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable
from typing import Any

import click

from ..defaults import ALL_LOSSES, CLASSIFICATION_LOSSES, DEFAULT_LOSSES, REGRESSION_LOSSES
from ..workspace import WorkspaceDirs

LOSS = click.Choice(list(ALL_LOSSES))
LOSS_HELP = (
    f"Loss: {'|'.join(REGRESSION_LOSSES)} (regression), {'|'.join(CLASSIFICATION_LOSSES)} "
    f"(classification).  [default: {DEFAULT_LOSSES[0]}, or {DEFAULT_LOSSES[1]} on "
    "classification tasks]"
)

#: bumped when a key of a ``--json`` record changes meaning or disappears (docs/json.md)
SCHEMA_VERSION = 1


class PositiveSeconds(click.ParamType):
    """A finite number greater than zero (time scales, limits); 0, negatives, nan and inf
    are refused rather than silently replaced by a default."""

    name = "number>0"

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, float):
            x = value
        else:
            try:
                x = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x) or x <= 0:
            self.fail(f"{value} must be a finite number greater than 0", param, ctx)
        return x


POSITIVE = PositiveSeconds()


#: a probability strictly between 0 and 1 (significance levels, power)
PROBABILITY = click.FloatRange(0, 1, min_open=True, max_open=True)

# ---- options several commands share: one definition each ----------------------------
# (a click.option decorator makes a fresh Option each time it is applied)

#: ``-l/--loss`` of a command about one loss
loss_option = click.option("-l", "--loss", type=LOSS, default=None, help=LOSS_HELP)

#: ``--retry-failed`` of the commands that run jobs
retry_failed_option = click.option(
    "--retry-failed", is_flag=True, help="Rerun instances recorded as failed."
)


def choice_option(name: str, choices: list[str], help: str) -> Callable:
    """An option taking one of ``choices``, the first by default (shown in --help)."""
    return click.option(
        name, type=click.Choice(choices), default=choices[0], show_default=True, help=help
    )


def alpha_option(default: float, help: str | None = None) -> Callable:
    """``--alpha``: a significance level."""
    return click.option("--alpha", type=PROBABILITY, default=default, show_default=True, help=help)


def executor_options(dask_help: str) -> Callable:
    """``--jobs/-j`` and ``--dask``: where the jobs of a run go."""

    def decorate(f: Callable) -> Callable:
        f = click.option("--dask", "dask_address", metavar="ADDRESS|local[:N]", help=dask_help)(f)
        return click.option(
            "--jobs",
            "-j",
            type=click.IntRange(1),
            default=1,
            show_default=True,
            help="Jobs at a time on this machine (one BLAS thread each).",
        )(f)

    return decorate


def _ws(ctx: click.Context) -> WorkspaceDirs:
    return ctx.obj["ws"]


WITH_HELP = (
    "Also read the committed results of study STUDY (read only, no unpacking): its "
    "methods beside yours, paired on task, instance and case."
)


def _set_with(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value:
        from ..study.beside import with_study

        obj = ctx.ensure_object(dict)
        obj["ws"] = with_study(obj["ws"], value)


#: ``--with STUDY`` of the analysis commands: the study's committed results as a second,
#: read-only source (:mod:`delve_bench.run.sources`)
with_option = click.option(
    "--with",
    "with_study",
    metavar="STUDY",
    expose_value=False,
    callback=_set_with,
    help=WITH_HELP,
)


ROOT_HELP = "Workspace with datasets/, tasks/, methods/, results/ (default: current directory)."


def _existing_root(value: str | None, name: str = "--root") -> None:
    """A workspace given by --root or DELVE_ROOT must be a directory: a typo must not read
    as an empty workspace (every command would then say there is nothing)."""
    from pathlib import Path

    from ..errors import DelveError

    if value is not None and not Path(value).expanduser().is_dir():
        what = "not a directory" if Path(value).expanduser().exists() else "no such directory"
        raise DelveError(f"{name}{'' if name.endswith('=') else ' '}{value}: {what}")


def _set_root(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--root`` given after a subcommand: it replaces the workspace the group chose."""
    _existing_root(value)
    if value is not None:
        obj = ctx.ensure_object(dict)
        obj["ws"] = WorkspaceDirs.from_env(value, obj.get("results"))


class DelveGroup(click.Group):
    """A group whose every subcommand also takes ``--root``, so the global option works
    before or after the subcommand (``delve --root W status`` = ``delve status --root W``)."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if not any(p.name == "root" for p in cmd.params):
            cmd.params.append(
                click.Option(
                    ["--root"],
                    type=click.Path(file_okay=False),
                    expose_value=False,
                    is_eager=True,
                    callback=_set_root,
                    help=ROOT_HELP,
                )
            )
        super().add_command(cmd, name)


def examples(*lines: str) -> str:
    """A ``--help`` epilog listing real command lines (kept as written, not rewrapped)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


@click.group(
    cls=DelveGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=examples(
        "delve demo                                  # offline example",
        "delve run lin-1 knn-cv-1 kin-8nm/std.64 --dry-run",
        "delve compare knn-cv-1 lin-1 kin-8nm/std.64",
    )
    + "\n\nEvery command has --help with examples; `delve completion bash` completes names.",
)
@click.option("--root", envvar="DELVE_ROOT", type=click.Path(file_okay=False), help=ROOT_HELP)
@click.option(
    "--results",
    envvar="DELVE_RESULTS",
    type=click.Path(file_okay=False),
    help="Result store (default: ROOT/results), e.g. results/thesis/runs for a study's.",
)
@click.version_option(package_name="delve-bench")
@click.pass_context
def cli(ctx: click.Context, root: str | None, results: str | None) -> None:
    """delve-bench: compare learning methods on DELVE tasks with valid statistics."""
    from_env = ctx.get_parameter_source("root") == click.core.ParameterSource.ENVIRONMENT
    _existing_root(root, "DELVE_ROOT=" if from_env else "--root")
    ctx.obj = {"ws": WorkspaceDirs.from_env(root, results), "results": results}


# ---- JSON ----------------------------------------------------------------------------


def json_output(f: Callable) -> Callable:
    """Add ``--json`` (one document) and ``--jsonl`` (one record per line) to a command;
    the command receives ``output`` = None, 'json' or 'jsonl'."""
    f = click.option(
        "--jsonl",
        "output",
        flag_value="jsonl",
        help="The same records as --json, one JSON object per line (for streams).",
    )(f)
    return click.option(
        "--json",
        "output",
        flag_value="json",
        help="Print one JSON document instead of text (keys: docs/json.md).",
    )(f)


def _plain(x: Any) -> Any:
    """JSON-safe: non-finite floats become null, numpy scalars Python numbers."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, str | bytes):  # numpy scalar
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def record(kind: str, obj: Any) -> dict:
    """One ``--json`` record: ``kind``, ``schema_version`` and the object's fields
    (``to_dict()``, a dataclass or a dict)."""
    import dataclasses

    if hasattr(obj, "to_dict"):
        fields = obj.to_dict()
    elif dataclasses.is_dataclass(obj):
        fields = dataclasses.asdict(obj)  # type: ignore[arg-type]
    else:
        fields = dict(obj)
    return _plain({"kind": kind, "schema_version": SCHEMA_VERSION, **fields})


def dumps(doc: Any, indent: int | None = 2) -> str:
    return json.dumps(doc, sort_keys=True, indent=indent, allow_nan=False, ensure_ascii=False)


def emit(
    kind: str,
    items: Iterable[Any],
    output: str | None,
    text: Callable[[list], str] | None = None,
    one: bool = False,
) -> None:
    """Print ``items`` as text (``text(items)``), one JSON document, or JSON lines.

    ``one``: the command reports on one thing; ``--json`` prints that record as an object
    rather than an array of one."""
    items = list(items)
    if output == "jsonl":
        for it in items:
            click.echo(dumps(record(kind, it), indent=None))
    elif output == "json":
        recs = [record(kind, it) for it in items]
        click.echo(dumps(recs[0] if one and len(recs) == 1 else recs))
    elif text is not None:
        click.echo(text(items), nl=False)


def warn_broken(items: list, what: str) -> None:
    """A listing shows a spec that cannot be read in place (``error``); say so on stderr."""
    bad = sum(bool(getattr(i, "error", None)) for i in items)
    if bad:
        click.echo(f"warning: {bad} {what} spec(s) could not be read (see above)", err=True)


# ---- shell completion ----------------------------------------------------------------


def _completion_ws(ctx: click.Context) -> WorkspaceDirs:
    root = ctx.find_root().params.get("root") or os.environ.get("DELVE_ROOT")
    return WorkspaceDirs.from_env(root)


def _items(prefix: str, names: Iterable[str]) -> list:
    from click.shell_completion import CompletionItem

    return [CompletionItem(n) for n in sorted(set(names)) if n.startswith(prefix)]


def _method_names(ctx: click.Context) -> list[str]:
    from ..methods.registry import method_names

    try:
        return method_names(_completion_ws(ctx))
    except Exception:  # completion must never print a traceback into the shell
        return []


def _task_names(ctx: click.Context, incomplete: str) -> list[str]:
    """Datasets, ``dataset/prototask`` and ``dataset/prototask/std.n`` (and the
    ``dataset/std.n`` shorthand for datasets with one prototask)."""
    from ..data import dataset_names
    from ..tasks.spec import prototask_names, prototask_spec

    ws = _completion_ws(ctx)
    try:
        names = list(dataset_names(ws))
        if "/" not in incomplete:
            return names
        ds = incomplete.split("/", 1)[0]
        if ds not in names:
            return []
        out = []
        protos = prototask_names(ws, ds)
        for p in protos:
            out.append(f"{ds}/{p}")
            sizes = prototask_spec(ws, ds, p).training_set_sizes
            out += [f"{ds}/{p}/std.{n}" for n in sizes]
            if len(protos) == 1:
                out += [f"{ds}/std.{n}" for n in sizes]
        return out
    except Exception:
        return []


def complete_methods(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    return _items(incomplete, _method_names(ctx))


def complete_tasks(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    return _items(incomplete, _task_names(ctx, incomplete))


def complete_methods_or_tasks(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """``delve run METHOD... TASK...``: methods until a task has been given, then tasks."""
    given = ctx.params.get(param.name) or ()
    known = set(_method_names(ctx))
    tasks = _task_names(ctx, incomplete)
    if any(a not in known for a in given):
        return _items(incomplete, tasks)
    return _items(incomplete, list(known) + tasks)


def complete_datasets(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    return _items(incomplete, [n for n in _task_names(ctx, "") if "/" not in n])


def complete_methods_csv(ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
    """``--methods a,b,c``: completes the name after the last comma."""
    head, _, last = incomplete.rpartition(",")
    prefix = head + "," if head else ""
    return _items(incomplete, [prefix + m for m in _method_names(ctx) if m.startswith(last)])
