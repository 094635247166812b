"""The DELVE plugins of the basis-function family (``methods/*.yaml`` name them), one
module per method or close family, each on the numerics of :mod:`delve_bench.methods.basis`:

* :mod:`.base`: the shared plumbing (Barrio et al.'s scaling, the ABF width stage of
  :mod:`..widths`, linear and Bayesian prediction on the chosen centres, Orr's
  radius-scale grid);
* :mod:`.abf`: abf-1; :mod:`.rvm`: rvm-1 and rvm-mdl-1; :mod:`.ssge`: the ssge-* family;
* :mod:`.ols`: ols-cv-1 (Barrio et al.'s OLS); :mod:`.orr`: Orr's ols-gcv-1, rols-1,
  ofr-loo-1, ridge-1 and local-ridge-1; :mod:`.lrols`: lrols-loo-1; :mod:`.svm`: svm-1.

The names are importable from here too: method YAMLs written before the split name
``delve_bench.methods.basis.plugins:<Class>``.
"""

from .abf import Abf
from .lrols import LrolsLoo
from .ols import OlsCv
from .orr import LocalRidgeMethod, OrrForward, OrrRidge
from .rvm import Rvm, RvmMdl
from .ssge import Ssge
from .svm import Svm

__all__ = [
    "Abf",
    "LocalRidgeMethod",
    "LrolsLoo",
    "OlsCv",
    "OrrForward",
    "OrrRidge",
    "Rvm",
    "RvmMdl",
    "Ssge",
    "Svm",
]
