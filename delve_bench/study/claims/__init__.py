"""The published claims a study checks, each with a rule that reads the committed results
and gives a verdict: Rasmussen (1996) chapters 5-6 (:mod:`.thesis`) and Barrio, Romero &
Belanche (2009) §7-8, part 1 (:mod:`.barrio`) and part 2, the Hwang tasks
(:mod:`.barrio_hwang`); what a claim is and how it is evaluated:
:mod:`.base`."""

from __future__ import annotations

from . import barrio, barrio_hwang, thesis
from .base import AGREES, DISAGREES, PARTLY, Claim, Evaluated, Finding, NotEnough, evaluate

CLAIMS = {"thesis": thesis.CLAIMS, "barrio": barrio.CLAIMS, "barrio-hwang": barrio_hwang.CLAIMS}

__all__ = [
    "AGREES",
    "CLAIMS",
    "DISAGREES",
    "PARTLY",
    "Claim",
    "Evaluated",
    "Finding",
    "NotEnough",
    "evaluate",
]
