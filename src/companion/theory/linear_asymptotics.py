"""The closed-form approximations of Levi, Beck & Bar Sinai (ICLR 2024) to the exact theory of
:mod:`companion.theory.linear_estimators`: the late-time losses of App. B (Eqs. 21, 22 and the main
text's Eq. 10), the grokking times of Eqs. 11, 15 and 25, and the Lambert-W crossing times of
Eqs. 23/24. Each is checked against the exact theory in the chapter (and by the unit tests)."""

from __future__ import annotations

import numpy as np
from scipy import special


def train_loss_eq21(t, lam: float, eta: float = 0.01) -> np.ndarray:
    """Eq. 21: L_tr ≃ e^{−4η(1−√λ)²t} / (16√π λ^{3/4} (ηt)^{3/2})."""
    t = np.asarray(t, float)
    return np.exp(-4 * eta * (1 - np.sqrt(lam)) ** 2 * t) / (16 * np.sqrt(np.pi) * lam ** 0.75 * (eta * t) ** 1.5)


def gen_loss_eq22(t, lam: float, eta: float = 0.01) -> np.ndarray:
    """Eq. 22: L_gen ≃ √(ηt)e^{−4η(1−√λ)²t}/(2√π ηt λ^{3/4}) − (1−√λ)Γ(½, 4ηt(1−√λ)²)/(√π λ^{3/4}),
    with Γ the upper incomplete gamma function."""
    t = np.asarray(t, float)
    s = 1 - np.sqrt(lam)
    z = 4 * eta * t * s ** 2
    upper = special.gammaincc(0.5, z) * special.gamma(0.5)
    return (np.sqrt(eta * t) * np.exp(-z) / (2 * np.sqrt(np.pi) * eta * t * lam ** 0.75)
            - s * upper / (np.sqrt(np.pi) * lam ** 0.75))


def gen_loss_eq10(ltr, lam: float) -> np.ndarray:
    """Eq. 10: L_gen ≃ L_tr/(1 − √λ)² (late times)."""
    return np.asarray(ltr, float) / (1 - np.sqrt(lam)) ** 2


def dt_eq11(lam, eta: float = 0.01) -> np.ndarray:
    """Eq. 11: Δt_grok ≃ −log(1 − √λ)/(2η(1 − √λ)²), the ε → 0 limit of the exact grokking time."""
    s = 1 - np.sqrt(np.asarray(lam, float))
    return -np.log(s) / (2 * eta * s ** 2)


def dt_eq15(lam, eta: float = 0.01) -> np.ndarray:
    """Eq. 15 (third part): Δt_grok ≃ log(1 + √λ)/(2η(1 − √λ)²), the paper's grokking time with weight decay."""
    s = 1 - np.sqrt(np.asarray(lam, float))
    return np.log(1 + np.sqrt(np.asarray(lam, float))) / (2 * eta * s ** 2)


def t_star_lambert(lam: float, eps: float, eta: float = 0.01) -> tuple[float, float]:
    """Eqs. 23/24: t* = 3/(8η(1−√λ)²)·W(z) with z_tr = 2^{5/3}(1−√λ)²/(3π^{1/3}√λ ε^{2/3}) and
    z_gen = z_tr (1−√λ)^{−4/3} (Lambert W, principal branch)."""
    s = 1 - np.sqrt(lam)
    z_tr = 2 ** (5 / 3) * s ** 2 / (3 * np.pi ** (1 / 3) * np.sqrt(lam) * eps ** (2 / 3))
    z_gen = z_tr * s ** (-4 / 3)
    pre = 3 / (8 * eta * s ** 2)
    return float(pre * special.lambertw(z_tr).real), float(pre * special.lambertw(z_gen).real)


def dt_eq25(lam: float, eps: float, eta: float = 0.01) -> float:
    """Eq. 25 = Eq. 11 + 3/(8η(1−√λ)²)·log(1 + log((1−√λ)^{4/3})/log z_gen); NaN when undefined."""
    s = 1 - np.sqrt(lam)
    z_tr = 2 ** (5 / 3) * s ** 2 / (3 * np.pi ** (1 / 3) * np.sqrt(lam) * eps ** (2 / 3))
    z_gen = z_tr * s ** (-4 / 3)
    with np.errstate(invalid="ignore", divide="ignore"):
        arg = 1 + np.log(s ** (4 / 3)) / np.log(z_gen)
        return float(dt_eq11(lam, eta) + 3 / (8 * eta * s ** 2) * np.log(arg)) if z_tr > 1 else float("nan")
