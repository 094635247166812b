"""MARS 3.6 (Friedman 1991, 1993) as Friedman's Fortran computes it: mars3.6-1 and the
bagged mars3.6-bag-1 of Rasmussen (1996). See docs/methods/mars.md."""

from .basis import BasisFunction, MarsSettings
from .model import MarsFit, fit_mars

__all__ = ["BasisFunction", "MarsFit", "MarsSettings", "fit_mars"]
