"""Exact GD of the linear teacher–student model from its training spectrum alone (Levi et al., §2–3).

The losses of the one-layer student depend on the data only through the eigenvalues ν of
Σ_tr = XᵀX/N, and on teacher and student only through their coordinates T̄ = VᵀT, S̄₀ = VᵀS₀ in
the eigenbasis. Because T and S₀ are isotropic Gaussians drawn independently of X, T̄ and S̄₀ have
the same law as T and S₀ whatever V is, so a draw of (ν, T̄, S̄₀) is a draw of the whole run as far
as its losses go — at a cost that does not grow with N or d_out:

* ν comes from the Dumitriu–Edelman bidiagonal model of the real Wishart matrix (exact in
  distribution; an O(d²) tridiagonal eigenproblem instead of an O(d³) dense one);
* T̄ and S̄₀ enter the losses through three sums over output columns per eigen-direction.

:meth:`SpectralGD.expected` replaces those sums by their expectations over the teacher–student draw
(E‖T̄ᵢ‖² = E‖S̄₀ᵢ‖² = 1/(2d_in), E T̄ᵢ·S̄₀ᵢ = 0): the loss of a spectrum averaged exactly over
teacher and student, an unbiased estimate of the expected loss at finite d_in with far less
scatter than single runs (a conditional expectation). Its mean over many spectra is the finite-d_in
counterpart of Eq. 8 / 12 / 38. Empirical accuracies need the data themselves:
:class:`~companion.theory.linear_estimators.LinearGD`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.linalg import eigvalsh_tridiagonal


def wishart_spectra(d_in: int, n_train: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Eigenvalues of Σ_tr = XᵀX/N for ``n_draws`` independent X ∈ ℝ^{N×d_in} with N(0, 1) entries,
    ascending, shape (n_draws, d_in), null directions (d_in > N) as exact zeros.

    The nonzero eigenvalues of XᵀX are those of BBᵀ with B an m×m lower-bidiagonal matrix,
    m = min(N, d_in), k = max(N, d_in), diagonal χ_{k−i} and sub-diagonal χ_{m−1−i} (i = 0, 1, …):
    Dumitriu & Edelman (2002), β = 1."""
    m, k = min(n_train, d_in), max(n_train, d_in)
    out = np.zeros((n_draws, d_in))
    for s in range(n_draws):
        b = np.sqrt(rng.chisquare(k - np.arange(m)))
        c = np.sqrt(rng.chisquare(m - 1 - np.arange(m - 1)))
        diag = b ** 2 + np.concatenate([[0.0], c ** 2])
        out[s, d_in - m:] = eigvalsh_tridiagonal(diag, b[:-1] * c)
    return np.maximum(out, 0.0) / n_train


