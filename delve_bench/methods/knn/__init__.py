"""The nearest-neighbour family of Rasmussen (1996) §3.4: the tie-adjusted neighbour
statistics (:mod:`.neighbours`, shared with knn-class-cv-1) and knn-cv-1 (:mod:`.cv`).

``KnnCv1`` is the name method YAMLs written before the family became a package use.
"""

from .cv import KnnCv, loo_losses
from .neighbours import Neighbours, TieStats, prefix_medians, tie_bounds

KnnCv1 = KnnCv  # the plugin path delve_bench.methods.knn:KnnCv1 of older method YAMLs

__all__ = [
    "KnnCv",
    "KnnCv1",
    "Neighbours",
    "TieStats",
    "loo_losses",
    "prefix_medians",
    "tie_bounds",
]
