"""Method plugins (``fit(X, y, ctx)`` / ``predict(X) -> Prediction``) and their registry."""

from .base import Budget, FitContext, Gaussian, GaussianMixture, Method, Prediction
from .registry import MethodSpec, method_names, method_spec

__all__ = [
    "Budget",
    "FitContext",
    "Gaussian",
    "GaussianMixture",
    "Method",
    "MethodSpec",
    "Prediction",
    "method_names",
    "method_spec",
]
