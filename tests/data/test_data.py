"""Datasets: specs, real files and checksums, parsing errors, fetching, hwang, encoding."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile

import numpy as np
import pytest
import yaml
from support import DATA, REPO

from delve_bench.data import dataset_names, dataset_spec, load_dataset
from delve_bench.data import load as load_mod
from delve_bench.data.encoding import abs_dev, fit_coding, median
from delve_bench.data.fetch import fetch
from delve_bench.data.hwang import FUNCTIONS, generate
from delve_bench.data.load import find_file
from delve_bench.errors import DelveError
from delve_bench.rng import normals, random_order, uniforms

UNIFORMS_1996 = [0.7338766560087213, 0.9753804975723241, 0.8804743805579743]
ORDER_10_1996 = [8, 10, 2, 9, 5, 1, 7, 6, 3, 4]

REQUIRED = [
    "boston",
    "abalone",
    "comp-activ-cpu",
    "comp-activ-cpuSmall",
    "bank-8fh",
    "bank-8fm",
    "bank-8nh",
    "bank-8nm",
    "bank-32nh",
    "bank-32nm",
    "house-price-8L",
    "house-price-8H",
    "house-price-16L",
    "house-price-16H",
    "pumadyn-32nh",
    "pumadyn-32nm",
    "kin-32fh",
    "kin-32fm",
    "kin-32nh",
    "kin-32nm",
    "pumadyn-32fh",
    "pumadyn-32fm",
]
REQUIRED += [f"{f}-8{v}" for f in ("kin", "pumadyn") for v in ("fh", "fm", "nh", "nm")]
REQUIRED += [f"hwang-g{i}" for i in range(1, 6)]


def test_every_dataset_has_a_spec(ws):
    names = dataset_names(ws)
    assert set(REQUIRED) <= set(names)
    for n in names:
        s = dataset_spec(ws, n)
        assert s.cases > 0 and s.attributes
        assert s.generated or s.sources or s.sha256, n


SHIPPED = [
    *(f"kin-8{v}" for v in ("fh", "fm", "nh", "nm")),
    *(f"kin-32{v}" for v in ("fh", "fm", "nh", "nm")),
    *(f"pumadyn-8{v}" for v in ("fh", "fm", "nh", "nm")),
    *(f"pumadyn-32{v}" for v in ("fh", "fm", "nh", "nm")),
    *(f"bank-8{v}" for v in ("fh", "fm", "nh", "nm")),
    *(f"bank-32{v}" for v in ("fh", "fm", "nh", "nm")),
    "boston",
    "abalone",
    "comp-activ-cpu",
    "comp-activ-cpuSmall",
    *(f"house-price-{v}" for v in ("8L", "8H", "16L", "16H")),
    # two-class benchmarks (docs/data.md, "Classification data")
    "ripley",
    *("banana", "breast_cancer", "german", "heart", "titanic", "waveform"),
    "thyroid",
    "flare_solar",
]


def test_the_redistributable_data_ships_with_its_sha256_and_provenance(ws):
    assert sorted(p.name for p in DATA.glob("*.data.gz")) == sorted(f"{n}.data.gz" for n in SHIPPED)
    for name in SHIPPED:
        spec = dataset_spec(ws, name)
        content = gzip.decompress((DATA / spec.file).read_bytes())
        assert hashlib.sha256(content).hexdigest() == spec.sha256, name
        prov = spec.provenance
        assert prov is not None and prov.origin and prov.conversion and prov.checks, name
        assert all(len(o.commit) == 40 for o in prov.origin), name
    # DELVE's own files from the mirror of DELVE's directory tree, beside DELVE's specs
    for name in (
        *(f"{f}-32{v}" for f in ("kin", "pumadyn") for v in ("fm", "nh", "nm")),
        "pumadyn-32fh",
        "bank-32fh",
        "bank-32fm",
    ):
        assert dataset_spec(ws, name).provenance.origin[0].repository == "mstrazar/mklaren", name


def test_shipped_data_is_found_without_data_path_or_cache(ws, monkeypatch, tmp_path):
    """Offline on a fresh machine: no DELVE_DATA_PATH, an empty cache, still real data."""
    monkeypatch.delenv("DELVE_DATA_PATH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(load_mod, "_LOADED", {})
    ds = load_dataset(ws, "kin-8nm")
    assert ds.source == str(DATA / "kin-8nm.data.gz") and ds.values.shape == (8192, 9)


def test_data_path_and_cache_come_before_the_shipped_data(ws, monkeypatch, tmp_path):
    spec = dataset_spec(ws, "boston")
    content = gzip.decompress((DATA / "boston.data.gz").read_bytes())
    cache, mine = tmp_path / "cache" / "delve-bench" / "data", tmp_path / "mine"
    for d in (cache, mine):
        d.mkdir(parents=True)
    (cache / "boston.data.gz").write_bytes(gzip.compress(content))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("DELVE_DATA_PATH", raising=False)
    assert find_file(spec) == cache / "boston.data.gz"
    (mine / "boston.data").write_bytes(content)
    monkeypatch.setenv("DELVE_DATA_PATH", str(mine))
    assert find_file(spec) == mine / "boston.data"


@pytest.mark.parametrize(
    "name,shape,mean",
    [
        ("boston", (506, 14), 22.5328),
        ("kin-8nm", (8192, 9), 0.714283),
        ("pumadyn-32nm", (8192, 33), 0.000437184),
        ("pumadyn-32nh", (8192, 33), -0.000415862),
        ("house-price-8L", (22784, 9), 50074.4),
    ],
)
def test_real_files_load_with_the_documented_target_mean(ws, name, shape, mean):
    ds = load_dataset(ws, name)
    assert ds.values.shape == shape
    assert ds.values[:, -1].mean() == pytest.approx(mean, rel=1e-5)


def test_abalone_sex_is_nominal_and_one_of_n_encoded(ws):
    ds = load_dataset(ws, "abalone")
    sex = ds.values[:, 0]
    assert set(np.unique(sex)) == {0.0, 1.0, 2.0}  # M, F, I
    assert ds.values[0, 0] == 0  # first case is M
    spec = ds.spec
    coding = fit_coding(
        ds.values[:100, :8], ds.values[:100, 8], spec.attributes[:8], spec.attributes[8]
    )
    X = coding.inputs(ds.values[:5, :8])
    assert X.shape == (5, 3 + 7)
    assert np.array_equal(X[:, :3].sum(1), np.ones(5))
    assert coding.kinds[:3] == ["binary"] * 3


def test_boston_chas_is_binary_0_1(ws):
    ds = load_dataset(ws, "boston")
    assert set(np.unique(ds.values[:, 3])) == {0.0, 1.0}


def _private_copy(tmp_path, ws, name, mutate=None):
    """A data dir with a (possibly modified) copy of ``name`` and a workspace spec for it."""
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    text = gzip.decompress((DATA / f"{name}.data.gz").read_bytes()).decode()
    if mutate:
        text = mutate(text)
    (data / f"{name}.data").write_text(text)
    return data


def test_checksum_mismatch_names_both_hashes(tmp_path, ws, monkeypatch):
    data = _private_copy(tmp_path, ws, "boston", lambda t: t.replace("24.00", "24.01", 1))
    monkeypatch.setenv("DELVE_DATA_PATH", str(data))
    with pytest.raises(DelveError) as e:
        load_dataset(ws, "boston")
    msg = str(e.value)
    assert "checksum mismatch" in msg and dataset_spec(ws, "boston").sha256 in msg
    import re

    assert len(re.findall(r"\b[0-9a-f]{64}\b", msg)) == 2


def test_malformed_data_gives_file_and_line(tmp_path, ws, monkeypatch):
    lines = gzip.decompress((DATA / "boston.data.gz").read_bytes()).decode().splitlines(True)
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "datasets").mkdir()
    spec = yaml.safe_load(dataset_spec(ws, "boston").path.read_text())
    spec["sha256"] = None  # a workspace copy of the spec without a checksum reaches the parser
    (tmp_path / "datasets" / "boston.yaml").write_text(yaml.safe_dump(spec))
    for bad, needle in (
        ("0.1 0.2\n", "line 7: 2 values, expected 14"),
        (lines[6].replace("0.0", "abc", 1), r"line 7, column 1 \(CRIM\): 'abc"),
    ):
        (data / "boston.data").write_text("".join(lines[:6] + [bad] + lines[7:]))
        monkeypatch.setenv("DELVE_DATA_PATH", str(data))
        load_mod._LOADED.clear()
        with pytest.raises(DelveError, match=needle) as e:
            load_dataset(ws, "boston")
        assert "boston.data" in str(e.value)


def test_missing_data_says_how_to_fetch(ws, monkeypatch, tmp_path):
    # a dataset of the user's whose file is nowhere: not shipped, not in the path or cache
    spec = (REPO / "datasets" / "kin-32fm.yaml").read_text()
    (ws.root / "datasets").mkdir()
    (ws.root / "datasets" / "kin-32xx.yaml").write_text(
        spec.replace("kin-32fm", "kin-32xx").replace("sha256: ", "sha256: null #", 1)
    )
    monkeypatch.setenv("DELVE_DATA_PATH", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(DelveError, match="delve fetch kin-32xx"):
        load_dataset(ws, "kin-32xx")


def _tarball(member: str, content: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        payload = gzip.compress(content)
        info = tarfile.TarInfo(member)
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    return buf.getvalue()


def test_fetch_downloads_verifies_and_caches_without_network(ws, monkeypatch, tmp_path):
    content = gzip.decompress((DATA / "kin-8nm.data.gz").read_bytes())
    spec = dataset_spec(ws, "kin-8nm")
    calls = []

    def opener(url):
        calls.append(url)
        return _tarball(spec.sources[0]["member"], content)

    path = fetch(spec, opener=opener, dest=tmp_path / "cache")
    assert calls == [spec.sources[0]["url"]]
    assert gzip.decompress(path.read_bytes()) == content
    monkeypatch.setenv("DELVE_DATA_PATH", str(tmp_path / "cache"))
    assert load_dataset(ws, "kin-8nm").values.shape == (8192, 9)
    with pytest.raises(DelveError, match="checksum mismatch"):
        fetch(
            spec,
            opener=lambda url: _tarball(spec.sources[0]["member"], content + b"1 2 3\n"),
            dest=tmp_path / "other",
        )
    assert not (tmp_path / "other" / "kin-8nm.data.gz").exists()


def test_hwang_functions_and_generation_are_deterministic(ws):
    assert FUNCTIONS["g1"](np.array([0.4]), np.array([0.6]))[0] == pytest.approx(10.391 * 0.36)
    assert FUNCTIONS["g2"](np.array([0.5]), np.array([0.5]))[0] == 0.0
    a, b = generate("g5", 1000, 7), generate("g5", 1000, 7)
    assert np.array_equal(a, b) and a.shape == (1000, 4)
    assert 0 <= a[:, :2].min() and a[:, :2].max() < 1
    noise = a[:, 3] - a[:, 2]
    assert noise.std() == pytest.approx(0.25, rel=0.1) and abs(noise.mean()) < 0.05
    ds = load_dataset(ws, "hwang-g3")  # verified against the sha256 recorded in its spec
    assert ds.values.shape == (16384, 4) and ds.source.startswith("generator")


def test_documented_generator_stream_is_fixed():
    """Golden values of the documented generator: if these change, every committed
    Random-order and every hwang dataset would change with them."""
    assert uniforms(1996, 3).tolist() == UNIFORMS_1996
    assert random_order(10, 1996).tolist() == ORDER_10_1996
    assert sorted(random_order(100, 3).tolist()) == list(range(1, 101))
    z = normals(5, 200000)
    assert abs(z.mean()) < 0.01 and z.std() == pytest.approx(1.0, abs=0.01)


def test_median_and_absdev_follow_delve():
    x = np.array([1.0, 2.0, 3.0, 10.0])
    assert median(x) == 2.5
    assert abs_dev(x) == pytest.approx((1.5 + 0.5 + 0.5 + 7.5) / 3)


def test_default_encoding_is_fitted_on_the_training_set(ws):
    ds = load_dataset(ws, "kin-8nm")
    tr = ds.values[:256]
    c = fit_coding(tr[:, :8], tr[:, 8], ds.spec.attributes[:8], ds.spec.attributes[8])
    X = c.inputs(tr[:, :8])
    assert np.allclose(np.median(X, 0), 0, atol=1e-12)
    assert np.allclose(np.abs(X).sum(0) / 255, 1)
    t = c.target(tr[:, 8])
    assert np.median(t) == pytest.approx(0, abs=1e-12) and np.abs(t).sum() / 255 == pytest.approx(1)
    assert np.allclose(c.decode(t), tr[:, 8])
