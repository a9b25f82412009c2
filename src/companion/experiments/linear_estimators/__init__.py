"""Grokking in linear estimators (Levi, Beck & Bar Sinai, ICLR 2024): every figure, theory
against exact simulation.

* :mod:`.configs`: the settings of every figure and the profiles;
* :mod:`.teacher_student`: Figs. 1–3, 5–7 and the Eq. 11 check, on the Gaussian teacher–student
  model (exact GD in the eigenbasis, :class:`companion.theory.linear_estimators.LinearGD`);
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
EXPERIMENTS = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "fig6": fig6, "fig7": fig7, "fig8": fig8,
               "fig1_seeds": fig1_seeds, "fig2_markers": fig2_markers, "init_rescaling": init_rescaling,
               "fig8_below": fig8_below}


def run_all(profile: str, device: str, seed: int = 0) -> None:
    """Compute every experiment the chapter shows (fills the cache)."""
    for name, run in EXPERIMENTS.items():
        run(config(name, profile, seed), device)


#: the claims this reproduction does not confirm, and why (the chapter states the numbers)
KNOWN_DEVIATIONS = {
    "fig1_loss_lam0.9": "at d_in = 1000 the mean of the draws falls below Eq. 8 late in training (table above): the "
                        "late loss is carried by the smallest eigenvalues of Σ_tr near the MP edge, which fluctuate at "
                        "finite d_in; the MP law is the d_in → ∞ limit",
    "fig1_acc_lam0.9": "the same finite-size gap seen in the accuracies: the late loss falls below Eq. 8, so the "
                       "simulated accuracies rise earlier than Eq. 9's (table above)",
    "fig3_plateaus_test": "at λ = 0.9 the late test loss is carried by the eigenvalues of Σ_tr near the MP edge, "
                          "which scatter from draw to draw at d_in = 1000 (numbers in the claims table)",
    "fig4_eq18_small": "at d_h = 50 = 10·d_out the draws cross later than the corrected Eq. 18 (per-draw values "
                       "in the claims table): the kernel h is ½ only for d_h ≫ d_out, and a draw's initial loss "
                       "scatters from draw to draw (table above)",
    "fig1_dt_lam0.9": "undecided at this profile's draws: the 95% interval of the median reaches across the ±15% "
                      "bound (interval, and the draws that would decide it, in the paragraph above); the median "
                      "sits below 1 by the finite-size gap of fig1_loss_lam0.9",
    "fig1_dt_lam0.95": "undecided at this profile's draws, as at λ = 0.9 (interval and draws needed above); the "
                       "median sits further below 1, nearer the MP edge",
}
#: profiles at which each known deviation is declared (not at smoke, which only exercises code paths)
DEVIATION_PROFILES = ({k: ("cpu", "paper") for k in KNOWN_DEVIATIONS}
                      | {k: ("cpu",) for k in ("fig3_plateaus_test", "fig1_dt_lam0.9", "fig1_dt_lam0.95")})


def known_deviation(claim: str, profile: str) -> str | None:
    """Why ``claim`` is not expected to hold at ``profile`` (None: it is expected to hold)."""
    return KNOWN_DEVIATIONS[claim] if profile in DEVIATION_PROFILES.get(claim, ()) else None