@dataclass(frozen=True)
class SpectralGD:
    """Full-batch GD (torch ``MSELoss``, ``SGD(lr=η, weight_decay=γ)``) of ``S`` runs of the one-layer
    student, from their spectra: the same recursion as :class:`~companion.theory.linear_estimators.LinearGD`,
    S̄_t = κT̄ + cᵗ(S̄₀ − κT̄) with c = 1 − η(2ν/d_out + γ) and κ = (2ν/d_out)/(2ν/d_out + γ)
    (κ = 0, c = 1 on null directions without weight decay), so D̄_t = (κ − 1)T̄ + cᵗ(S̄₀ − κT̄).

    ``nu`` (S, d) the spectra; ``tt``, ``ss``, ``st`` (S, d) the column sums ‖T̄ᵢ‖², ‖S̄₀ᵢ‖², T̄ᵢ·S̄₀ᵢ."""

    nu: np.ndarray
    tt: np.ndarray
    ss: np.ndarray
    st: np.ndarray
    dout: int = 1
    eta: float = 0.01
    gamma: float = 0.0

    @classmethod
    def sample(cls, d_in: int, d_out: int, lam: float, n_draws: int, seed: int, eta: float = 0.01,
               gamma: float = 0.0, alpha: float = 1.0) -> "SpectralGD":
        """``n_draws`` runs at λ = d_in/N (N = round(d_in/λ)): spectra, then teacher and student with
        entries ~ N(0, 1/(2 d_in d_out)) in the eigenbasis; the student scaled by ``alpha`` (§3.1.3)."""
        rng = np.random.default_rng(seed)
        nu = wishart_spectra(d_in, int(round(d_in / lam)), n_draws, rng)
        sd = np.sqrt(1 / (2 * d_in * d_out))
        t = rng.standard_normal((n_draws, d_in, d_out)) * sd
        s = alpha * rng.standard_normal((n_draws, d_in, d_out)) * sd
        return cls(nu, (t * t).sum(2), (s * s).sum(2), (t * s).sum(2), d_out, eta, gamma)

    def expected(self) -> "SpectralGD":
        """The same spectra with teacher and student averaged out exactly (module docstring)."""
        v = np.full_like(self.nu, 1 / (2 * self.nu.shape[1]))
        return replace(self, tt=v, ss=v, st=np.zeros_like(v))

    def retune(self, eta: float | None = None, gamma: float | None = None) -> "SpectralGD":
        """The same runs under another learning rate or weight decay."""
        return replace(self, eta=self.eta if eta is None else eta, gamma=self.gamma if gamma is None else gamma)

    def losses(self, t) -> tuple[np.ndarray, np.ndarray]:
        """(L_tr, L_gen), each (S, len(t)), at steps ``t`` (real t allowed: cᵗ with 0 < c ≤ 1):
        L_tr = (1/d_out)Σᵢ νᵢ‖D̄ᵢ‖², L_gen = (1/d_out)‖D̄‖²_F."""
        a = 2 * self.nu / self.dout + self.gamma
        moving = a > 1e-10
        c = np.where(moving, 1 - self.eta * a, 1.0)
        if (c <= 0).any():
            raise ValueError(f"η = {self.eta:g} overshoots (c ≤ 0): GD oscillates, real t is undefined")
        kappa = np.where(moving, (2 * self.nu / self.dout) / np.where(moving, a, 1.0), 0.0)
        aa = (kappa - 1) ** 2 * self.tt  # Σ_j a², a = (κ − 1)T̄
        ab = (kappa - 1) * (self.st - kappa * self.tt)  # Σ_j a·b, b = S̄₀ − κT̄
        bb = self.ss - 2 * kappa * self.st + kappa ** 2 * self.tt
        logc = np.log(c)
        t = np.atleast_1d(np.asarray(t, float))
        S, d = self.nu.shape
        ltr, lgen = np.empty((S, len(t))), np.empty((S, len(t)))
        step = max(1, int(4e6 // (d * len(t))))  # runs per chunk: about 4·10⁶ entries of (S, K, d) at once
        for i in range(0, S, step):
            sl = slice(i, i + step)
            ct = np.exp(logc[sl, None, :] * t[None, :, None])  # (s, K, d)
            d2 = aa[sl, None] + 2 * ct * ab[sl, None] + ct * ct * bb[sl, None]
            ltr[sl] = (d2 * self.nu[sl, None]).sum(2) / self.dout
            lgen[sl] = d2.sum(2) / self.dout
        return ltr, lgen


def loss_at_threshold(eps: float, thr: float, dout: int = 1) -> float:
    """The loss at which the accuracy of Eqs. 9/12, A = P(d_out/2, d_out ε/(2L)), equals ``thr`` (it falls
    with L): L* = d_out ε / (2 P⁻¹(d_out/2, thr)); ε/4 for thr = erf√2 and d_out = 1."""
    from scipy.special import gammaincinv

    return float(dout * eps / (2 * gammaincinv(dout / 2, thr)))


def first_crossing_on_grid(t: np.ndarray, loss: np.ndarray, level: float) -> np.ndarray:
    """First t at which each row of ``loss`` (B, K), on a log-spaced grid ``t`` (K,), falls to ``level``:
    linear interpolation of log L in log t between the grid points around it; 0 if the first point is
    already there, ∞ if none is."""
    ok = loss <= level
    i = np.argmax(ok, axis=1)
    out = np.full(loss.shape[0], np.inf)
    out[ok[:, 0]] = 0.0
    rows = np.nonzero(ok.any(1) & ~ok[:, 0])[0]
    j = i[rows]
    l0, l1 = np.log(loss[rows, j - 1]), np.log(np.maximum(loss[rows, j], 1e-300))
    f = np.clip((np.log(level) - l0) / np.where(l1 < l0, l1 - l0, -1.0), 0.0, 1.0)
    lt = np.log(t)
    out[rows] = np.exp(lt[j - 1] + f * (lt[j] - lt[j - 1]))
    return out


def bootstrap_weights(n: int, n_boot: int, seed: int = 0) -> np.ndarray:
    """(1 + n_boot, n) weights over ``n`` runs: the plain mean first, then ``n_boot`` resamples with
    replacement (counts / n), seeded."""
    rng = np.random.default_rng(seed)
    w = np.zeros((n_boot, n))
    np.add.at(w, (np.repeat(np.arange(n_boot), n), rng.integers(0, n, n_boot * n)), 1.0)
    return np.vstack([np.full((1, n), 1.0 / n), w / n])


def mean_loss_crossings(runs: SpectralGD, eps: float, thr: float, grid: tuple, weights: np.ndarray) -> dict:
    """t*_tr, t*_gen and Δt of the mean loss over ``runs`` through Eq. 9/12 (the accuracy of a mean loss),
    one per row of ``weights`` (:func:`bootstrap_weights`: the mean, then resamples), on the log grid
    ``grid`` = (first, last, points); ∞ where the level is not reached on the grid."""
    t = np.geomspace(grid[0], grid[1], int(grid[2]))
    ltr, lgen = runs.losses(t)
    level = loss_at_threshold(eps, thr, runs.dout)
    t_tr = first_crossing_on_grid(t, weights @ ltr, level)
    t_gen = first_crossing_on_grid(t, weights @ lgen, level)
    dt = np.where(np.isfinite(t_gen), np.maximum(t_gen - t_tr, 0.0), np.inf)
    return {"t_tr": t_tr, "t_gen": t_gen, "dt": dt}
