"""Numerical building blocks shared by the method families: the thesis' conjugate-gradient
minimiser (:mod:`.cg`), hybrid Monte Carlo (:mod:`.hmc`), Gaussian-mixture predictive
distributions (:mod:`.mixture`) and squared distances (:mod:`.distance`).

This package is a leaf: it imports nothing else from delve_bench, so every method family
can use it without import cycles.
"""
