"""Gu et al.'s theory, numerically: the coverage bound of Thm 3.12 with a Monte-Carlo check, and
the ODE of App. C (Fig. 8). The ODE is integrated, not trained: it is no gradient-step training
of a network, so it does not go through :func:`companion.train.fit.fit`."""

from __future__ import annotations

from dataclasses import dataclass

from companion.store.cache import experiment
from companion.theory import progress_measures as gu_theory


@dataclass(frozen=True)
class ODE:
    """Fig. 8: trajectories of eqs. (14)–(16) from random starts in (0, 1]³ (counts unstated)."""

    n_starts: int = 200  # trajectories
    t_max: float = 50.0  # integration time
    n_t: int = 501  # output times
    seed: int = 0  # starting points


@dataclass(frozen=True)
class Coverage:
    """Thm 3.12 at p = 97 with a Monte-Carlo check."""

    p: int = 97  # modulus
    ks: tuple = (2, 3, 4, 5, 6)  # cover radii k
    alphas: tuple = (0.2, 0.3)  # training fractions α
    n_draws: int = 20  # random training sets per (k, α)
    seed: int = 0  # draws
    above_k: int = 4  # the radius of the "just above the threshold" check...
    above_factor: float = 1.05  # ...at this multiple of its threshold α > 2 ln p / C...
    above_seed_offset: int = 1  # ...drawn with seed + this (other draws than the table's)


@experiment
def ode_run(cfg: ODE, device: str = "cpu") -> dict:
    """Fig. 8: trajectories and Lyapunov function of App. C's flow (RK45)."""
    return gu_theory.ode_trajectories(cfg.n_starts, cfg.t_max, cfg.n_t, cfg.seed)


@experiment
def coverage_run(cfg: Coverage, device: str = "cpu") -> dict:
    """Thm 3.12's table and plot: per (k, α) the bound and the Monte-Carlo coverage (torus and
    plain grid), and how often every pair is covered just above the threshold at ``above_k``."""
    rows = []
    for k in cfg.ks:
        for a in cfg.alphas:
            mc = gu_theory.monte_carlo_coverage(cfg.p, k, a, cfg.n_draws, cfg.seed)
            mc_box = gu_theory.monte_carlo_coverage(cfg.p, k, a, cfg.n_draws, cfg.seed, torus=False)
            rows.append({"k": k, "alpha": a, "C": gu_theory.cover_count(k),
                         "alpha_min": gu_theory.alpha_threshold(cfg.p, k),
                         "union_bound": gu_theory.union_bound(cfg.p, k, a), **mc,
                         "covered_test_frac_box": mc_box["covered_test_frac"]})
    a_above = cfg.above_factor * gu_theory.alpha_threshold(cfg.p, cfg.above_k)
    above = gu_theory.monte_carlo_coverage(cfg.p, cfg.above_k, a_above, cfg.n_draws, cfg.seed + cfg.above_seed_offset)
    return {"rows": rows, "alpha_above": a_above, "above": above}
