"""The linear family of Rasmussen (1996) §3.3: lin-1, least squares with SVD
regularisation and a Gaussian predictive distribution (:mod:`.least_squares`).

``Lin1`` is the name method YAMLs written before the family became a package use.
"""

from .least_squares import Lin

Lin1 = Lin  # the plugin path delve_bench.methods.lin:Lin1 of older method YAMLs

__all__ = ["Lin", "Lin1"]
