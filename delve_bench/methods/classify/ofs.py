"""ofs-loomi-1, its variant and ablations: Hong, Chen et al.'s (2014) RBF classifier grown by
orthogonal forward selection to maximise the leave-one-out mutual information.

Two classes, labels y = +1 (the target's second listed value) and -1. Model (their eq. 1):
``f(x) = sum_i theta_i exp(-||x - c_i||^2 / tau)``, no bias, centres chosen among the
training inputs (all N are candidates), class ``sgn f`` with sgn(0) = -1. The selection
runs on the project's one orthogonal forward-selection engine
(:class:`delve_bench.methods.basis.orthogonal.OrthogonalSelection`), exactly as their
Section 5 algorithm states:

1. the first centre minimises the closed-form LOO mean squared error at lambda = 1e-6
   (one Gaussian term predicts one class everywhere, so LOOMI cannot choose it);
2. every later stage scores all remaining candidates, each with lambda = 1e-6, by the
   LOOMI of the model with it added, from the O(N) recursions (30)-(33) for the LOO
   signed margins, and takes the best (ties: smaller LOO MSE, then lower index);
3. the chosen term's lambda is re-estimated by 10 iterations of the Bayesian evidence
   update (45), (47) from 1e-6, reset to 1e-6 if it diverges or ends above 1e6; its
   orthogonal weight, the residual and the LOO quantities are updated with that lambda,
   and the remaining candidates are orthogonalised against it (modified Gram-Schmidt);
4. termination (51): keep the first model size M >= M_min whose LOOMI is not exceeded by
   any of the next ``p_look`` stages; the look-ahead terms are discarded (they do not
   change the kept terms, the basis being orthogonal). The paper gives neither value;
   ofs-loomi-1 takes ``p_look = 1`` and ``M_min = 2``, the reading whose model sizes match
   its Tables 2-7 (docs/methods/classification.md; ``benchmarks/ofs_termination.py``);
5. ``theta = A^-1 g`` by back-substitution.

Each stage costs O(N) per candidate, O(N^2) in all (their Section 5).

**Width.** ``tau = s * median_{i<j} ||x_i - x_j||^2`` of the training inputs, s in
{1/16, 1/8, 1/4, 1/2, 1, 2, 4}, the s with the highest final LOOMI (ties: the smaller model,
then the smaller s). With ``width_from="first"`` (ofs-loomi-1, the paper's Section 6.2
protocol) the grid is searched once, on the training set of the task's first instance
(``FitContext.first_training``; never test data), and that tau is used on every
instance; with ``width_from="own"`` (ofs-loomi-own-1) on each instance's own training set,
the alternative of the paper's footnote 1. Outside the runner (no ``first_training``) the
method's own training set stands in for the first instance's. Mutual information is
symmetric: LOO labels that are systematically *wrong* score as high as right ones. That
happens at widths so narrow that most training cases are fitted by almost nothing, where
leaving a case out pushes its output to the other side (``f_-k(x_k) = (f_k - y_k (1 -
eta_k)) / eta_k``); so a width is only eligible when the final model's LOO labels agree
with the labels more often than chance (odds ratio of the 2 x 2 table above 1), unless no
width is.

**Inputs.** DELVE's coding by default; ``inputs="raw"`` gives the method the data set's
own units, as the paper used them (Rätsch's standardised files, Ripley's units).

**Probabilities (an addition).** The paper's classifier gives labels only. For the Q and
L losses, ``P(+1 | x) = 1 / (1 + exp(A f(x)))`` with A fitted by Platt's method to the
model's own closed-form leave-one-out outputs (``y_k - e_k / eta_k``), the intercept fixed
at 0 so that the most probable class is always ``sgn f`` (Z is the paper's classifier);
where rounding leaves P(+1 | x) at exactly 1/2 (tiny f, e.g. a narrow kernel far from every
centre), it is moved by one unit in the last place to the side of sgn f, sgn(0) = -1.

Variant and ablations, identical otherwise: ``ofs-loomi-own-1`` chooses the width per
training set; ``ofs-loomi-fixed-1`` keeps lambda = 1e-6 for every term (no Bayesian step);
``ofs-loomr-1`` uses the LOO misclassification rate instead of LOOMI for selection
(minimised), termination and the width (Hong, Chen & Harris 2008).
"""

from __future__ import annotations

import numpy as np

from ...numerics.distance import sq_distances
from ..base import Classifier, FitContext, Prediction
from ..basis.criteria import ETA_MIN
from ..basis.design import rbf_design
from ..basis.orthogonal import OrthogonalSelection, run_selection
from ..basis.stopping import OrrStop
from .platt import fit_platt

