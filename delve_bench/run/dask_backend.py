"""Running jobs on a Dask distributed cluster (``--dask ADDRESS`` or ``--dask local[:N]``).

Each Dask task runs one job through :func:`~delve_bench.run.isolate.run_isolated`, so hard
limits hold on the workers too; a LocalCluster is started with non-daemonic workers for
that. Workers must see the same workspace path and data (a shared file system), as on a
typical cluster. Like the local executor, this module receives the function it runs.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import DelveError
from .isolate import RunOne, run_isolated
from .job import Job, Limits, Outcome, RunOptions


def _client(address: str):
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise DelveError(
            "--dask needs dask[distributed]: pip install 'delve-bench[dask]'"
        ) from None
    if address == "local" or address.startswith("local:"):
        n = int(address.split(":", 1)[1]) if ":" in address else None
        dask.config.set({"distributed.worker.daemon": False})
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            host="127.0.0.1",
        )
        return Client(cluster), cluster
    try:
        return Client(address, timeout="20s"), None
    except OSError as e:
        raise DelveError(f"cannot reach the Dask scheduler at {address} ({e})") from None


def run_on_dask(
    address: str,
    run_one: RunOne,
    root: str,
    jobs: list[Job],
    options: RunOptions,
    limits: Callable[[Job], Limits],
    done: Callable[[Outcome], None],
) -> None:
    """Submit every job, call ``done(outcome)`` as they finish. On KeyboardInterrupt the
    futures are cancelled and the cluster (if started here) is closed at once."""
    from distributed import as_completed

    client, cluster = _client(address)
    futures = {}
    try:
        for i, j in enumerate(jobs):
            f = client.submit(
                run_isolated,
                run_one,
                root,
                j,
                options,
                limits(j),
                key=f"delve-{j.label}-{i}",
                pure=False,
            )
            futures[f] = j
        for f in as_completed(futures):
            job = futures[f]
            try:
                done(f.result())
            except Exception as e:  # a worker died: the job is not recorded, a rerun retries it
                done(Outcome(job, "interrupted", f"Dask worker failed: {e}"))
    except BaseException:
        client.cancel(list(futures), force=True)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
