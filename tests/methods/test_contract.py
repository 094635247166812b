"""The contract every registered method keeps, checked on every method YAML (built-in or
added later), as scikit-learn's ``check_estimator`` checks every estimator.

Each method fits and predicts a small real task through the harness' own steps (a
generated hwang task for regression, a two-class heart task for classification) and:

* serves every loss it declares, with finite losses for every test case;
* predicts the same numbers when fitted twice with the same seed;
* respects its budget: with a tiny work allowance it asks the budget and stops once told
  the allowance is spent; with a tiny CPU allowance it ends within one step of it (a
  search: after its first configuration);
* records ``info`` that JSON can write (after numpy conversion, as meta.json is written);
* has the shape of every family: its YAML names the class by its own name (no YAML
  version in it), ``fit``/``predict`` are annotated, a fit sets only attributes ending
  in ``_`` (or private ones);
* fails as one clear error: a training set too small for it is a one-line ``ValueError``
  (or a fit), unknown parameters a one-line error naming the method.

The sizes and budgets are tiny: the fast loop's part of this module takes some 4 CPU
seconds (a quiet 2-core machine), the fits of SLOW_FITS, marked slow, some 25 more.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import json
import time
from dataclasses import dataclass, field

import numpy as np
import pytest
import yaml

from delve_bench.errors import DelveError
from delve_bench.losses import task_losses
from delve_bench.methods.base import Budget, FitContext, Method, Prediction
from delve_bench.methods.modern.search import TunedMethod
from delve_bench.methods.registry import MethodSpec, checked_method, method_names, method_spec
from delve_bench.run import EncodedInstance, load_instance
from delve_bench.run.job import Fitted, check, class_tables, decode, fit_predict, result_tables
from delve_bench.workspace import WorkspaceDirs, builtin_root

#: small real tasks: 64 training cases of a generated regression function (its data need
#: no download) and 40 of a two-class medical data set
REGRESSION_TASK = "hwang-g1/noisy/std.64"
CLASSIFICATION_TASK = "heart/class/std.40"
#: the tiny allowances the budget checks give: work units, and CPU seconds
TINY_WORK = 2
#: a search's work unit is a whole k-fold CV of one configuration (rf-1: 5 forests of 300
#: trees), so a search gets one: it must still ask its budget after that configuration and
#: stop (configuration 0 always runs; one that ignored the budget would go on to the next).
#: tests/methods/modern/test_modern_methods.py checks a search of two configurations
TINY_SEARCH_WORK = 1
TINY_CPU = 0.02
#: CPU a method may spend past a spent CPU allowance: it finishes the step it is in
#: (one MCMC iteration, one bag, one line search on 64 cases) and predicts
CPU_SLACK = 2.0
#: a search's whole fit under a spent CPU allowance (its first configuration, which always
#: runs, the refit and the prediction) against the CPU its search recorded: 1.13 to 1.26
#: for the five modern baselines here. Its first configuration is a step longer than
#: CPU_SLACK on a loaded machine (rf-1: 5 forests of 300 trees, 2 to 4 s), so a search is
#: held to its own recorded CPU, which the machine's load does not change
SEARCH_FACTOR = 1.5

#: scikit-learn estimators named straight by a YAML (the adapters of
#: :mod:`delve_bench.methods.sklearn`), held to the same contract
ADAPTED = {
    "sk-ridge-0": "plugin: sklearn.linear_model:Ridge\nparams: {alpha: 1.0}\n",
    "sk-logistic-0": "plugin: sklearn.linear_model:LogisticRegression\nparams: {C: 1.0}\n",
}
NAMES = method_names(WorkspaceDirs(builtin_root())) + sorted(ADAPTED)


#: methods whose fits here are slow: their fitting checks run in the full suite, not in
#: the fast loop (`-m "not slow"`). Fitted lightly elsewhere in the fast loop:
#: mars3.6-bag-1 (50 MARS fits, 3 CPU s; tests/methods/mars/test_mars_plugin.py bags
#: three), svm-1 (a 5-fold CV grid, 2 CPU s; tests/methods/basis/test_widths.py), gp-mc-1
#: (1.7 CPU s; tests/methods/gp/test_gp.py fits two GpMc chains). The heaviest, fitted in
#: the full suite only: rf-1 (six forests of 300 trees a fit), hgb-1 and catboost-1 (2.6
#: and 1.8 CPU s, the first fits of their libraries), whose search protocol (TunedMethod)
#: xgboost-1 and lightgbm-1 check here in the fast loop, and svm-class-1 (a 5-fold CV grid,
#: 2 CPU s; tests/methods/classify/test_classifiers.py fits it on Ripley's data, slow too)
SLOW_FITS = (
    "catboost-1",
    "gp-mc-1",
    "hgb-1",
    "lightgbm-1",
    "mars3.6-bag-1",
    "rf-1",
    "svm-1",
    "svm-class-1",
)


def _fitting(names: list[str]) -> list:
    """``names`` as the parameters of a check that fits each: SLOW_FITS marked slow."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_FITS else n for n in names]


