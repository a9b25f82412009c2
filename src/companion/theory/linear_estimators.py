"""Theory of grokking in the linear teacher–student model (Levi, Beck & Bar Sinai, ICLR 2024).

The formulas are pure numpy/scipy; :class:`LinearGD` is the exact solution of full-batch GD of
the one-layer student in the eigenbasis of the training covariance (torch, float64).
Conventions (paper §2–3): ``eta`` is the GD learning rate η₀, time ``t`` is the step count
(gradient flow with dt = 1), ``lam`` = λ = d_in/N_tr, ``gamma`` = γ the weight decay,
``dout`` = d_out. Losses are normalised so that ‖D₀‖²_F = 1 (student and teacher entries drawn
with variance 1/(2 d_in d_out)).

Errata handled here (see the chapter's Errata section): Eq. 11 is only the ε→0 limit
(:func:`dt_eq11` vs :func:`grok_times`); Eq. 15 is 2× too large (:func:`wd_plateaus`);
Eq. 18 misses 1/d_out (:func:`two_layer_losses`); App. C is wrong for fixed noisy labels
(:func:`label_noise_losses`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from scipy import special

from companion.data.teacher_student import linear_teacher_student
from companion.theory.linear_asymptotics import (  # noqa: F401  (the paper's approximations, read as theory.dt_eq11, …)
    dt_eq11,
    dt_eq15,
    dt_eq25,
    gen_loss_eq10,
    gen_loss_eq22,
    t_star_lambert,
    train_loss_eq21,
)

M_NODES = 8192  # midpoint nodes for MP expectations: converged to η₀t/d_out ≈ 1e5 (spec §2.2)


# ----------------------------------------------------------------------------- Marchenko–Pastur
def mp_edges(lam: float) -> tuple[float, float]:
    """λ± = (1 ± √λ)², the edges of the MP support (Eq. 6)."""
    return (1 - np.sqrt(lam)) ** 2, (1 + np.sqrt(lam)) ** 2


def mp_nodes(lam: float, m: int = M_NODES) -> tuple[np.ndarray, np.ndarray, float]:
    """Quadrature of the MP law (Eq. 6): E[f] ≈ Σ w f(ν) + atom·f(0).

    With ν(θ) = 1 + λ − 2√λ cos θ the continuous part becomes (2/π)∫₀^π f(ν) sin²θ/ν dθ, a
    smooth periodic integrand for which the midpoint rule converges exponentially. The atom
    (1 − 1/λ)⁺ at ν = 0 is the null space of Σ_tr when N_tr < d_in.
    """
    th = (np.arange(m) + 0.5) * np.pi / m
    nu = 1 + lam - 2 * np.sqrt(lam) * np.cos(th)
    w = (2 / np.pi) * np.sin(th) ** 2 / nu * (np.pi / m)
    return nu, w, max(0.0, 1 - 1 / lam)


def mp_expect(f, lam: float, m: int = M_NODES):
    """E_{ν~MP(λ)}[f(ν)] for a vectorised ``f`` (ν arrives as a column ``(m, 1)``)."""
    nu, w, atom = mp_nodes(lam, m)
    val = np.tensordot(w, f(nu[:, None]), axes=(0, 0))
    if atom > 0:
        val = val + atom * f(np.zeros((1, 1)))[0]
    return val


# ----------------------------------------------------------------------------- losses
def losses(t, lam: float, eta: float = 0.01, gamma: float = 0.0, dout: int = 1,
           m: int = M_NODES) -> tuple[np.ndarray, np.ndarray]:
    """(L_tr(t), L_gen(t)) of one-layer GD: Eq. 8 (γ = 0), Eq. 38 (γ > 0), Eq. 12 (d_out > 1).

    γ = 0: L = E[q e^{−4ηνt}] with q = ν (train) or 1 (gen). γ > 0 (Eq. 38):
    L = ½ E[(e^{−4η(ν+γ/2)t} + ((e^{−2η(ν+γ/2)t}ν + γ/2)/(ν+γ/2))²) q].
    d_out > 1 (Eq. 12, Eq. 3's convention with the WD term also divided by d_out):
    L^{(d_out)}(η) = L^{(1)}(η/d_out)/d_out.
    """
    t = np.atleast_1d(np.asarray(t, float))[None, :]
    e = eta / dout
    if gamma > 0:
        def f(u, q):
            a = u + gamma / 2
            e2 = np.exp(-2 * e * a * t)
            return 0.5 * (e2 ** 2 + ((e2 * u + gamma / 2) / a) ** 2) * q
    else:
        def f(u, q):
            return np.exp(-4 * e * u * t) * q
    ltr = mp_expect(lambda u: f(u, u), lam, m)
    lgen = mp_expect(lambda u: f(u, 1.0), lam, m)
    return ltr / dout, lgen / dout


def train_loss_bessel(t, lam: float, eta: float = 0.01) -> np.ndarray:
    """Eq. 19 in closed form: L_tr = e^{−4η(1+λ)t} ₀F̃₁(2; 16η²t²λ) = e^{−4ηt(1−√λ)²}·2 I₁(x)/x
    with x = 8ηt√λ, evaluated stably with the exponentially scaled Bessel ``ive``."""
    t = np.asarray(t, float)
    x = 8 * eta * t * np.sqrt(lam)
    ratio = np.where(x > 1e-8, 2 * special.ive(1, x) / np.maximum(x, 1e-300), 1.0)
    return np.exp(-4 * eta * t * (1 - np.sqrt(lam)) ** 2) * ratio


def gen_from_train(t, lam: float, eta: float = 0.01, t_max: float = 1e9, n: int = 4000) -> np.ndarray:
    """Eq. 20: dL_gen/dt = −4ηL_tr, so L_gen(t) = (1 − 1/λ)⁺ + 4η∫_t^∞ L_tr(s) ds.

    The integral uses the Bessel form of L_tr on a log grid (trapezoid in log s); valid for
    λ ≠ 1 (at λ = 1 the tail is a power law).
    """
    out = []
    for t0 in np.atleast_1d(np.asarray(t, float)):
        s = np.geomspace(max(t0, 1e-6), t_max, n)
        y = train_loss_bessel(s, lam, eta) * s
        out.append(max(0.0, 1 - 1 / lam) + 4 * eta * (np.trapezoid(y, np.log(s)) + (t0 < 1e-6) * 1e-6))
    return np.array(out)


def accuracy(loss, eps: float, dout: int = 1) -> np.ndarray:
    """Eqs. 9/12/42: A = P(d_out/2, d_out ε/(2L)) (regularised lower incomplete gamma).

    The per-sample error (1/d_out)‖Dᵀx‖² is L·χ²_{d_out}/d_out; for d_out = 1, A = erf(√(ε/2L)).
    """
    loss = np.asarray(loss, float)
    return special.gammainc(dout / 2, dout * eps / (2 * np.maximum(loss, 1e-300)))


def grok_threshold_erf2() -> float:
    """The paper's Fig. 1 threshold erf(√2) ≈ 0.9545, i.e. L = ε/4 for d_out = 1."""
    return float(special.erf(np.sqrt(2)))


# ----------------------------------------------------------------------------- label noise
def label_noise_losses(t, lam: float, sigma2: float, eta: float = 0.01, fixed: bool = True):
    """Losses with training-label noise of variance σ² (App. C), d_out = 1, γ = 0.

    ``fixed=False``: the paper's App. C (Eqs. 26–28): L_tr = Eq. 8 + σ², L_gen = Eq. 8.
    ``fixed=True`` (correct for noisy labels drawn once): GD fits the noise through
    b = XᵀΔ/N, and with e = e^{−2ηνt}
    L_tr = E[ν e²] + σ²(1 − λ + λE[e²]),  L_gen = E[e²] + σ²λE[(1 − e)²/ν],
    with limits L_tr(∞) = σ²(1 − λ)⁺ and L_gen(∞) = σ²λ/(1 − λ) for λ < 1.
    """
    ltr, lgen = losses(t, lam, eta)
    if not fixed:
        return ltr + sigma2, lgen
    tt = np.atleast_1d(np.asarray(t, float))[None, :]
    ee = mp_expect(lambda u: np.exp(-4 * eta * u * tt) + 0 * u, lam)
    fit = mp_expect(lambda u: np.where(u > 0, (1 - np.exp(-2 * eta * u * tt)) ** 2
                                       / np.maximum(u, 1e-300), 0.0), lam)
    return ltr + sigma2 * (1 - lam + lam * ee), lgen + sigma2 * lam * fit


def label_noise_floors(lam: float, sigma2: float) -> tuple[float, float]:
    """Late-time floors with fixed noisy labels (λ < 1): (σ²(1 − λ), σ²λ/(1 − λ))."""
    return sigma2 * (1 - lam), sigma2 * lam / (1 - lam)


# ----------------------------------------------------------------------------- weight decay
def wd_plateaus(lam: float, gamma: float) -> dict:
    """Late-time WD losses, λ < 1, γ ≪ (1 − √λ)²: Eq. 38 gives γ²/(8(1−λ)) and γ²/(8(1−λ)³);
    the paper's Eq. 15 states γ²/(4(1−λ)) and γ²/(4(1−λ)³) (2× too large)."""
    return {"tr": gamma ** 2 / (8 * (1 - lam)), "gen": gamma ** 2 / (8 * (1 - lam) ** 3),
            "tr_eq15": gamma ** 2 / (4 * (1 - lam)), "gen_eq15": gamma ** 2 / (4 * (1 - lam) ** 3)}


# ----------------------------------------------------------------------------- grokking times
def first_crossing(loss_fn, eps: float, thr: float, dout: int = 1, t_lo: float = 1e-2,
                   t_hi: float = 1e10, n_grid: int = 97, n_bisect: int = 30,
                   grid_values: np.ndarray | None = None) -> float:
    """First t with A(L(t)) ≥ thr: a log-grid scan then bisection in log t.

    ``loss_fn(t_array) -> L(t_array)``; ``grid_values`` optionally gives L on the scan grid.
    Returns 0 if A(t_lo) ≥ thr already and ∞ if the threshold is not reached by ``t_hi``
    (no grokking).
    """
    grid = np.geomspace(t_lo, t_hi, n_grid)
    vals = loss_fn(grid) if grid_values is None else grid_values
    ok = accuracy(vals, eps, dout) >= thr
    if ok[0]:
        return 0.0
    if not ok.any():
        return float("inf")
    i = int(np.argmax(ok))
    lo, hi = np.log(grid[i - 1]), np.log(grid[i])
    for _ in range(n_bisect):
        mid = 0.5 * (lo + hi)
        if accuracy(loss_fn(np.array([np.exp(mid)])), eps, dout)[0] >= thr:
            hi = mid
        else:
            lo = mid
    return float(np.exp(hi))


def grok_times(lam: float, eps: float, thr: float = 0.95, eta: float = 0.01, gamma: float = 0.0,
               dout: int = 1, loss=None, m: int = 4096) -> tuple[float, float, float]:
    """Exact (t*_tr, t*_gen, Δt) from the theory losses: roots of A(t) = thr, found separately
    for train and generalisation (Δt = ∞ if the generalisation accuracy never reaches thr by
    t = 1e10; Δt = 0 if it starts above it).

    ``loss(t) -> (L_tr, L_gen)`` overrides the one-layer losses (e.g. the two-layer Eq. 18).
    """
    loss = loss or (lambda t: losses(t, lam, eta, gamma, dout, m))
    grid = np.geomspace(1e-2, 1e10, 97)
    ltr, lgen = loss(grid)
    t_tr = first_crossing(lambda t: loss(t)[0], eps, thr, dout, grid_values=ltr)
    t_gen = first_crossing(lambda t: loss(t)[1], eps, thr, dout, grid_values=lgen)
    dt = t_gen - t_tr if np.isfinite(t_gen) else float("inf")
    return t_tr, t_gen, max(dt, 0.0)


# ----------------------------------------------------------------------------- two-layer network
def two_layer_losses(t, lam: float, dout: int, loss0: float, eta: float = 0.01):
    """Eqs. 17/18/42, corrected: L^{2L}(t) = L^{2L}(0)·L^{(1)}(η/(2 d_out²), λ, t), d_out = 1 form.

    The paper writes ‖D₀‖²·L^{(1)}; with its MSE normalisation L^{2L}(0) = ‖D₀‖²/d_out, so the
    printed Eq. 18 is d_out times too large. ``loss0`` ≈ 1/(2 d_h d_out) at initialisation.
    """
    ltr, lgen = losses(t, lam, eta / (2 * dout ** 2))
    return loss0 * ltr, loss0 * lgen


# ----------------------------------------------------------------------------- exact GD, simulated
@dataclass
class LinearGD:
    """Exact full-batch GD of the one-layer linear student (§2, App. code ``LinGD``), ``S`` seeds at once.

    Not trained by gradient steps (hence not by :func:`companion.train.fit`): with torch
    ``MSELoss`` (mean over N·d_out) and ``SGD(lr=η, weight_decay=γ)``, writing D = S − T and
    Σ = XᵀX/N = V diag(ν) Vᵀ, one GD step S ← S − η(2ΣD/d_out − 2b/d_out + γS) (b = XᵀΔ/N for
    label noise Δ) is diagonal in the eigenbasis, so

        S̄_t = S̄* + c^t (S̄₀ − S̄*),  c = 1 − η(2ν/d_out + γ),  S̄* = (2ν T̄/d_out + 2b̄/d_out)/(2ν/d_out + γ)

    and any step t costs O(d_in·d_out) — no loop over steps (a test checks it against a literal
    ``nn.Linear`` + ``SGD`` loop). Null directions (ν = 0, γ = 0) keep S̄₀.

    Shapes: ``XV`` (S, N, d) training inputs in the eigenbasis, ``XgV`` (S, N_gen, d), ``Tb``,
    ``Sb0``, ``Sst`` (S, d, d_out), ``nu``/``c`` (S, d), ``delta`` (S, N, d_out) label noise.
    """

    XV: torch.Tensor
    XgV: torch.Tensor
    nu: torch.Tensor
    Tb: torch.Tensor
    Sb0: torch.Tensor
    Sst: torch.Tensor
    c: torch.Tensor
    moving: torch.Tensor
    delta: torch.Tensor
    dout: int
    b_unit: torch.Tensor | None = None
    delta_unit: torch.Tensor | None = None

    @classmethod
    def sample(cls, d_in: int, d_out: int, lam: float, n_seeds: int, seed: int, n_gen: int = 5000,
               eta: float = 0.01, gamma: float = 0.0, noise_var: float = 0.0,
               device: str = "cpu") -> "LinearGD":
        """Draw data, teacher and student for ``n_seeds`` independent runs
        (:func:`companion.data.teacher_student.linear_teacher_student`, N = round(d_in/λ))."""
        n = int(round(d_in / lam))
        data = linear_teacher_student(d_in, d_out, n, n_seeds, seed, n_gen, device)
        X, delta_unit = data.x_train, data.noise_unit
        nu, V = torch.linalg.eigh(X.transpose(1, 2) @ X / n)  # (S, d), (S, d, d)
        nu = nu.clamp_min(0)
        Vt = V.transpose(1, 2)
        b_unit = Vt @ (X.transpose(1, 2) @ delta_unit / n)
        sim = cls(X @ V, data.x_test @ V, nu, Vt @ data.teacher, Vt @ data.student0, nu, nu, nu, delta_unit,
                  d_out, b_unit, delta_unit)
        return sim.retune(eta, gamma, noise_var)

    def retune(self, eta: float, gamma: float = 0.0, noise_var: float = 0.0) -> "LinearGD":
        """The same data, teacher and initial student under another η, γ or label-noise variance."""
        a = 2 * self.nu / self.dout + gamma  # per-step contraction rate / η
        moving = a > 1e-10
        b = self.b_unit * math.sqrt(noise_var)
        num = (2 * self.nu / self.dout)[..., None] * self.Tb + (2 / self.dout) * b
        Sst = torch.where(moving[..., None], num / torch.where(moving, a, 1)[..., None], self.Sb0)
        return LinearGD(self.XV, self.XgV, self.nu, self.Tb, self.Sb0, Sst, 1 - eta * a, moving,
                        self.delta_unit * math.sqrt(noise_var), self.dout, self.b_unit, self.delta_unit)

    def D(self, t: torch.Tensor) -> torch.Tensor:
        """D̄_t (S, K, d, d_out) at per-seed integer steps ``t`` (S, K)."""
        ct = torch.where(self.moving[:, None, :], self.c[:, None, :] ** t[..., None],
                         torch.ones((), dtype=self.c.dtype, device=self.c.device))
        return (self.Sst - self.Tb)[:, None] + ct[..., None] * (self.Sb0 - self.Sst)[:, None]

    def _chunk(self) -> int:
        """Time points per batched evaluation (about 3·10⁷ residual entries at once)."""
        s, n, _ = self.XV.shape
        return max(1, int(3e7 // (s * max(n, self.XgV.shape[1]) * self.dout)))

    def _evaluate(self, t, eps: float, sets: str = "both") -> tuple[torch.Tensor, ...]:
        """(L_tr, L_gen, A_tr, A_gen), each (S, K), at steps ``t`` (S, K): one matrix product per
        chunk of time points instead of one pass over the data per time point. ``sets`` = "train" or
        "test" skips the other set's product (its L and A come back as NaN)."""
        D = self.D(t)  # (S, K, d, o)
        S, K, d, o = D.shape
        Dm = D.permute(0, 2, 1, 3).reshape(S, d, K * o)
        nan = torch.full((S, K), float("nan"), dtype=D.dtype, device=D.device)
        l_tr = a_tr = a_gen = nan
        if sets != "test":
            e_tr = ((self.XV @ Dm).reshape(S, -1, K, o) - self.delta[:, :, None, :]).pow(2).mean(3)  # (S, N, K)
            l_tr, a_tr = e_tr.mean(1), (e_tr < eps).double().mean(1)
        if sets != "train":
            e_gen = (self.XgV @ Dm).reshape(S, -1, K, o).pow(2).mean(3)
            a_gen = (e_gen < eps).double().mean(1)
        return l_tr, (D ** 2).sum((2, 3)) / self.dout, a_tr, a_gen

    def evaluate(self, t, eps: float, sets: str = "both") -> tuple[torch.Tensor, ...]:
        """:meth:`_evaluate` over time points ``t`` (S, K) or (K,), in chunks."""
        t = torch.as_tensor(t, dtype=torch.float64, device=self.c.device)
        t = t.reshape(1, -1).expand(self.c.shape[0], -1) if t.ndim <= 1 else t
        k = self._chunk()
        parts = [self._evaluate(t[:, i:i + k], eps, sets) for i in range(0, t.shape[1], k)]
        return tuple(torch.cat([p[j] for p in parts], 1) for j in range(4))

    def losses(self, t) -> tuple[torch.Tensor, torch.Tensor]:
        """(L_tr, L_gen) per seed at step ``t`` (scalar or per seed): empirical train MSE and (1/d_out)‖D‖²_F."""
        ltr, lgen, _, _ = self.evaluate(self._per_seed(t), 0.0)
        return ltr[:, 0], lgen[:, 0]

    def accuracies(self, t, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
        """Fraction of train / fresh test samples with (1/d_out)‖Sᵀx − y‖² < ε, per seed."""
        _, _, a_tr, a_gen = self.evaluate(self._per_seed(t), eps)
        return a_tr[:, 0], a_gen[:, 0]

    def _per_seed(self, t) -> torch.Tensor:
        t = torch.as_tensor(t, dtype=torch.float64, device=self.c.device).reshape(-1, 1)
        return t.expand(self.c.shape[0], 1)

    def curves(self, steps, eps: float) -> dict:
        """Losses and accuracies at every step of ``steps``: arrays (S, len(steps))."""
        vals = self.evaluate(np.asarray(steps, float), eps)
        keys = ("train_loss", "test_loss", "train_acc", "test_acc")
        return {"step": np.asarray(steps, float), **{k: v.cpu().numpy() for k, v in zip(keys, vals)}}

    def first_steps(self, eps: float, thr: float, t_max: int, k: int | None = None,
                    rtol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """First integer step at which train / test accuracy ≥ thr, per seed (∞ if not by t_max); with
        ``rtol`` > 0 the search stops once the bracket is within rtol of its upper end (the step returned
        is then at most rtol·t late).

        A (k+1)-ary search on the integer step, all seeds and both accuracies at once (assumes the
        accuracy crosses once): each round evaluates k points inside every bracket in one batch.
        By default k = 31 for d_out = 1 (a pass over the data costs the same for 1 or 31 points)
        and k = 1, bisection, for d_out > 1 (there each point costs a full matrix product).
        """
        k = k or (31 if self.dout == 1 else 1)
        S = self.c.shape[0]
        a = self.evaluate(torch.full((S, 1), float(t_max), dtype=torch.float64), eps)
        reached = [(a[2][:, 0] >= thr).cpu().numpy(), (a[3][:, 0] >= thr).cpu().numpy()]
        lo = torch.full((S, 2), -1.0, dtype=torch.float64)
        hi = torch.full((S, 2), float(t_max), dtype=torch.float64)
        frac = torch.arange(1, k + 1, dtype=torch.float64) / (k + 1)
        while bool(((hi - lo) > torch.clamp(rtol * hi, min=1.0)).any()):
            pts = torch.maximum(torch.floor(lo[..., None] + (hi - lo)[..., None] * frac), lo[..., None] + 1)
            pts = torch.minimum(pts, hi[..., None])  # (S, 2, k)
            if k == 1:  # each point costs a full matrix product: the train set for t*_tr, the test set for t*_gen
                a_tr = self.evaluate(pts[:, 0].to(self.c.device), eps, "train")[2]
                a_gen = self.evaluate(pts[:, 1].to(self.c.device), eps, "test")[3]
            else:
                v = self.evaluate(pts.reshape(S, 2 * k).to(self.c.device), eps)
                a_tr, a_gen = v[2][:, :k], v[3][:, k:]
            ok = torch.stack([a_tr, a_gen], 1).cpu() >= thr  # (S, 2, k)
            first = torch.where(ok.any(2), ok.double().argmax(2), torch.full((S, 2), k, dtype=torch.long))
            ext = torch.cat([lo[..., None], pts, hi[..., None]], 2)  # lo, points, hi
            hi = torch.gather(ext, 2, (first + 1)[..., None])[..., 0]
            lo = torch.gather(ext, 2, first[..., None])[..., 0]
        return tuple(np.where(reached[j], hi[:, j].numpy(), np.inf) for j in (0, 1))
