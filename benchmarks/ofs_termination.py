"""ofs-loomi-1's look-ahead p and minimum model size M_min (issue #32): mean test error (%)
and model size over the realisations, for each (p, M_min), with the width chosen once on
realisation 1 (the paper's protocol, ofs-loomi-1) and per realisation (ofs-loomi-own-1);
then, as a bound and not a method, the error of the best single width chosen on the test
sets.

The paper gives neither p nor M_min. Its model sizes (Tables 2-7: 3.3-4.9 centres on the
six noisy sets; Tables 8-9: 40.2 +- 0.6 on banana, 50.1 +- 0.3 on waveform) are the
evidence for both. Every (p, M_min) is read off one selection path per realisation and
width (``_ofs.py``); the width protocol carries the scale s over (ofs-loomi-1 carries tau,
which differs by the few per cent the median distances differ).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/ofs_termination.py [--sets ...]
        [--inputs encoded] [--realisations 10]
"""

from __future__ import annotations

import argparse

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np
from _ofs import INPUTS, kept_size, protocol_result, set_paths
from classification import PUBLISHED, SETS
from threadpoolctl import threadpool_limits

from delve_bench.workspace import WorkspaceDirs

LOOKS = (1, 2, 3, 5)
M_MINS = (2, 10, 40, 50)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--inputs", default="encoded", choices=INPUTS)
    ap.add_argument("--realisations", type=int, default=10)
    a = ap.parse_args()
    ws = WorkspaceDirs.from_env()
    oracle = {}
    for name in a.sets.split(","):
        with threadpool_limits(1):
            paths = set_paths(ws, name, a.inputs, max(M_MINS) + max(LOOKS), a.realisations)
        e, _, m, _ = PUBLISHED[name][
            "OFS-LOOMI" if name != "ripley" else next(iter(PUBLISHED[name]))
        ]
        print(f"\n### {name}: published {e} % with {m} centres ({a.inputs} inputs)\n")
        print("| width | " + " | ".join(f"M_min {mm}" for mm in M_MINS) + " |")
        print("|---|" + "---|" * len(M_MINS))
        for width_from in ("first", "own"):
            for p in LOOKS:
                cells = []
                for mm in M_MINS:
                    r = protocol_result(paths, p, mm, width_from)
                    cells.append(f"{r['err']:.1f} ({r['size']:.1f}; r {r['resets']:.1f})")
                print(f"| {width_from}, p = {p} | " + " | ".join(cells) + " |")
        oracle[name] = {
            (s, p, mm): np.mean([per[s].test_err[kept_size(per[s].J, p, mm) - 1] for per in paths])
            for s in paths[0]
            for p in LOOKS
            for mm in M_MINS
        }
    print("\ncells: mean test error % (mean model size; mean lambda resets among the kept terms)")
    print("\n### the best single width, chosen on the TEST sets (a bound, not a method)\n")
    print("| data set | published | best (s, p, M_min) | its error % | with M_min 2: best |")
    print("|---|---:|---|---:|---:|")
    for name, tab in oracle.items():
        pub = next(iter(PUBLISHED[name].values()))[0]
        k = min(tab, key=tab.get)
        k2 = min((x for x in tab if x[2] == 2), key=tab.get)
        print(
            f"| {name} | {pub} | s {k[0]:g}, p {k[1]}, M_min {k[2]} | {tab[k]:.1f} "
            f"| {tab[k2]:.1f} (s {k2[0]:g}, p {k2[1]}) |"
        )


if __name__ == "__main__":
    main()
