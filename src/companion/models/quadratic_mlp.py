"""Modular addition with one-hot inputs, a quadratic 2-layer MLP and MSE loss (Gromov 2023),
the real-world check of Levi, Beck & Bar Sinai (ICLR 2024), App. G, Eq. 43.

h₁ = W₁x/√d_in (x = one-hot(a) ⊕ one-hot(b), d_in = 2p), z = h₁², out = W₂z/d_h, with
W₁, W₂ ~ N(0, 1) (mean-field parametrisation). Trained by full-batch GD without weight decay
(:func:`companion.train.linear_estimators.train_quadratic_mlp`) on
L = (1/N)Σ_i‖out(x_i) − onehot(c_i)‖²: summed over classes, averaged over samples (with torch's
mean-over-classes ``MSELoss`` the gradient is p times smaller, and at η = 500 nothing is learned
in 2000 steps). Several training fractions train at once (a leading batch axis) on the full p²
table (:func:`companion.data.modular.addition_table`) with per-fraction training masks
(:func:`companion.data.modular.split_masks`).
"""

from __future__ import annotations

import math

import torch

from companion.settings import one_of

#: the first layer's initialisations: N(0, 1) (both papers), or :func:`fourier_rows` (in order, or with the tokens
#: relabelled by a random permutation)
INITS = ("random", "fourier", "fourier_shuffled")
#: the Fourier rows' phases (and relabelling) are drawn from seed + this: a stream apart from the weights'
FOURIER_SEED_OFFSET = 10_007


def fourier_rows(p: int, d_h: int, seed: int, shuffled: bool = False, k: int = 1) -> torch.Tensor:
    """A uniform first layer W₁ = [U V] (d_h, 2p) for the one-hot pair (a, b): rows in pairs √2·cos, √2·sin of
    2πk·a/p + φ (U) and of 2πk·b/p + φ' (V), one random phase per pair. Each token's column is then a point of
    a regular p-gon in every pair's plane — an orbit of one rotation, so ‖u(a+1) − u(a)‖ is the same for every a
    and as small as a circle allows (normalised MED 2 sin(πk/p)) — with entries of unit mean square, as N(0, 1)'s;
    with gcd(k, p) = 1 one frequency suffices to read a + b mod p (Gromov 2023's solution uses this form).
    ``shuffled``: the same rows with the tokens relabelled by one random permutation (the same point cloud, norms
    and singular values, no longer uniform in the task's order). Float32."""
    if math.gcd(k, p) != 1:
        raise ValueError(f"the frequency k = {k} must be a unit of Z_{p}")
    g = torch.Generator().manual_seed(seed)
    n = (d_h + 1) // 2
    phase = 2 * math.pi * torch.rand(n, 2, generator=g, dtype=torch.float64)
    tokens = torch.randperm(p, generator=g) if shuffled else torch.arange(p)
    halves = []
    for j in range(2):  # U (first operand), V (second)
        theta = 2 * math.pi * k * tokens[None, :].double() / p + phase[:, j : j + 1]
        halves.append(math.sqrt(2) * torch.stack([theta.cos(), theta.sin()], 1).reshape(2 * n, p)[:d_h])
    return torch.cat(halves, 1).float()


def quadratic_mlp(W1: torch.Tensor, W2: torch.Tensor, a: torch.Tensor, b: torch.Tensor, p: int) -> torch.Tensor:
    """Outputs (B, p, n) of B nets W₁ (B, d_h, 2p), W₂ (B, p, d_h) on the pairs (a, b) (n each)."""
    x = torch.zeros(2 * p, len(a), dtype=W1.dtype, device=W1.device)
    n = torch.arange(len(a), device=W1.device)
    x[a, n], x[p + b, n] = 1.0, 1.0  # the one-hot inputs (2p, n): a matmul, whose backward is several times
    # faster than the gather W₁[:, :, a] + W₁[:, :, p + b] (the same sums, exactly)
    h1 = (W1 @ x) / math.sqrt(2 * p)  # (B, d_h, n): W₁x
    return W2 @ h1 ** 2 / W1.shape[1]


class QuadraticMLP(torch.nn.Module):
    """The same net as :func:`quadratic_mlp` as one ``nn.Module`` taking both papers' parameters:
    ``out = α²/(2p·d_h) · W₂ (W₁x)²`` on ``x = one-hot(a) ⊕ one-hot(b)``, W₁, W₂ ~ N(0, 1).

    Levi et al. App. G (Eq. 43) is α = 1 (``W₂(W₁x/√(2p))²/d_h``); Kumar et al. App. 8.3 is the
    output scale α = s (``s²/(D N)``, D = 2p, N = d_h), trained on the loss divided by α² with
    learning rate ∝ 1/α². Input: integer pairs (n, 2); output (n, p)."""

    def __init__(self, p: int, d_h: int, alpha: float = 1.0, seed: int = 0, init: str = "random"):
        super().__init__()
        one_of("first-layer init", init, INITS)
        g = torch.Generator().manual_seed(seed)
        self.p, self.d_h, self.alpha = p, d_h, alpha
        self.W1 = torch.nn.Parameter(torch.randn(d_h, 2 * p, generator=g))  # (d_h, 2p)
        self.W2 = torch.nn.Parameter(torch.randn(p, d_h, generator=g))  # (p, d_h)
        if init != "random":  # W₂ as the random init's (seed i against seed i); W₁ from a stream of its own
            with torch.no_grad():
                self.W1.copy_(fourier_rows(p, d_h, seed + FOURIER_SEED_OFFSET, shuffled=init == "fourier_shuffled"))

    @property
    def W_E(self) -> torch.Tensor:
        """The embedding of the first operand: column a of W₁, as a (p, d_h) table."""
        return self.W1[:, : self.p].T

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.W1[:, x[:, 0]] + self.W1[:, self.p + x[:, 1]]  # (d_h, n) = W₁x for one-hot x
        return (self.alpha ** 2 / (2 * self.p * self.d_h)) * (h * h).T @ self.W2.T


class LinearisedQuadraticMLP(QuadraticMLP):
    """Kumar et al. §3's lazy network: the first-order expansion of a :class:`QuadraticMLP` about its
    initialisation θ₀, f₀ + ∇f(θ₀)·(θ − θ₀), whose tangent kernel stays K₀ however it trains. With h = W₁x:
    ``c·[W₂ (h₀)² + 2 W₂⁰ (h₀ ⊙ (h − h₀))]``, c = α²/(2p·d_h) — the terms of c·(W₂⁰ + ΔW₂)(h₀ + Δh)² of order
    at most one in (ΔW₁, ΔW₂). Same parameters (θ₀ kept as buffers) and arguments."""

    def __init__(self, p: int, d_h: int, alpha: float = 1.0, seed: int = 0, init: str = "random"):
        super().__init__(p, d_h, alpha, seed, init)
        self.register_buffer("W1_0", self.W1.detach().clone())
        self.register_buffer("W2_0", self.W2.detach().clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h0 = self.W1_0[:, x[:, 0]] + self.W1_0[:, self.p + x[:, 1]]
        h = self.W1[:, x[:, 0]] + self.W1[:, self.p + x[:, 1]]
        c = self.alpha ** 2 / (2 * self.p * self.d_h)
        return c * ((h0 * h0).T @ self.W2.T + 2 * (h0 * (h - h0)).T @ self.W2_0.T)
