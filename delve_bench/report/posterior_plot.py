"""The posterior density of the expected difference A - B (thesis Fig. 2.3): the curve,
the mass on the side of 0 opposite to the observed difference hatched, and the
probability of each sign. Units: the standardised loss of ``delve compare``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ..losses import LOSS_NAMES
from ..stats.bayes import Posterior
from .figures import save_figure


def draw_posterior(post: Posterior, scale: float, title: str, loss: str) -> Figure:
    mu = np.array(post.mu) / scale
    dens = np.array(post.density) * scale
    fig = Figure(figsize=(5.0, 3.2))
    ax = fig.subplots()
    ax.plot(mu, dens, color="k", linewidth=1.0)
    side = mu > 0 if post.mean < 0 else mu < 0
    ax.fill_between(
        mu, 0, dens, where=side, facecolor="none", edgecolor="#c00000", hatch="////", linewidth=0
    )
    ax.axvline(0.0, color="#555555", linewidth=0.7, linestyle=":")
    ax.set_xlim(mu[0], mu[-1])
    ax.set_ylim(0, dens.max() * 1.08)
    unit = "nats" if loss == "L" else "standardised"
    ax.set_xlabel(f"expected difference A - B, {LOSS_NAMES[loss].lower()} ({unit})")
    ax.set_ylabel("posterior density")
    ax.text(
        0.02,
        0.97,
        f"P(A - B < 0) = {post.prob_negative:.3g}\nP(A - B > 0) = {post.prob_positive:.3g}",
        transform=ax.transAxes,
        va="top",
        fontsize=7,
    )
    ax.set_title(title, fontsize=8)
    fig.tight_layout()
    return fig


def write_posterior_plot(
    post: Posterior, scale: float, title: str, loss: str, stem: Path
) -> list[Path]:
    """``<stem>.png`` and ``<stem>.svg``."""
    return save_figure(lambda: draw_posterior(post, scale, title, loss), stem)