SCALES = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0)


def median_sq_distance(X: np.ndarray) -> float:
    """``median_{i<j} ||x_i - x_j||^2`` (1 when every pair coincides)."""
    D = sq_distances(X, X)
    med = float(np.median(D[np.triu_indices(len(X), 1)])) if len(X) > 1 else 0.0
    return med if med > 0 else 1.0


class OfsSelection:
    """One OFS run at one width: the engine, the kept size and its criterion value."""

    def __init__(
        self,
        Phi: np.ndarray,
        y: np.ndarray,
        criterion: str,
        lam_update: str,
        lam_init: float,
        n_bayes: int,
        lam_max: float,
        p_look: int,
        m_min: int,
        max_terms: int,
    ):
        self.sel = OrthogonalSelection(
            Phi,
            y,
            lam=lam_init,
            score=criterion,
            criterion=criterion,
            lam_update=lam_update,
            n_bayes=n_bayes,
            lam_max=lam_max,
            lam_reset=lam_init,
        )
        self.stopper = OrrStop(wait=p_look, thresh=np.inf, min_size=m_min)
        run_selection(self.sel, self.stopper, max_terms)
        self.m = self.stopper.best_m or self.sel.m  # fewer candidates than M_min: all of them
        # the criterion as a number to maximise: LOOMI, or minus the LOO error rate
        value = self.stopper.best if self.stopper.best_m else self.sel.value()
        self.score = -value
        # whether the LOO predictions agree with the labels more often than chance: the
        # odds ratio of the 2 x 2 table of (y, LOO label) is above 1
        y, right = self.sel.y > 0, self.loo_outputs * self.sel.y > 0
        n_pp, n_mm = np.sum(y & right), np.sum(~y & right)
        n_pm, n_mp = np.sum(y & ~right), np.sum(~y & ~right)
        self.agrees = bool(n_pp * n_mm > n_pm * n_mp)

    @property
    def loo_outputs(self) -> np.ndarray:
        """Closed-form LOO outputs ``y - e / eta`` of the kept model (eq. 27)."""
        e, eta = self.sel.residuals(self.m)
        return self.sel.y - e / np.maximum(eta, ETA_MIN)


