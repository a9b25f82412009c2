"""The high-dimensional XOR distribution and two-layer homogeneous ReLU nets of GrokTransfer
Sec. 3 (Xu et al. 2025), and the (q, k)-sparse parity data of Sec. 4.1.

XOR (Sec. 3.1): x = [x_signal; x_noise] ∈ ℝ^p, x_signal ~ U({±1}²), x_noise ~ U({±ε}^{p−2}),
label y = x₁x₂. Model f(x) = Σ_j a_j φ(⟨w_j, x⟩) (no bias), exponential loss
L̂ = (1/n) Σ exp(−y f(x)), full-batch GD with weight decay in torch's convention
θ ← θ − α(∇L̂ + λθ). Several nets of the same width (different ε, seeds) train at once: the
noise block is stored as signs and multiplied by each member's ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from companion import slices


@dataclass
class XORData:
    """Signs of the two signal coordinates (n, 2) and of the p−2 noise coordinates (n, p−2)."""

    signal: torch.Tensor
    noise: torch.Tensor  # ±1, float32; the noise coordinates are ε·noise
    y: torch.Tensor

    def x(self, eps: float) -> torch.Tensor:
        """The inputs x ∈ ℝ^{n×p} for one ε (materialised; only for small p)."""
        return torch.cat([self.signal, eps * self.noise], 1)


def xor_data(n: int, p: int, seed: int) -> XORData:
    g = torch.Generator().manual_seed(seed)
    s = torch.randint(0, 2, (n, 2), generator=g).float() * 2 - 1
    z = torch.randint(0, 2, (n, p - 2), generator=g).float() * 2 - 1
    return XORData(s, z, s[:, 0] * s[:, 1])


def sparse_parity(q: int, k: int, n: int, seed: int):
    """(q, k)-parity (Sec. 4.1): x ~ U{±1}^q, y = Π_{i<k} x_i ∈ {±1}. Returns (x, y)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 2, (n, q), generator=g).float() * 2 - 1
    return x, x[:, :k].prod(1)


def preact(W: torch.Tensor, d: XORData, eps: torch.Tensor) -> torch.Tensor:
    """⟨w_j, x_i⟩ for members: W (M, p, m), eps (M,) -> (M, n, m)."""
    M, p, m = W.shape
    flat = lambda B: B.permute(1, 0, 2).reshape(B.shape[1], M * m)  # noqa: E731  (rows, M·m)
    sig = (d.signal @ flat(W[:, :2])).view(-1, M, m).transpose(0, 1)
    noi = (d.noise @ flat(W[:, 2:])).view(-1, M, m).transpose(0, 1)  # one GEMM for all members
    return sig + eps.view(-1, 1, 1) * noi


def xor_net_init(M: int, p: int, m: int, w_std: float | None, a_std: float | None, seed: int):
    """First layer W (M, p, m) and second a (M, m).

    ``w_std``/``a_std`` None: PyTorch's ``nn.Linear`` default U(±1/√fan_in) (Fig. 4a);
    numbers: N(0, std²) (Fig. 4b: w_std 0.1, a_std 0.01).
    """
    g = torch.Generator().manual_seed(seed)
    W = (torch.randn(M, p, m, generator=g) * w_std if w_std is not None
         else (torch.rand(M, p, m, generator=g) * 2 - 1) / math.sqrt(p))
    a = (torch.randn(M, m, generator=g) * a_std if a_std is not None
         else (torch.rand(M, m, generator=g) * 2 - 1) / math.sqrt(m))
    return W, a


