"""The Gaussian teacher–student task of Levi, Beck & Bar Sinai (ICLR 2024, §2), simulated exactly.

One-layer model: f(x) = Wᵀx, teacher T and student S ∈ R^{d_in×d_out}, x ~ N(0, I), entries of
S₀ and T drawn from N(0, 1/(2 d_in d_out)), torch ``MSELoss`` (mean over N·d_out) and full-batch
GD with ``SGD(lr=η, weight_decay=γ)``. Writing D = S − T and Σ = XᵀX/N = V diag(ν) Vᵀ, one GD
step is S ← S − η(2ΣD/d_out − 2b/d_out + γS) (b = XᵀΔ/N for label noise Δ), which is diagonal
in the eigenbasis (App. code ``LinGD`` of the spec):

    S̄_t = S̄* + c^t (S̄₀ − S̄*),  c = 1 − η(2ν/d_out + γ),  S̄* = (2ν T̄/d_out + 2b̄/d_out)/(2ν/d_out + γ)

so any step t costs O(d_in·d_out) for the losses — no loop over steps. Null directions
(ν = 0, γ = 0) keep S̄₀. Independent seeds are a leading batch dimension throughout.

The two-layer student of §3.4 / App. F (linear or tanh hidden layer) has no such shortcut and
is trained by :func:`train_two_layer`, batched over activations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from companion import slices


@dataclass
class LinearGD:
    """Exact full-batch GD of the one-layer linear student, for ``S`` seeds at once.

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
        """Draw data, teacher and student for ``n_seeds`` independent runs from one generator."""
        g = torch.Generator().manual_seed(seed)
        n = int(round(d_in / lam))
        S, f64 = n_seeds, torch.float64
        X = torch.randn(S, n, d_in, generator=g, dtype=f64)
        Xg = torch.randn(S, n_gen, d_in, generator=g, dtype=f64)
        sd = math.sqrt(1 / (2 * d_in * d_out))
        T = torch.randn(S, d_in, d_out, generator=g, dtype=f64) * sd
        S0 = torch.randn(S, d_in, d_out, generator=g, dtype=f64) * sd
        delta_unit = torch.randn(S, n, d_out, generator=g, dtype=f64)
        X, Xg, T, S0, delta_unit = (a.to(device) for a in (X, Xg, T, S0, delta_unit))
        nu, V = torch.linalg.eigh(X.transpose(1, 2) @ X / n)  # (S, d), (S, d, d)
        nu = nu.clamp_min(0)
        Vt = V.transpose(1, 2)
        b_unit = Vt @ (X.transpose(1, 2) @ delta_unit / n)
        sim = cls(X @ V, Xg @ V, nu, Vt @ T, Vt @ S0, nu, nu, nu, delta_unit, d_out, b_unit, delta_unit)
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
        """D̄_t (S, d, d_out) for per-seed integer steps ``t`` (shape (S,) or scalar)."""
        t = torch.as_tensor(t, dtype=torch.float64, device=self.c.device).reshape(-1, 1)
        ct = torch.where(self.moving, self.c ** t, torch.ones_like(self.c))
        return self.Sst + ct[..., None] * (self.Sb0 - self.Sst) - self.Tb

    def losses(self, t) -> tuple[torch.Tensor, torch.Tensor]:
        """(L_tr, L_gen) per seed at step ``t``: empirical train MSE and (1/d_out)‖D‖²_F."""
        D = self.D(t)
        ltr = ((self.XV @ D - self.delta) ** 2).mean((1, 2))
        return ltr, (D ** 2).sum((1, 2)) / self.dout

    def accuracies(self, t, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
        """Fraction of train / fresh test samples with (1/d_out)‖Sᵀx − y‖² < ε, per seed."""
        D = self.D(t)
        a_tr = (((self.XV @ D - self.delta) ** 2).mean(2) < eps).double().mean(1)
        a_gen = (((self.XgV @ D) ** 2).mean(2) < eps).double().mean(1)
        return a_tr, a_gen

    def curves(self, steps, eps: float) -> dict:
        """Losses and accuracies at every step of ``steps``: arrays (S, len(steps))."""
        out = {k: [] for k in ("train_loss", "test_loss", "train_acc", "test_acc")}
        for t in steps:
            lt, lg = self.losses(float(t))
            at, ag = self.accuracies(float(t), eps)
            for k, v in zip(out, (lt, lg, at, ag)):
                out[k].append(v.cpu().numpy())
        return {"step": np.asarray(steps, float), **{k: np.stack(v, 1) for k, v in out.items()}}

    def first_steps(self, eps: float, thr: float, t_max: int) -> tuple[np.ndarray, np.ndarray]:
        """First integer step at which train / test accuracy ≥ thr, per seed (∞ if not by t_max).

        Bisection on the integer step, all seeds at once (assumes the accuracy crosses once).
        """
        out = []
        for k in (0, 1):
            S = self.c.shape[0]
            lo = torch.full((S,), -1.0, dtype=torch.float64)
            hi = torch.full((S,), float(t_max), dtype=torch.float64)
            reached = self.accuracies(hi, eps)[k].cpu() >= thr
            while bool(((hi - lo) > 1).any()):
                mid = torch.floor((lo + hi) / 2)
                ok = self.accuracies(mid, eps)[k].cpu() >= thr
                hi = torch.where(ok, mid, hi)
                lo = torch.where(ok, lo, mid)
            out.append(np.where(reached.numpy(), hi.numpy(), np.inf))
        return out[0], out[1]


# ----------------------------------------------------------------------------- two-layer student
def train_two_layer(d_in: int, d_h: int, d_out: int, n_train: int, n_gen: int, activations: tuple,
                    eta: float, steps: int, eps: float, n_evals: int, seed: int,
                    device: str = "cpu") -> dict:
    """Full-batch GD of the 2-layer MLP d_in–d_h–d_out without biases (§3.4, App. F).

    Teacher and student have the same architecture; every layer ~ N(0, 1/(2 d_{l−1} d_l)).
    The runs for the given ``activations`` ("linear", "tanh") share data and weights and are
    batched along a leading dimension. Loss is torch ``MSELoss`` (mean over N·d_out).
    Returns losses/accuracies (n_act, n_evals) at log-spaced steps.
    """
    g = torch.Generator().manual_seed(seed)
    B = len(activations)
    X = torch.randn(n_train + n_gen, d_in, generator=g).to(device)
    def layer(a, b):
        w = torch.randn(a, b, generator=g) * math.sqrt(1 / (2 * a * b))
        return w.to(device).expand(B, a, b).clone()
    T0, T1, S0, S1 = layer(d_in, d_h), layer(d_h, d_out), layer(d_in, d_h), layer(d_h, d_out)
    is_tanh = torch.tensor([a == "tanh" for a in activations], device=device)[:, None, None]

    def f(W0, W1, x):  # (B, N, d_out)
        h = x @ W0
        return torch.where(is_tanh, torch.tanh(h), h) @ W1
    Xtr, Xgen = X[:n_train], X[n_train:]
    Ytr, Ygen = f(T0, T1, Xtr), f(T0, T1, Xgen)
    S0.requires_grad_(True), S1.requires_grad_(True)
    evals = set(np.unique(np.geomspace(1, steps, n_evals).astype(int)).tolist()) | {0}
    rec = {k: [] for k in ("step", "train_loss", "test_loss", "train_acc", "test_acc")}
    save, load = slices.inplace_state({"S0": S0, "S1": S1}, rec)
    for t in slices.steps(steps + 1, evals=evals, save=save, load=load):
        err = (f(S0, S1, Xtr) - Ytr) ** 2  # (B, N, d_out)
        loss = err.mean((1, 2))
        if t in evals:
            with torch.no_grad():
                se_tr, se_gen = err.mean(2), ((f(S0, S1, Xgen) - Ygen) ** 2).mean(2)
                rec["step"].append(t)
                rec["train_loss"].append(loss.detach().cpu().numpy())
                rec["test_loss"].append(se_gen.mean(1).cpu().numpy())
                rec["train_acc"].append((se_tr < eps).float().mean(1).cpu().numpy())
                rec["test_acc"].append((se_gen < eps).float().mean(1).cpu().numpy())
        if t == steps:
            break
        g0, g1 = torch.autograd.grad(loss.sum(), (S0, S1))
        with torch.no_grad():
            S0 -= eta * g0
            S1 -= eta * g1
    out = {k: np.stack(v, 1) if k != "step" else np.asarray(v, float) for k, v in rec.items()}
    out["activations"] = list(activations)
    return out
