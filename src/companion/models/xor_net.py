"""The two-layer homogeneous ReLU nets of GrokTransfer Sec. 3 (Xu et al. 2025) on the XOR data
of :mod:`companion.data.xor`, and the target f_L of Theorem 3.2 on a transferred embedding.

Model f(x) = Σ_j a_j φ(⟨w_j, x⟩) (no bias), exponential loss L̂ = (1/n) Σ exp(−y f(x)),
full-batch GD with weight decay in torch's convention θ ← θ − α(∇L̂ + λθ)
(:mod:`companion.train.groktransfer`). Several nets of the same width (different ε, seeds) train at
once: every parameter has a leading member axis, and each member multiplies the shared noise
signs by its own ε.
"""

from __future__ import annotations

import math

import torch

from companion.data.xor import XORData


def output(W: torch.Tensor, a: torch.Tensor, d: XORData, eps: torch.Tensor) -> torch.Tensor:
    """f(x) = Σ_j a_j φ(⟨w_j, x⟩) for every member: W (M, p, m), a (M, m), eps (M,) -> (M, n)."""
    return (torch.relu(preact(W, d, eps)) * a.unsqueeze(1)).sum(-1)


#: at most this many neurons over all members, :func:`preact` multiplies (neurons × p)(p × n) instead of
#: (n × p)(p × neurons): 45 neurons (Fig. 5's 15 nets of 3) at n 800, p 8000 took 36 instead of 51 ms a GD
#: step, 384 (Fig. 4a's 3 nets of 128) took 180 instead of 130; both bit-identical on the book's machine
NARROW = 64


def _members_as_columns(B: torch.Tensor) -> torch.Tensor:
    """(M, rows, m) -> (rows, M·m): every member's neurons side by side, for one GEMM."""
    M, rows, m = B.shape
    return B.permute(1, 0, 2).reshape(rows, M * m)


def preact(W: torch.Tensor, d: XORData, eps: torch.Tensor) -> torch.Tensor:
    """⟨w_j, x_i⟩ for members: W (M, p, m), eps (M,) -> (M, n, m)."""
    M, p, m = W.shape
    sig = (d.signal @ _members_as_columns(W[:, :2])).view(-1, M, m).transpose(0, 1)
    if M * m <= NARROW:  # few neurons in all: the GEMM with the neurons as rows is faster (the same numbers)
        noi = (W[:, 2:].transpose(1, 2).reshape(M * m, p - 2) @ d.noise.T).view(M, m, -1).transpose(1, 2)
    else:
        noi = (d.noise @ _members_as_columns(W[:, 2:])).view(-1, M, m).transpose(0, 1)  # one GEMM for all members
    return sig + eps.view(-1, 1, 1) * noi


def init(M: int, p: int, m: int, w_std: float | None, a_std: float | None, seed: int):
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


def norm_ratio(W: torch.Tensor) -> torch.Tensor:
    """r_W (Sec. 3.2) = (‖W_{3:p,·}‖_F/√(p−2)) / (‖W_{1:2,·}‖_F/√2), per member: W (M, p, m)."""
    p = W.shape[1]
    noise = W[:, 2:].flatten(1).norm(dim=1) / math.sqrt(p - 2)
    sig = W[:, :2].flatten(1).norm(dim=1) / math.sqrt(2)
    return noise / sig


def neuron_features(W: torch.Tensor) -> dict:
    """For a weak net's neurons W (p, m): signal coordinates (m, 2), mean |noise| per neuron,
    the sign pattern (sgn w₁, sgn w₂) and |w₁|/|w₂| (Fig. 4c: three of the four ±[1, ±1])."""
    W = W.cpu()
    s = W[:2].T
    return {"signal": s.numpy(), "noise_mean_abs": W[2:].abs().mean(0).numpy(),
            "patterns": [tuple(int(v) for v in torch.sign(r)) for r in s],
            "ratio": (s[:, 0].abs() / s[:, 1].abs()).numpy()}


def embed(U: torch.Tensor, d: XORData, eps: float) -> torch.Tensor:
    """z = Uᵀx (n, k) for a transferred embedding U (p, k), without materialising x."""
    return d.signal @ U[:2] + eps * (d.noise @ U[2:])


def target_fl_init(k: int, m: int, v_init: float, seed: int):
    """The target f_L's fixed a (m,) ~ U{±1/√m} and initial V (k, m) ~ U({±v_init}^k) (Sec. 3.3)."""
    g = torch.Generator().manual_seed(seed)
    a = (torch.randint(0, 2, (m,), generator=g).float() * 2 - 1) / math.sqrt(m)
    V = (torch.randint(0, 2, (k, m), generator=g).float() * 2 - 1) * v_init
    return a, V


def target_fl_output(z: torch.Tensor, V: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """f_L(x) = Σ_j a_j φ(⟨v_j, z⟩) with z = Uᵀx: (n,)."""
    return torch.relu(z @ V) @ a
