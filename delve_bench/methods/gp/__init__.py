"""Gaussian-process regression as in Rasmussen (1996) Ch. 4: gp-map-1 (MAP
hyperparameters by conjugate gradients) and gp-mc-1 (hyperparameters integrated by hybrid
Monte Carlo). See :mod:`.model` for the covariance, priors and objective."""

from .map import GpMap
from .mc import GpMc
from .model import GPObjective, Hyper, Posterior, initial_theta, neg_log_prior

__all__ = ["GpMap", "GpMc", "GPObjective", "Hyper", "Posterior", "initial_theta", "neg_log_prior"]