def sign_acc(f: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Accuracy of sgn f, with f = 0 counted wrong (the spec's tie convention)."""
    return (torch.sign(f) == y).float().mean(-1)


def train_xor(W, a, train: XORData, test: XORData, eps, lr: float, wd: float, steps: int,
              eval_every: int = 1) -> dict:
    """Full-batch GD on the exponential loss (Sec. 3.1) for every member; returns history + W."""
    eps = torch.as_tensor(eps, dtype=torch.float32).expand(W.shape[0])
    W, a = W.clone().requires_grad_(True), a.clone().requires_grad_(True)
    opt = torch.optim.SGD([W, a], lr=lr, weight_decay=wd)
    H = {"step": [], "train_acc": [], "test_acc": [], "train_loss": []}

    def f(d):
        return (torch.relu(preact(W, d, eps)) * a.unsqueeze(1)).sum(-1)  # (M, n)

    for t in slices.steps(steps + 1, evals=lambda t: t % eval_every == 0 or t == steps):
        out = f(train)
        loss = torch.exp(-train.y * out).mean(1)
        if t % eval_every == 0 or t == steps:
            with torch.no_grad():
                H["step"].append(t)
                H["train_acc"].append(sign_acc(out, train.y).numpy())
                H["test_acc"].append(sign_acc(f(test), test.y).numpy())
                H["train_loss"].append(loss.detach().numpy())
        if t == steps:
            break
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
    res = {"step": np.asarray(H.pop("step"))}
    res.update({k: np.stack(v, 1) for k, v in H.items()})
    res["W"], res["a"] = W.detach(), a.detach()
    return res


def norm_ratio(W: torch.Tensor) -> torch.Tensor:
    """r_W (Sec. 3.2) = (‖W_{3:p,·}‖_F/√(p−2)) / (‖W_{1:2,·}‖_F/√2), per member: W (M, p, m)."""
    p = W.shape[1]
    noise = W[:, 2:].flatten(1).norm(dim=1) / math.sqrt(p - 2)
    sig = W[:, :2].flatten(1).norm(dim=1) / math.sqrt(2)
    return noise / sig


def neuron_features(W: torch.Tensor) -> dict:
    """For a weak net's neurons W (p, m): signal coordinates (m, 2), mean |noise| per neuron,
    the sign pattern (sgn w₁, sgn w₂) and |w₁|/|w₂| (Fig. 4c: three of the four ±[1, ±1])."""
    s = W[:2].T
    return {"signal": s.numpy(), "noise_mean_abs": W[2:].abs().mean(0).numpy(),
            "patterns": [tuple(int(v) for v in torch.sign(r)) for r in s],
            "ratio": (s[:, 0].abs() / s[:, 1].abs()).numpy()}


def target_fl(U: torch.Tensor, train: XORData, test: XORData, eps: float, m: int, v_init: float,
              lr: float, steps: int, seed: int) -> dict:
    """The target f_L(x) = Σ_j a_j φ(⟨v_j, Uᵀx⟩) of Sec. 3.3 / Theorem 3.2 on the transferred
    embedding U (p, k): a_j ~ U{±1/√m} and U fixed, v_j ~ U({±v_init}^k), GD on V only, exp loss.
    """
    g = torch.Generator().manual_seed(seed)
    k = U.shape[1]

    def z(d):  # Uᵀx without materialising x
        return d.signal @ U[:2] + eps * (d.noise @ U[2:])

    ztr, zte = z(train), z(test)
    a = (torch.randint(0, 2, (m,), generator=g).float() * 2 - 1) / math.sqrt(m)
    V = ((torch.randint(0, 2, (k, m), generator=g).float() * 2 - 1) * v_init).requires_grad_(True)
    H = {"step": [], "train_acc": [], "test_acc": []}
    for t in slices.steps(steps + 1, evals=lambda t: True):
        out = torch.relu(ztr @ V) @ a
        with torch.no_grad():
            H["step"].append(t)
            H["train_acc"].append(float(sign_acc(out, train.y)))
            H["test_acc"].append(float(sign_acc(torch.relu(zte @ V) @ a, test.y)))
        if t == steps:
            break
        loss = torch.exp(-train.y * out).mean()
        (gV,) = torch.autograd.grad(loss, V)
        with torch.no_grad():
            V -= lr * gV
    return {k: np.asarray(v) for k, v in H.items()} | {"z_test": zte.numpy(), "y_test": test.y.numpy(),
                                                        "signal_test": test.signal.numpy()}
