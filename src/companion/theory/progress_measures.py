"""Theory of Gu et al., "Beyond Progress Measures": the coverage bound of Theorem 3.12
(App. B.6) with a Monte-Carlo check, and the dynamical-system toy of App. C (Fig. 8).

Coverage (Thm 3.12). Training pairs are a uniform random α-fraction of the p × p grid; a point is
*covered* when a training point lies at Manhattan distance < k. One training point covers
C(k) = 1 + Σ_{d=1}^{k−1} 4d = 1 + 2k(k−1) points, and the union bound
p² (1 − C/p²)^{α p²} < 1 gives every point covered once α > 2 ln p / C.

ODE (App. C, eqs. 14–16): gradient flow of ½(1 − xwu)²,
ẋ = (1 − xwu) wu, ẇ = (1 − xwu) xu, u̇ = (1 − xwu) xw, with Lyapunov function
V = (x−1)² + (w−1)² + (u−1)²; V̇ = 2(3xwu − wu − xu − xw)(1 − xwu): the paper prints it without
the factor 2. Within the unit cube xwu ≤ each pairwise product, so V̇ ≤ 0. The flow is
integrated (:func:`ode_trajectories`), not trained: it is the one gradient flow of the chapter
that does not go through :func:`companion.train.fit.fit`.

Nearness (Thm 3.10). A test pair (i, j) can be answered r(i, j) only by "imitating" a training pair
of its own class nearby: :func:`same_class_distance` is the Manhattan distance from each test pair
to the nearest training pair with the same label, on the torus like the coverage count.
"""

from __future__ import annotations

import math

import numpy as np


def cover_count(k: int) -> int:
    """C(k) = 1 + 2k(k−1): grid points within Manhattan distance < k of a point (no boundary)."""
    return 1 + 2 * k * (k - 1)


def alpha_threshold(p: int, k: int) -> float:
    """Thm 3.12: the training fraction above which the union bound guarantees full coverage."""
    return 2 * math.log(p) / cover_count(k)


def union_bound(p: int, k: int, alpha: float) -> float:
    """p² (1 − C/p²)^{α p²}: the bound on the expected number of uncovered points."""
    return p * p * (1 - cover_count(k) / (p * p)) ** (alpha * p * p)


def _diamond(k: int) -> np.ndarray:
    r = k - 1
    i, j = np.mgrid[-r:r + 1, -r:r + 1]
    return (np.abs(i) + np.abs(j)) <= r


def covered(train: np.ndarray, k: int, torus: bool = True) -> np.ndarray:
    """Boolean p × p map: points with a training point at Manhattan distance < k
    (wrap-around mod p when ``torus``; the paper's count C assumes no boundary)."""
    p = train.shape[0]
    out = np.zeros_like(train, dtype=bool)
    r = k - 1
    for di in range(-r, r + 1):
        for dj in range(-(r - abs(di)), r - abs(di) + 1):
            if torus:
                out |= np.roll(train, (di, dj), (0, 1))
            else:
                sh = np.zeros_like(train)
                src = train[max(0, -di):p - max(0, di), max(0, -dj):p - max(0, dj)]
                sh[max(0, di):p - max(0, -di), max(0, dj):p - max(0, -dj)] = src
                out |= sh
    return out


def same_class_distance(p: int, train_pairs: np.ndarray, train_labels: np.ndarray, test_pairs: np.ndarray,
                        test_labels: np.ndarray, torus: bool = True) -> np.ndarray:
    """Thm 3.10: per test pair, the Manhattan distance to the nearest training pair of the same class
    (label), wrap-around mod p when ``torus``; ``np.inf`` where the class has no training pair."""
    train_pairs, test_pairs = np.asarray(train_pairs)[:, :2], np.asarray(test_pairs)[:, :2]
    train_labels, test_labels = np.asarray(train_labels), np.asarray(test_labels)
    out = np.full(len(test_pairs), np.inf)
    for c in np.unique(test_labels):
        here, there = test_labels == c, train_labels == c
        if not there.any():
            continue
        d = np.abs(test_pairs[here][:, None, :] - train_pairs[there][None, :, :])
        if torus:
            d = np.minimum(d, p - d)
        out[here] = d.sum(-1).min(1)
    return out


def monte_carlo_coverage(p: int, k: int, alpha: float, n_draws: int, seed: int, torus: bool = True) -> dict:
    """Draw ``n_draws`` training sets of ``int(α p²)`` pairs; report the mean number of uncovered
    points (and its standard error), the mean covered fraction of test points, and the share of draws
    covering everything."""
    rng = np.random.default_rng(seed)
    n = int(alpha * p * p)
    unc, frac_test, full = [], [], []
    for _ in range(n_draws):
        t = np.zeros(p * p, dtype=bool)
        t[rng.choice(p * p, n, replace=False)] = True
        t = t.reshape(p, p)
        c = covered(t, k, torus)
        unc.append(int((~c).sum()))
        frac_test.append(float(c[~t].mean()))
        full.append(bool(c.all()))
    return {"uncovered_mean": float(np.mean(unc)),
            "uncovered_se": float(np.std(unc, ddof=1) / np.sqrt(n_draws)) if n_draws > 1 else float("inf"),
            "covered_test_frac": float(np.mean(frac_test)),
            "all_covered_frac": float(np.mean(full))}


# ----------------------------------------------------------------------------- App. C ODE
def ode_rhs(t: float, s: np.ndarray) -> np.ndarray:
    """Eqs. (14)–(16)."""
    x, w, u = s
    e = 1 - x * w * u
    return np.array([e * w * u, e * x * u, e * x * w])


def lyapunov(s: np.ndarray) -> np.ndarray:
    """V = (x−1)² + (w−1)² + (u−1)² along the last axis of ``s`` (… × 3)."""
    return ((np.asarray(s) - 1) ** 2).sum(-1)


def lyapunov_rate(s: np.ndarray) -> np.ndarray:
    """dV/dt = ∇V · f = 2(3xwu − wu − xu − xw)(1 − xwu)."""
    return 2 * lyapunov_rate_paper(s)


def lyapunov_rate_paper(s: np.ndarray) -> np.ndarray:
    """The paper's printed V̇ = (3xwu − wu − xu − xw)(1 − xwu) (App. C), kept to show the factor."""
    x, w, u = np.moveaxis(np.asarray(s), -1, 0)
    return (3 * x * w * u - w * u - x * u - x * w) * (1 - x * w * u)


def ode_trajectories(n_starts: int, t_max: float, n_t: int, seed: int, rtol: float = 1e-8) -> dict:
    """Integrate the flow (RK45, not :func:`companion.train.fit.fit`: an ODE solved to ``rtol``,
    not gradient steps) from ``n_starts`` uniform points in (0, 1]³; arrays
    ``t`` (n_t,), ``traj`` (n_starts, n_t, 3), ``V`` (n_starts, n_t)."""
    from scipy.integrate import solve_ivp

    rng = np.random.default_rng(seed)
    starts = 1 - rng.random((n_starts, 3))  # (0, 1]
    t = np.linspace(0, t_max, n_t)
    traj = np.stack([solve_ivp(ode_rhs, (0, t_max), s0, t_eval=t, rtol=rtol, atol=1e-10).y.T for s0 in starts])
    return {"t": t, "traj": traj, "V": lyapunov(traj)}