def _budgeted(mode: str) -> list:
    """The built-in methods whose YAML gives a budget in ``mode``; the others, and the
    adapted estimators (``budget: {}``), run to completion and have no budget to obey."""
    ws = WorkspaceDirs(builtin_root())
    return _fitting(
        [n for n in method_names(ws) if method_spec(ws, n).make_budget(64, mode).total is not None]
    )


@pytest.fixture(scope="module")
def space(tmp_path_factory) -> WorkspaceDirs:
    """A workspace with the built-in methods and the adapted scikit-learn estimators."""
    root = tmp_path_factory.mktemp("contract")
    (root / "methods").mkdir()
    for name, text in ADAPTED.items():
        (root / "methods" / f"{name}.yaml").write_text(f"name: {name}\n{text}budget: {{}}\n")
    return WorkspaceDirs(root)


@pytest.fixture(scope="module")
def instances(space) -> dict[bool, EncodedInstance]:
    """The task instance each kind of method fits: keyed by ``is_classifier``."""
    return {
        False: load_instance(space, REGRESSION_TASK, 0),
        True: load_instance(space, CLASSIFICATION_TASK, 0),
    }


def _spec(space: WorkspaceDirs, name: str) -> MethodSpec:
    """The method's spec; the test is skipped where its plugin's package is not installed
    (e.g. an optional xgboost-1 without xgboost)."""
    spec = method_spec(space, name)
    package = spec.plugin.partition(":")[0].split(".")[0]
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{name}: its plugin's package {package!r} is not installed")
    method = spec.instantiate()
    for module in method.requires:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{name} needs {module!r}, which is not installed")
    return spec


@dataclass
class MeteredBudget(Budget):
    """A :class:`Budget` that records how the method consults it: which of its parts it
    read, and every ``(done, allowance)`` it reported through :meth:`used` (which
    ``exhausted`` and ``fraction`` call too). Copies (``map_work``) share the records."""

    reads: set = field(default_factory=set)
    reports: list = field(default_factory=list)

    def __getattribute__(self, name: str):
        if name in ("work", "cpu_seconds", "total") or name in _BUDGET_CALLS:
            object.__getattribute__(self, "reads").add(name)
        return object.__getattribute__(self, name)

    def used(self, done: int) -> float:
        self.reports.append((done, self.work))
        return super().used(done)


_BUDGET_CALLS = ("used", "exhausted", "fraction", "require_finite", "map_work", "used_cpu")


def _fit(spec: MethodSpec, enc: EncodedInstance, budget: Budget, seed: int = 0):
    """One fit and prediction through the harness' own step: (method, Fitted)."""
    method = spec.instantiate()
    ctx = FitContext(
        rng=np.random.default_rng(seed),
        budget=budget,
        kinds=enc.coding.kinds,
        classes=enc.coding.classes,
    )
    return method, fit_predict(method, enc, ctx)


def _tiny_work(spec: MethodSpec, n: int) -> MeteredBudget:
    """The method's work budget for n cases, cut to TINY_WORK units, TINY_SEARCH_WORK for a
    search (unlimited when its YAML has no work rule: such a method runs to completion)."""
    b = spec.make_budget(n, "work")
    tiny = TINY_SEARCH_WORK if isinstance(spec.instantiate(), TunedMethod) else TINY_WORK
    return MeteredBudget(mode="work", work=None if b.work is None else min(b.work, tiny))


def _arrays(pred: Prediction, y: np.ndarray) -> dict[str, np.ndarray]:
    """Every number a prediction gives for the test cases."""
    out: dict[str, np.ndarray] = {}
    for name in ("mean", "median"):
        if getattr(pred, name) is not None:
            out[name] = np.asarray(getattr(pred, name), dtype=float)
    if pred.density is not None:
        out["logpdf"] = np.asarray(pred.density.logpdf(y), dtype=float)
        out["variance"] = np.asarray(pred.density.variance(), dtype=float)
    if pred.categorical is not None:
        out["probs"] = np.asarray(pred.categorical.probs, dtype=float)
    for loss, cat in pred.by_loss.items():
        out[f"probs.{loss}"] = np.asarray(cat.probs, dtype=float)
    return out


