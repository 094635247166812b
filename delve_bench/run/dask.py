"""Running jobs on a Dask distributed cluster (``--dask ADDRESS`` or ``--dask local[:N]``).

Each Dask task runs one job through :func:`run_isolated`, so hard limits hold on the
workers too; a LocalCluster is started with non-daemonic workers for that. Workers must
see the same workspace path and data (a shared file system), as on a typical cluster.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import DelveError
from .runner import Job


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
    address: str, root, jobs: list[Job], args: tuple, done: Callable[[Job, dict], None]
) -> None:
    """Submit every job, call ``done(job, outcome)`` as they finish."""
    from distributed import as_completed

    from .isolate import run_isolated

    client, cluster = _client(address)
    try:
        futures = {
            client.submit(run_isolated, root, j, *args, key=f"delve-{j.label}-{i}", pure=False): j
            for i, j in enumerate(jobs)
        }
        for f in as_completed(futures):
            job = futures[f]
            try:
                done(job, f.result())
            except Exception as e:  # a worker died: the job is not recorded, a rerun retries it
                done(
                    job, {"status": "interrupted", "error": f"Dask worker failed: {e}", "job": job}
                )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
