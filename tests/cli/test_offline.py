"""A fresh machine, offline: the data ships with the package; fetch and gen say what they do."""

from __future__ import annotations

import shutil
from pathlib import Path

from support import DATA


def _offline(tmp_path) -> dict:
    """No DELVE_DATA_PATH, an empty cache, and no way out to the network."""
    cache = tmp_path / "empty-cache"
    return {
        "DELVE_DATA_PATH": "",
        "XDG_CACHE_HOME": str(cache),
        "HOME": str(tmp_path / "home"),
        "http_proxy": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
        "ftp_proxy": "http://127.0.0.1:9",
    }


def test_the_readme_command_runs_offline_without_data_path(delve, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    r = delve(
        "run",
        "mlp-ese-1",
        "kin-8nm/std.256",
        "--instances",
        "0",
        "--time-scale",
        "0.001",
        root=ws,
        env=_offline(tmp_path),
        check=True,
    )
    assert "ran 1" in r.stderr
    assert (ws / "results/mlp-ese-1/kin-8nm/dist/std.256/0/losses.csv").is_file()
    r = delve("datasets", root=ws, env=_offline(tmp_path), check=True)
    line = next(x for x in r.stdout.splitlines() if x.startswith("kin-8nm "))
    # the shipped copy: the checkout's data/ (editable install) or the installed package's
    shipped = line.split()[-1]
    assert shipped.endswith("kin-8nm.data.gz") and "empty-cache" not in shipped, line
    assert Path(shipped).read_bytes() == (DATA / "kin-8nm.data.gz").read_bytes()


def test_fetch_is_a_no_op_when_a_verified_copy_is_present(delve, tmp_path):
    r = delve("fetch", "kin-8nm", "boston", env=_offline(tmp_path), check=True)
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and all(
        "sha256 verified" in x and "nothing to fetch" in x for x in lines
    )
    assert not (tmp_path / "empty-cache").exists()


def test_fetch_refuses_a_wrong_copy_that_would_hide_the_download(delve, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "boston.data").write_text("1 2 3\n")
    env = _offline(tmp_path) | {"DELVE_DATA_PATH": str(mine)}
    r = delve("fetch", "boston", env=env)
    assert r.returncode == 2 and "boston.data does not have the sha256" in r.stderr


def test_gen_in_an_empty_workspace_writes_nothing_and_says_so(delve, tmp_path):
    r = delve("gen", "kin-8nm", "boston/price", check=True)
    assert r.stdout.splitlines() == [
        "kin-8nm/dist: up to date, nothing written (std.64x8 std.128x8 std.256x8 std.512x8 std.1024x4)",
        "boston/price: up to date, nothing written (std.32x8 std.64x4 std.128x2)",
        "boston/price: DELVE's own Random-order (sha256 checked)",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_gen_reports_the_files_it_wrote(delve, tmp_path, ws):
    from delve_bench.tasks.spec import prototask_spec

    # a seeded prototask of the user's: gen makes its Random-order and index files
    src = prototask_spec(ws, "hwang-g1", "noisy")
    (tmp_path / "tasks" / "hwang-g1").mkdir(parents=True)
    shutil.copy(src.path, tmp_path / "tasks" / "hwang-g1" / "noisy.yaml")
    r = delve("gen", "hwang-g1/noisy", check=True)
    # Random-order and 8 x 5 + 4 + 2 + 1 training and as many test index files
    sizes = "std.64x8 std.128x8 std.256x8 std.512x8 std.1024x8 std.2048x4 std.4096x2 std.8192x1"
    assert r.stdout.strip() == f"hwang-g1/noisy: wrote 95 files ({sizes})"
    r = delve("gen", "hwang-g1/noisy", check=True)
    assert "up to date, nothing written" in r.stdout
    # DELVE's boston order ships with the package: a copied spec without it is one error
    (tmp_path / "tasks" / "boston").mkdir(parents=True)
    shutil.copy(prototask_spec(ws, "boston", "price").path, tmp_path / "tasks" / "boston")
    r = delve("gen", "boston/price")
    assert r.returncode == 2 and "DELVE's own Random-order, which ships" in r.stderr