def _to_json(x):
    if isinstance(x, np.ndarray | np.generic):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON-serialisable")


@dataclass(frozen=True)
class Runs:
    """Two fits of one method on its task, same seed, tiny work budget each."""

    spec: MethodSpec
    enc: EncodedInstance
    methods: tuple[Method, Method]
    fitted: tuple[Fitted, Fitted]
    budgets: tuple[MeteredBudget, MeteredBudget]
    #: what each fit read of its budget (taken before any check reads the budget itself)
    consulted: tuple[frozenset, frozenset]


@pytest.fixture(scope="module")
def runs(space, instances):
    """``runs(name)``: the method's two seeded fits, made once for all the checks."""
    done: dict[str, Runs] = {}

    def get(name: str) -> Runs:
        if name not in done:
            spec = _spec(space, name)
            enc = instances[spec.instantiate().is_classifier()]
            budgets = tuple(_tiny_work(spec, len(enc.y_train)) for _ in range(2))
            fits = [_fit(spec, enc, b) for b in budgets]
            done[name] = Runs(
                spec,
                enc,
                (fits[0][0], fits[1][0]),
                (fits[0][1], fits[1][1]),
                budgets,
                (frozenset(budgets[0].reads), frozenset(budgets[1].reads)),
            )
        return done[name]

    return get


@pytest.mark.parametrize("name", _fitting(NAMES))
def test_fits_predicts_and_serves_its_declared_losses(runs, name):
    r = runs(name)
    spec, enc, method, fitted = r.spec, r.enc, r.methods[0], r.fitted[0]
    assert isinstance(method, Method)
    assert set(method.losses) <= set(task_losses(method.is_classifier())), method.losses
    assert spec.losses_served() == tuple(method.losses)
    if enc.coding.categorical:
        _, table = class_tables(fitted.prediction, enc)
    else:
        dec = decode(fitted.prediction, enc, method)
        check(dec, len(enc.y_test))
        _, table = result_tables(enc, dec)
    assert all(len(column) == len(enc.y_test) for column in table.values())
    for loss in method.losses:
        values = np.asarray(table[loss], dtype=float)
        assert np.all(np.isfinite(values)), f"{name} does not serve its declared loss {loss}"

    # meta.json is written by json.dumps after numpy values become lists and numbers
    text = json.dumps(fitted.info, default=_to_json)
    assert isinstance(json.loads(text), dict)


@pytest.mark.parametrize("name", _fitting(NAMES))
def test_it_has_the_shape_of_every_family(runs, name):
    """Its YAML names the class by the class' own name, which carries no YAML version;
    ``fit`` and ``predict`` are annotated; what a fit sets is a fitted attribute ending in
    ``_`` (or private)."""
    r = runs(name)
    cls = type(r.methods[0])
    if name not in ADAPTED:
        assert r.spec.plugin.rpartition(":")[2] == cls.__name__, r.spec.plugin
        assert not cls.__name__[-1].isdigit(), cls.__name__
    assert set(inspect.get_annotations(cls.fit)) == {"X", "y", "ctx", "return"}
    assert set(inspect.get_annotations(cls.predict)) == {"X", "return"}
    made = set(vars(r.spec.instantiate()))
    assert [a for a in made if a.endswith("_") and not a.startswith("_")] == []
    fitted = set(vars(r.methods[0])) - made
    assert [a for a in fitted if not a.endswith("_") and not a.startswith("_")] == []


@pytest.mark.parametrize("name", _fitting(NAMES))
def test_the_same_seed_gives_the_same_predictions(runs, name):
    r = runs(name)
    first, second = (_arrays(f.prediction, r.enc.y_test_encoded) for f in r.fitted)
    assert first.keys() == second.keys() and first
    for key, values in first.items():
        np.testing.assert_array_equal(values, second[key], err_msg=f"{name}: {key}")
    # everything a method records is determined by the seed, except the CPU time it
    # measured of a stage (e.g. the ABF widths' width_cpu_seconds, a search's time)
    same = [
        json.dumps(
            {k: v for k, v in f.info.items() if not k.endswith("cpu_seconds")}, default=_to_json
        )
        for f in r.fitted
    ]
    assert same[0] == same[1]


