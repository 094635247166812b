"""Statistics that say what to do next, against the references a user would otherwise pick,
side by side in one run:

* power of the hierarchical t-test against statsmodels' ``TTestPower`` (one-sample t on the
  instance means; the same noncentral t), and the number of instances for 80 % power
  against ``TTestPower.solve_power``;
* power of the 2-way quasi-F (simulation of the four sufficient statistics) against a
  brute-force simulation of whole loss matrices analysed by the ANOVA;
* the Friedman statistic against ``scipy.stats.friedmanchisquare`` (which corrects for
  ties, so it differs on Demšar's tied ranks), and the selftest's run time.

    python benchmarks/stats.py

Prints CPU seconds (process time) and the ratio reference / delve-bench.
"""

from __future__ import annotations

import time

import numpy as np
from scipy import stats as sps
from statsmodels.stats.power import TTestPower

from delve_bench.stats.power import (
    VarianceComponents,
    power,
    required_instances,
    simulated_power,
)
from delve_bench.stats.ranking import DEMSAR_RANKS, block_ranks, friedman
from delve_bench.stats.selftest import selftest

DEMSAR = np.array(DEMSAR_RANKS)


def cpu(f, repeat=1):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.process_time()
        out = f()
        best = min(best, time.process_time() - t)
    return best, out


def main() -> None:
    print("Hierarchical t-test power (sigma_a = 0.02, sigma_e = 0.3, J = 512, alpha = 0.05)")
    print(
        f"{'I':>3} {'delta':>7} {'ours':>8} {'statsmodels':>12} {'|diff|':>9} {'ms ours':>8} {'ms sm':>7}"
    )
    vc = VarianceComponents(design="hierarchical", var_a=0.02**2, var_e=0.3**2)
    tp = TTestPower()
    for I, d in ((4, 0.03), (8, 0.02), (16, 0.01), (32, 0.01)):
        es = d / np.sqrt(vc.var_a + vc.var_e / 512)  # Cohen's d of the instance means
        t_o, p_o = cpu(lambda I=I, d=d: power(vc, d, I, 512), repeat=20)
        t_s, p_s = cpu(lambda I=I, es=es: tp.power(es, I, 0.05, alternative="two-sided"), repeat=20)
        print(
            f"{I:>3} {d:>7.3f} {p_o:>8.5f} {p_s:>12.5f} {abs(p_o - p_s):>9.1e} "
            f"{t_o * 1e3:>8.2f} {t_s * 1e3:>7.2f}"
        )
    d = 0.01
    es = d / np.sqrt(vc.var_a + vc.var_e / 512)
    t_o, need = cpu(lambda: required_instances(vc, d, 512, 64, 8192), repeat=5)
    t_s, n_s = cpu(lambda: tp.solve_power(es, None, 0.05, 0.8, alternative="two-sided"), repeat=5)
    print(
        f"instances for 80 % at delta = {d}: ours {need.instances} "
        f"(power {need.power:.4f}), statsmodels {n_s:.2f} -> {int(np.ceil(n_s))}; "
        f"{t_o * 1e3:.1f} ms vs {t_s * 1e3:.1f} ms"
    )

    print("\n2-way quasi-F power: simulated sufficient statistics (20000) vs whole matrices")
    print(
        f"{'I':>3} {'J':>4} {'ours':>7} {'matrices':>9} {'s ours':>7} {'s matrices':>11} {'ratio':>6}"
    )
    vc2 = VarianceComponents(design="2-way", var_a=0.3**2, var_e=1.0, var_b=0.5**2)
    for I, J, d in ((4, 100, 0.35), (8, 250, 0.3), (16, 250, 0.2)):
        t_o, p_o = cpu(lambda I=I, J=J, d=d: power(vc2, d, I, J))
        t_m, p_m = cpu(
            lambda I=I, J=J, d=d: simulated_power(
                vc2, d, I, J, studies=20000, rng=np.random.default_rng(1)
            )
        )
        print(f"{I:>3} {J:>4} {p_o:>7.4f} {p_m:>9.4f} {t_o:>7.3f} {t_m:>11.3f} {t_m / t_o:>6.0f}")

    print("\nFriedman test on Demšar (2006) Table 6 (4 methods, 14 data sets, tied ranks)")
    R = block_ranks(DEMSAR).mean(0)
    t_o, f = cpu(lambda: friedman(["a", "b", "c", "d"], R, 14), repeat=50)
    t_s, ref = cpu(lambda: sps.friedmanchisquare(*DEMSAR.T), repeat=50)
    print(
        f"ours chi2 = {f.chi2:.3f} (Demšar's formula, published 9.28), CD = {f.cd:.3f} "
        f"(published 1.25); scipy chi2 = {ref.statistic:.3f} (tie-corrected); "
        f"{t_o * 1e3:.2f} ms vs {t_s * 1e3:.2f} ms"
    )

    t, res = cpu(lambda: selftest(quick=True))
    print(f"\ndelve selftest --quick numerics: {t:.2f} CPU s (passed: {res.passed})")


if __name__ == "__main__":
    main()
