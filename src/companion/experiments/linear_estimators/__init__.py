"""Grokking in linear estimators (Levi, Beck & Bar Sinai, ICLR 2024): every figure, theory
against exact simulation.

* :mod:`.configs`: the settings of every figure and the profiles;
* :mod:`.teacher_student`: Figs. 1–3, 5–7 and the Eq. 11 check, on the Gaussian teacher–student
  model (exact GD in the eigenbasis, :class:`companion.theory.linear_estimators.LinearGD`; many runs
  from their spectra alone, :class:`companion.theory.spectral_gd.SpectralGD`);
* :mod:`.networks`: Fig. 4 (two-layer student) and Fig. 8 (Gromov's quadratic MLP on modular
  addition), trained by :func:`companion.train.fit`;
* :mod:`.summaries`: the numbers the chapter reports and checks, one summary per figure.
"""

from __future__ import annotations

from companion.experiments.linear_estimators import summaries, summaries_late  # noqa: F401  (the chapter's summaries)
from companion.experiments.linear_estimators.configs import (  # noqa: F401  (the package's public names)
    FIGURES,
    PAPER,
    PROFILES,
    ExpectedLossesConfig,
    Fig1Config,
    Fig1SeedsConfig,
    Fig2Config,
    Fig2MarkersConfig,
    Fig3Config,
    Fig4Config,
    Fig6Config,
    Fig7Config,
    Fig8Config,
    InitScaleConfig,
    config,
    departures_table,
)
from companion.experiments.linear_estimators.networks import fig4, fig8, fig8_below, fit_divergence  # noqa: F401
from companion.experiments.linear_estimators.teacher_student import (  # noqa: F401
    eq11_ratios,
    expected_losses,
    fig1,
    fig1_seeds,
    fig2,
    fig2_markers,
    fig3,
    fig5,
    fig6,
    fig7,
    init_rescaling,
    theory_checks,
)

TITLE = "Grokking in linear estimators"
PAPER_ITEMS = tuple(f"Fig. {i}" for i in range(1, 9))
#: every figure's config by profile (the rows of :data:`PROFILES`, by figure)
CONFIGS = {f: {p: PROFILES[p][f] for p in PROFILES} for f in FIGURES}
RUNNERS = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "fig6": fig6, "fig7": fig7, "fig8": fig8,
           "fig1_seeds": fig1_seeds, "fig2_markers": fig2_markers, "init_rescaling": init_rescaling,
           "fig8_below": fig8_below, "expected_losses": expected_losses}


def run(name: str, profile: str, device: str = "cpu", seed: int = 0):
    """The cached result of one figure's experiment (:func:`config` gives its settings)."""
    return RUNNERS[name](config(name, profile, seed), device)


def run_all(profile: str, device: str = "cpu", seed: int = 0) -> None:
    """Compute every experiment the chapter shows (fills the cache)."""
    for name in CONFIGS:
        run(name, profile, device, seed)