class OfsLoomi(Classifier):
    """ofs-loomi-1 and its variants and ablations (see the module docstring).

    Parameters
    ----------
    criterion : ``"loomi"`` or ``"loomr"``
    lam_update : ``"evidence"`` (per-stage Bayesian lambda) or ``"fixed"`` (lam_init)
    lam_init, n_bayes, lam_max : 1e-6, 10, 1e6 as in the paper
    p_look, m_min : termination look-ahead and minimum size
    scales : the width grid, multiples of the median squared pairwise distance
    width_from : ``"first"`` (the paper's protocol: tau chosen once, on the training set
        of the task's first instance, and used for every instance) or ``"own"`` (tau
        chosen on each instance's own training set)
    inputs : ``"encoded"`` (DELVE's default coding) or ``"raw"`` (the data set's own
        units, as the paper used them; real and binary inputs only)
    max_terms : cap on the stages of one run (default N - 1)

    Attributes
    ----------
    X_ : ndarray of shape (k, m)
        The selected centres.
    tau_ : float
        The chosen kernel width ``s * median``.
    theta_ : ndarray of shape (k,)
        The centres' weights.
    platt_ : Platt
        The sigmoid (without intercept) from LOO outputs to probabilities.
    """

    max_classes = 2

    def __init__(
        self,
        criterion: str = "loomi",
        lam_update: str = "evidence",
        lam_init: float = 1e-6,
        n_bayes: int = 10,
        lam_max: float = 1e6,
        p_look: int = 3,
        m_min: int = 2,
        scales: tuple[float, ...] = SCALES,
        width_from: str = "first",
        inputs: str = "encoded",
        max_terms: int | None = None,
    ):
        if criterion not in ("loomi", "loomr"):
            raise ValueError(f"criterion must be loomi or loomr, not {criterion!r}")
        if width_from not in ("first", "own"):
            raise ValueError(f"width_from must be first or own, not {width_from!r}")
        if inputs not in ("encoded", "raw"):
            raise ValueError(f"inputs must be encoded or raw, not {inputs!r}")
        if p_look < 1 or m_min < 1:
            raise ValueError(f"p_look and m_min must be at least 1, not {p_look} and {m_min}")
        self.criterion, self.lam_update = criterion, lam_update
        self.lam_init, self.n_bayes, self.lam_max = lam_init, n_bayes, lam_max
        self.p_look, self.m_min = p_look, m_min
        self.scales, self.max_terms = tuple(scales), max_terms
        self.width_from, self.inputs = width_from, inputs
        self.wants_raw = inputs == "raw"  # the runner then passes the data set's own units

    def _select(self, D: np.ndarray, yb: np.ndarray, tau: float) -> OfsSelection:
        """One OFS run on squared distances ``D`` (N, N) at width ``tau``."""
        N = len(yb)
        return OfsSelection(
            Phi=np.exp(-D / tau),
            y=yb,
            criterion=self.criterion,
            lam_update=self.lam_update,
            lam_init=self.lam_init,
            n_bayes=self.n_bayes,
            lam_max=self.lam_max,
            p_look=self.p_look,
            m_min=self.m_min,
            max_terms=min(self.max_terms or N - 1, N - 1) if N > 1 else 1,
        )

    def _width_search(
        self, X: np.ndarray, yb: np.ndarray, ctx: FitContext
    ) -> tuple[OfsSelection, float, float, dict]:
        """(best run, its scale s, the median squared distance, the criterion per width)
        over the grid on training inputs ``X`` (n, m), labels ``yb`` (n,) in {-1, +1}."""
        med = median_sq_distance(X)
        D = sq_distances(X, X)
        best: tuple[OfsSelection, float] | None = None
        curve = {}
        for i, s in enumerate(self.scales):
            if i and ctx.budget.exhausted(i):
                break
            run = self._select(D, yb, s * med)
            curve[f"{s:g}"] = {"criterion": run.score, "size": run.m, "agrees": run.agrees}
            key = (run.agrees, run.score, -run.m)
            if best is None or key > (best[0].agrees, best[0].score, -best[0].m):
                best = (run, s)
        if best is None:
            raise ValueError("no width scales to choose from")
        return best[0], best[1], med, curve

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        self._classes(y, ctx)
        if self.inputs == "raw" and (len(ctx.kinds) not in (0, X.shape[1]) or np.isnan(X).any()):
            raise ValueError("inputs: raw needs real or binary inputs without missing values")
        yb = np.where(np.asarray(y) == 1, 1.0, -1.0)
        X0, y0 = X, y
        if self.width_from == "first" and ctx.first_training is not None:
            X0, y0 = ctx.first_training()
        own = X0 is X or (X0.shape == X.shape and np.array_equal(X0, X) and np.array_equal(y0, y))
        run, s, med, curve = self._width_search(X0, np.where(np.asarray(y0) == 1, 1.0, -1.0), ctx)
        tau = s * med
        if not own:  # the width of the first instance, the selection on this one
            run = self._select(sq_distances(X, X), yb, tau)
        sel, m = run.sel, run.m
        self.X_, self.tau_ = X[sel.sel[:m]], tau
        self.theta_ = sel.weights(m)
        self.loo_outputs_ = run.loo_outputs  # (n,) kept for Platt and for inspection
        self.platt_ = fit_platt(self.loo_outputs_, yb, intercept=False)
        if self.platt_.A >= 0:  # LOO outputs carry no sign information: keep sgn f, p ~ 1/2
            self.platt_ = type(self.platt_)(-1e-12, 0.0)
        lam = np.array(sel.lam_t[:m])
        value = run.score if self.criterion == "loomi" else -run.score
        ctx.info.update(
            model_size=m,
            tau=self.tau_,
            scale=s,
            median_sq_distance=med,
            width_from="this training set" if own else "first instance",
            **{self.criterion: value},
            stages=sel.m,
            lambdas=lam,
            lambda_resets=sel.resets,
            lambda_resets_kept=int(np.sum(np.asarray(sel.reset_at) < m)),
            platt_A=self.platt_.A,
            width_curve=curve,
        )

    def decision(self, X: np.ndarray) -> np.ndarray:
        """``f(x) = sum_i theta_i exp(-||x - c_i||^2 / tau)``."""
        return rbf_design(X, self.X_, np.sqrt(self.tau_)) @ self.theta_

    def predict(self, X: np.ndarray) -> Prediction:
        f = self.decision(X)
        p1 = self.platt_.prob_positive(f)
        # keep the classifier's decision sgn f (sgn(0) = -1) where rounding made p1 = 1/2:
        # a tiny f (a narrow kernel far from every centre) must not become a tie
        half = p1 == 0.5
        p1[half & (f > 0)] = np.nextafter(0.5, 1.0)
        p1[half & (f <= 0)] = np.nextafter(0.5, 0.0)
        return Prediction.of_probs(np.column_stack([1.0 - p1, p1]))