@pytest.mark.parametrize("name", _budgeted("work"))
def test_a_tiny_work_budget_is_asked_and_obeyed(runs, name):
    r = runs(name)
    assert r.spec.make_budget(len(r.enc.y_train), "work").work is not None
    budget = r.budgets[0]
    assert r.consulted[0], f"{name} never consults its work budget"
    # once the method has reported the allowance spent it reports no further work
    spent = [done for done, work in budget.reports if work is not None and done >= work]
    if spent:
        assert max(done for done, _ in budget.reports) <= spent[0], budget.reports
    if isinstance(r.methods[0], TunedMethod):  # a search's unit is a configuration
        assert r.fitted[0].info["configurations"] == budget.work == TINY_SEARCH_WORK


@pytest.mark.parametrize("name", _budgeted("cpu"))
def test_a_tiny_cpu_budget_ends_the_fit(space, instances, name):
    spec = _spec(space, name)
    method = spec.instantiate()
    enc = instances[method.is_classifier()]
    allowance = spec.make_budget(len(enc.y_train), "cpu").cpu_seconds
    assert allowance is not None
    searching = isinstance(method, TunedMethod)
    if searching:
        method.load()  # importing its library is no part of the fit
    budget = Budget(mode="cpu", cpu_seconds=min(allowance, TINY_CPU))
    cpu0 = time.process_time()
    _, fitted = _fit(spec, enc, budget)
    spent = time.process_time() - cpu0  # CPU, not wall: a loaded machine's wait is not use
    if searching:  # configuration 0 always runs, and no other once the allowance is spent
        assert fitted.info["configurations"] == 1, fitted.info
        search = fitted.info["search_cpu_seconds"]
        assert spent <= SEARCH_FACTOR * search, f"{name} used {spent:.2f} s, its search {search}"
    else:
        assert spent <= budget.cpu_seconds + CPU_SLACK, f"{name} used {spent:.2f} s"


@pytest.mark.parametrize("name", NAMES)
def test_too_few_cases_is_one_clear_error_or_a_fit(space, instances, name):
    """One training case: either a finite prediction or a one-line ValueError (the harness
    records ``ValueError: <message>`` in meta.json; a ZeroDivisionError or a LinAlgError
    from deep inside would tell the user nothing)."""
    spec = _spec(space, name)
    enc = instances[spec.instantiate().is_classifier()]
    tiny = dataclasses.replace(
        enc,
        X_train=enc.X_train[:1],
        y_train=enc.y_train[:1],
        raw_train=enc.raw_train[:1],
        raw_y_train=enc.raw_y_train[:1],
    )
    cpu = spec.make_budget(1, "cpu").cpu_seconds
    budget = _tiny_work(spec, 1) if cpu is None else Budget(mode="cpu", cpu_seconds=TINY_CPU)
    try:
        _, fitted = _fit(spec, tiny, budget)
    except ValueError as e:
        message = str(e)
        assert message and "\n" not in message, message
        return
    values = _arrays(fitted.prediction, enc.y_test_encoded)
    assert values and all(np.all(np.isfinite(v)) for v in values.values()), values


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_parameter_is_one_error_naming_the_method(space, tmp_path, name):
    spec = _spec(space, name)
    doc = yaml.safe_load(open(spec.source)) if spec.source.endswith(".yaml") else None
    if doc is None:
        pytest.skip(f"{name} is an entry point, not a YAML")
    doc["params"] = dict(doc.get("params") or {}, colour="red")
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / f"{name}.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(DelveError) as e:
        checked_method(WorkspaceDirs(tmp_path), name)
    message = str(e.value)
    assert name in message and "\n" not in message, message


def test_the_meter_tells_a_method_that_ignores_its_budget_from_one_that_obeys(instances):
    """The budget check can fail: lin-1's plugin under a work rule never asks the budget;
    abf-1's asks it once per CG iteration and stops when it is spent."""
    enc = instances[False]
    ignores = MeteredBudget(mode="work", work=TINY_WORK)
    _fit(MethodSpec("lin-x", "delve_bench.methods.lin:Lin"), enc, ignores)
    assert not ignores.reads and not ignores.reports
    obeys = MeteredBudget(mode="work", work=TINY_WORK)
    _fit(MethodSpec("abf-x", "delve_bench.methods.basis.plugins.abf:Abf"), enc, obeys)
    assert obeys.reads and max(done for done, _ in obeys.reports) == TINY_WORK
