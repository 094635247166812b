"""Running jobs on a Dask distributed cluster (``--dask ADDRESS`` or ``--dask local[:N]``).

Each Dask task runs one job through :func:`~delve_bench.run.isolate.run_isolated`, so hard
limits hold on the workers too; a LocalCluster is started with non-daemonic workers for
that. Workers must see the same workspace path and data (a shared file system), as on a
typical cluster. Like the local executor, this module receives the function it runs.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import DelveError
from ..workspace import WorkspaceDirs
from .isolate import RunOne, run_isolated
from .job import Job, Limits, Outcome, RunOptions, interrupted


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
    root: str | WorkspaceDirs,
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
                done(
                    interrupted(
                        WorkspaceDirs.from_env(root), job, options, f"Dask worker failed: {e}"
                    )
                )
    except BaseException:
        # stop at once: cancel what is queued; a LocalCluster's workers end below, and the
        # job processes they started end with them (their lifeline closes)
        try:
            if cluster is not None:
                _kill_workers(cluster)
            else:  # a cluster we do not own: cancel our jobs, let it finish running ones
                client.cancel(list(futures), force=True)
            _close(client, cluster, timeout=0.5)
        except Exception:  # already stopping; a slow goodbye must not hold up Ctrl-C
            pass
        raise
    _close(client, cluster, timeout=None)


def _kill_workers(cluster) -> None:
    """Kill the processes of a LocalCluster started here, with everything they started (a
    graceful close would wait for the running jobs; its nannies would restart workers)."""
    import psutil  # type: ignore[import-untyped]  # a dependency of distributed

    for proc in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(proc.cmdline()):  # it ends by itself
                proc.kill()
        except psutil.Error:
            pass


def _close(client, cluster, timeout: float | None) -> None:
    try:
        client.close(timeout=timeout)
    finally:
        if cluster is not None:
            cluster.close(timeout=timeout)
