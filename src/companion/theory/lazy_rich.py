"""Exact theory of the quadratic committee machine of Kumar et al. (2024), "Grokking as the
transition from lazy to rich training dynamics", §5 and App. 8–11.

Network (§5, eq. 3): ``f(x) = (α/N) Σ_i φ(w_i·x)`` with ``φ(h) = h + (ε/2) h²``; data
``x ~ N(0, I/D)``; target ``y = xᵀ T x`` (the paper's ``½(β·x)²`` is ``T = ββᵀ/2``; the
multi-index variant of App. 15.1 is ``T = ½ Σ_k β_k β_kᵀ``). The network depends on its
weights only through the sufficient statistics (eq. 4)

    w̄ = (1/N) Σ w_i,   M = (1/N) Σ w_i w_iᵀ,   f(x) = α w̄·x + (αε/2) xᵀ M x.

**Exact closure.** Under full-batch GD on the mean-squared loss with ``η = η0·N/α²`` every
neuron follows the same affine map ``w_i ← B w_i − b`` with ``B = I − kεG``, ``b = k g``,
``k = 2η0/(αP)``, ``g = Xᵀr``, ``G = Xᵀ diag(r) X`` and ``r`` the residuals. Hence

    w̄ ← B w̄ − b,   M ← B M B − (B w̄) bᵀ − b (B w̄)ᵀ + b bᵀ,

a recursion independent of the width N: N enters only through ``(w̄0, M0)``; the
infinite-width (mean-field) curve is ``w̄0 = 0, M0 = σ² I``. The linearised network
(App. 14) closes too, in ``(Δw̄, C)`` with ``C = (1/N) Σ w_i0 Δw_iᵀ``. Test losses are the exact
population losses of eq. 6 (no test sample needed).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from companion.linalg import solve
from companion.measures.ntk import kernel_alignment
from companion.store import slices

Tensor = torch.Tensor


# --------------------------------------------------------------------------- task
def quadratic_task(D: int, P: int, seed: int, n_index: int = 1, target_scale: float = 0.5,
                   batch: int = 1, dtype=torch.float64) -> dict[str, Tensor]:
    """Training data of the (multi-)index quadratic task, §5 / App. 15.1.

    ``X (batch, P, D)`` with rows ``N(0, I/D)``, ``β_k ~ N(0, I_D)``, target matrix
    ``T = target_scale · Σ_k β_k β_kᵀ`` and labels ``y = xᵀ T x``. Each batch entry has its own
    data drawn from ``seed + 1000·b``.
    """
    Xs, Ts, Bs = [], [], []
    for b in range(batch):
        g = torch.Generator().manual_seed(seed + 1000 * b)
        beta = torch.randn(n_index, D, generator=g, dtype=dtype)
        Xs.append(torch.randn(P, D, generator=g, dtype=dtype) / math.sqrt(D))
        Ts.append(target_scale * beta.T @ beta)
        Bs.append(beta)
    X, T = torch.stack(Xs), torch.stack(Ts)
    return {"X": X, "T": T, "beta": torch.stack(Bs), "y": quad_form(X, T)}


def quad_form(X: Tensor, A: Tensor) -> Tensor:
    """``xᵀ A x`` for every row of ``X (S, P, D)`` and ``A (S, D, D)`` -> ``(S, P)``."""
    return ((X @ A) * X).sum(-1)


def init_stats(W0: Tensor) -> tuple[Tensor, Tensor]:
    """``(w̄0, M0)`` of eq. 4 from weights ``W0 (S, N, D)``."""
    N = W0.shape[-2]
    return W0.mean(-2), W0.transpose(-1, -2) @ W0 / N


def infinite_width_stats(S: int, D: int, sigma: float | Tensor = 1.0, dtype=torch.float64):
    """Mean-field (N → ∞) initial statistics: ``w̄0 = 0``, ``M0 = σ² I``."""
    s2 = torch.as_tensor(sigma, dtype=dtype).reshape(-1, 1, 1) ** 2
    return torch.zeros(S, D, dtype=dtype), s2 * torch.eye(D, dtype=dtype).expand(S, D, D).clone()


# --------------------------------------------------------------------------- eq. 6
def population_terms(a: Tensor, A: Tensor, D: int) -> dict[str, Tensor]:
    """Exact ``E_x[(a·x + xᵀAx)²]`` for ``x ~ N(0, I/D)``, split as in eq. 6.

    ``a`` is the linear coefficient (``α Δw̄``), ``A`` the symmetric quadratic error matrix
    (``(αε/2) ΔM − T``). Returns ``variance = (Tr A)²/D²``, ``misalignment = 2‖A‖²_F/D²``,
    ``linear = |a|²/D`` and their sum ``total``.
    """
    tr = torch.diagonal(A, dim1=-2, dim2=-1).sum(-1)
    var = tr ** 2 / D ** 2
    mis = 2 * (A * A).sum((-1, -2)) / D ** 2
    lin = (a * a).sum(-1) / D
    return {"variance": var, "misalignment": mis, "linear": lin, "total": var + mis + lin}


def eq6_terms(wbar: Tensor, M: Tensor, beta: Tensor, alpha, eps) -> dict[str, Tensor]:
    """Eq. 6 exactly as printed (target ``½(β·x)²``): variance, misalignment, linear power."""
    D = beta.shape[-1]
    al, ep = _col(alpha, M), _col(eps, M)
    trM = torch.diagonal(M, dim1=-2, dim2=-1).sum(-1)
    b2 = (beta * beta).sum(-1)
    var = 0.25 * (b2 / D - al * ep * trM / D) ** 2
    E = al[:, None, None] * ep[:, None, None] * M - beta[..., :, None] * beta[..., None, :]
    mis = (E * E).sum((-1, -2)) / (2 * D ** 2)
    lin = al ** 2 / D * (wbar * wbar).sum(-1)
    return {"variance": var, "misalignment": mis, "linear": lin, "total": var + mis + lin}


def _col(v, ref: Tensor) -> Tensor:
    return torch.as_tensor(v, dtype=ref.dtype).to(ref.device).reshape(-1).expand(ref.shape[0])


# --------------------------------------------------------------------------- NTK from statistics
def ntk_from_stats(XA: Tensor, XB: Tensor, wbar: Tensor, M: Tensor, eps) -> Tensor:
    """NTK of the committee machine up to its ``α²/N`` prefactor (§5, eq. 5, App. 11):
    ``K(x,x') = (x·x')[1 + ε w̄·(x+x') + ε² xᵀ M x']``. Shapes ``(S, n, D)`` -> ``(S, nA, nB)``."""
    ep = _col(eps, M)[:, None, None]
    lin = XA @ XB.transpose(-1, -2)
    ua, ub = XA @ wbar[..., None], XB @ wbar[..., None]
    quad = XA @ M @ XB.transpose(-1, -2)
    return lin * (1 + ep * (ua + ub.transpose(-1, -2)) + ep ** 2 * quad)


def k0_regression_coeffs(X: Tensor, y: Tensor, wbar0: Tensor, M0: Tensor, eps, ridge: float = 0.0):
    """Ridgeless kernel regression with the initial NTK (Fig. 1's horizontal line), as a
    quadratic predictor ``a·x + xᵀQx``: returns ``(a, Q)`` with Q symmetric.

    With ``c = K0(X,X)⁻¹ y`` the predictor ``Σ_μ c_μ K0(x, x_μ)`` expands to
    ``a = Xᵀ(c ⊙ (1 + εXw̄0))`` and ``Q = ε (Xᵀc) w̄0ᵀ + ε² Xᵀ diag(c) X M0``.
    """
    K = ntk_from_stats(X, X, wbar0, M0, eps)
    if ridge:
        K = K + ridge * torch.eye(K.shape[-1], dtype=K.dtype)
    c = solve(K, y[..., None])[..., 0]  # (S, P)
    return predictor_coeffs(X, c, wbar0, M0, eps)


def k0_regression_loss(X, y, T, wbar0, M0, eps, ridge: float = 0.0) -> Tensor:
    """Population test MSE (eq. 6 form) of the K0 kernel-regression predictor."""
    a, Q = k0_regression_coeffs(X, y, wbar0, M0, eps, ridge)
    return population_terms(a, Q - T, X.shape[-1])["total"]


# --------------------------------------------------------------------------- the closure
def run_closure(X: Tensor, y: Tensor, T: Tensor | None, wbar0: Tensor, M0: Tensor, alpha, eps, eta0,
                steps: int, log_at, centred: bool = True, linearised: bool = False,
                X_test: Tensor | None = None, y_test: Tensor | None = None,
                cka_X: Tensor | None = None, cka_y: Tensor | None = None, cka_every: int = 0,
                wd=0.0) -> dict:
    """Full-batch GD of the committee machine (or its linearisation), batched over a leading
    axis S of independent runs (own data, init, α, ε, η0), via the exact (w̄, M) closure.

    Returns numpy arrays ``(S, len(log_at))``: ``train_loss``, and with ``T`` the population
    ``test_loss`` and its eq. 6 terms (``variance``, ``misalignment``, ``linear``); with
    ``X_test`` the empirical ``test_loss``; ``weight_norm2`` (``‖W‖²_F/N = Tr M``) and
    ``rel_change2`` (``‖W−W0‖²_F/‖W0‖²_F``). With ``cka_X`` the centred kernel–target alignment
    of the current NTK every ``cka_every`` steps (``cka_step``, ``cka``). ``P`` per run may be
    padded with zero rows (``y = 0``): such rows have zero residual; pass the true counts by
    making ``eta0`` already include ``P_pad/P_true``. ``wd`` (per run, network only) is a decoupled
    weight decay κ: each step first multiplies every weight by ``1 − η0κ`` (``B → (1 − η0κ)I − kεG``),
    a map that is still affine in ``w_i``, so the closure stays exact.

    This is the one loop of the chapter outside :func:`companion.train.fit.fit`: it iterates
    the exact closure of the sufficient statistics, not the parameters of a network (the
    network itself, :func:`companion.train.committee.run_committee`, is trained by ``fit``).
    """
    S, P, D = X.shape
    dt = X.dtype
    al, ep, e0 = (_col(v, M0) for v in (alpha, eps, eta0))
    k = (2 * e0 / (al * P))[:, None]  # (S, 1)
    log_at = np.asarray(log_at)
    logs = set(int(s) for s in log_at)
    Xt = X.transpose(-1, -2)
    w = wbar0.clone()  # linearised: the state is (w̄, C)
    C = torch.zeros_like(M0)  # linearised: (1/N) Σ w_i0 Δw_iᵀ
    # the network: every neuron's affine map [w_i; 1] ← A [w_i; 1], A = [[B, −b], [0, 1]], moves the second
    # moments of [w_i; 1] as M1 ← A M1 Aᵀ (M1 = [[M, w̄], [w̄ᵀ, 1]]) and R1 ← A R1 (R1 = (1/N) Σ [w_i; 1][w_i0; 1]ᵀ,
    # for the relative change); with x1 = [x; 1] the residual is x1ᵀ Q1 x1 − y and X1ᵀ diag(r) X1 = [[G, g], [gᵀ, ·]]
    X1 = torch.cat([X, torch.ones(S, P, 1, dtype=dt, device=X.device)], -1)  # (S, P, D + 1)
    X1t = X1.transpose(-1, -2)
    Phi = _shared_outer(X1)  # runs in blocks sharing their inputs: the outer products x1 x1ᵀ once per block
    M1 = torch.cat([torch.cat([M0, wbar0[..., None]], -1),
                    torch.cat([wbar0[:, None, :], torch.ones(S, 1, 1, dtype=dt, device=X.device)], -1)], -2)
    R1, M10 = M1.clone(), (M1.clone() if centred else torch.zeros_like(M1))
    Lam = torch.zeros_like(M1)  # Q1 = Λ ⊙ (M1 − M10): the quadratic part (αε/2)ΔM, the linear part α Δw̄ halved
    Lam[:, :D, :D] = (al * ep / 2)[:, None, None]
    Lam[:, :D, D] = Lam[:, D, :D] = (al / 2)[:, None]
    kmask = torch.zeros_like(M1)  # A = I − kmask ⊙ (X1ᵀ diag(r) X1)
    kmask[:, :D, :D] = (k * ep[:, None])[..., None]
    kmask[:, :D, D] = k
    shrink = torch.ones(S, D + 1, dtype=dt, device=X.device)  # A = diag(shrink) − kmask ⊙ G1
    shrink[:, :D] -= (e0 * _col(wd, M0))[:, None]
    eye1 = torch.diag_embed(shrink)  # the identity, shrunk by the weight decay
    out: dict[str, list] = {k_: [] for k_ in ("train_loss", "test_loss", "variance", "misalignment",
                                              "linear", "weight_norm2", "rel_change2", "cka")}
    cka_steps: list[int] = []
    tr0 = torch.diagonal(M0, dim1=-2, dim2=-1).sum(-1)

    def coeffs():
        if linearised:
            return al[:, None] * w if not centred else al[:, None] * (w - wbar0), \
                (al * ep)[:, None, None] * (C + C.transpose(-1, -2)) / 2 + \
                ((al * ep / 2)[:, None, None] * M0 if not centred else 0)
        Q1 = Lam * (M1 - M10)
        return 2 * Q1[:, :D, D], Q1[:, :D, :D]

    def record(t: int):
        a, Q = coeffs()
        f = X @ a[..., None]
        r = f[..., 0] + quad_form(X, Q) - y
        out["train_loss"].append((r * r).mean(-1))
        if T is not None:
            terms = population_terms(a, Q - T, D)
            for key in ("variance", "misalignment", "linear"):
                out[key].append(terms[key])
            out["test_loss"].append(terms["total"])
        elif X_test is not None:
            rt = (X_test @ a[..., None])[..., 0] + quad_form(X_test, Q) - y_test
            out["test_loss"].append((rt * rt).mean(-1))
        M, R = (M1[:, :D, :D], R1[:, :D, :D]) if not linearised else (M0, M0)
        trM = torch.diagonal(M, dim1=-2, dim2=-1).sum(-1)
        trR = torch.diagonal(R, dim1=-2, dim2=-1).sum(-1)
        out["weight_norm2"].append(trM)
        out["rel_change2"].append((trM - 2 * trR + tr0) / tr0)
        if cka_X is not None and cka_every and t % cka_every == 0:
            K = ntk_from_stats(cka_X, cka_X, w if linearised else M1[:, :D, D], M, ep)
            out["cka"].append(kernel_alignment(K, cka_y))
            cka_steps.append(t)

    def save() -> dict:
        return {"M1": M1, "R1": R1, "w": w, "C": C, "out": {k_: list(v) for k_, v in out.items()},
                "cka_steps": list(cka_steps)}

    def load(s: dict) -> None:
        nonlocal M1, R1, w, C
        M1, R1, w, C = (s[k_].to(X.device) for k_ in ("M1", "R1", "w", "C"))
        for k_, v in s["out"].items():
            out[k_][:] = [x.to(X.device) for x in v]
        cka_steps[:] = s["cka_steps"]

    evals = lambda t: t in logs or (cka_X is not None and cka_every and t % cka_every == 0)  # noqa: E731
    for t in slices.steps(steps + 1, evals=evals, save=save, load=load):
        if evals(t):
            record(t)
        if t == steps:
            break
        if linearised:
            a, Q = coeffs()
            r = (X @ a[..., None])[..., 0] + quad_form(X, Q) - y  # (S, P)
            g = (Xt @ r[..., None])[..., 0]  # (S, D)
            G = Xt @ (r[..., None] * X)  # (S, D, D)
            w = w - k * g - k * ep[:, None] * (G @ wbar0[..., None])[..., 0]
            C = C - k[..., None] * (wbar0[..., :, None] * g[..., None, :]
                                    + ep[:, None, None] * (M0 @ G))
            continue
        Q1 = Lam * (M1 - M10)
        if Phi is None:
            r = ((X1 @ Q1) * X1).sum(-1) - y  # (S, P)
            G1 = X1t @ (r[..., None] * X1)
        else:  # the same sums as one matrix product per block: r = Φ vec(Q1) − y, vec(G1) = Φᵀ r
            g_, m_ = Phi.shape[0], S // Phi.shape[0]
            r = (Q1.reshape(g_, m_, -1) @ Phi.transpose(-1, -2)).reshape(S, P) - y
            G1 = (r.reshape(g_, m_, P) @ Phi).reshape(S, D + 1, D + 1)
        A = torch.addcmul(eye1, kmask, G1, value=-1)  # (S, D + 1, D + 1)
        M1 = A @ M1 @ A.transpose(-1, -2)
        R1 = A @ R1
    # the record at a step both logged and a cka step is taken once; split the two streams
    rec_steps = sorted(logs | (set(range(0, steps + 1, cka_every)) if cka_X is not None and cka_every else set()))
    rec_steps = [s for s in rec_steps if s <= steps][:len(out["train_loss"])]  # fewer in a probe
    idx = [rec_steps.index(int(s)) for s in log_at if int(s) in rec_steps]
    res = {"step": log_at[:len(idx)].copy()}
    for key, vals in out.items():
        if not vals or key == "cka":
            continue
        arr = torch.stack(vals, -1).cpu().numpy()
        res[key] = arr[:, idx]
    if out["cka"]:
        res["cka_step"] = np.asarray(cka_steps)
        res["cka"] = torch.stack(out["cka"], -1).cpu().numpy()
    return res


def _shared_outer(X1: Tensor, min_block: int = 4, max_elements: int = 20_000_000) -> Tensor | None:
    """``(g, P, D1²)`` rows ``vec(x1 x1ᵀ)`` when the S runs of ``X1 (S, P, D1)`` come in g equal blocks of
    ≥ ``min_block`` consecutive runs on the same inputs (a sweep's values for each seed), else None: the
    residual and ``X1ᵀ diag(r) X1`` of a block are then one matrix product each instead of one per run.
    Float32 only: measured 8–42% faster per step on the cpu sweeps of Figs. 3 and 7, but slower in float64
    (Fig. 10's N = 2 sweep, 3.3 s against 5 s for 2000 steps)."""
    S, P, D1 = X1.shape
    if X1.dtype != torch.float32:
        return None
    same = [bool(torch.equal(X1[i], X1[i - 1])) for i in range(1, S)]
    starts = [0] + [i for i in range(1, S) if not same[i - 1]]
    m = S // len(starts)
    if m < min_block or S % m or any(b != i * m for i, b in enumerate(starts)) \
            or len(starts) * P * D1 * D1 > max_elements:
        return None
    Xg = X1[::m]
    return (Xg[..., :, None] * Xg[..., None, :]).reshape(len(starts), P, D1 * D1)


def predictor_coeffs(X: Tensor, c: Tensor, wbar0: Tensor, M0: Tensor, eps) -> tuple[Tensor, Tensor]:
    """``Σ_μ c_μ K0(x, x_μ)`` as a quadratic predictor ``a·x + xᵀQx`` (K0 without its α²/N):
    ``a = Xᵀ(c ⊙ (1 + εXw̄0))``, ``Q = sym(ε (Xᵀc) w̄0ᵀ + ε² Xᵀ diag(c) X M0)``."""
    ep = _col(eps, M0)[:, None, None]
    c = c[..., None]
    u = X @ wbar0[..., None]
    a = (X.transpose(-1, -2) @ (c * (1 + ep * u)))[..., 0]
    Q = ep * (X.transpose(-1, -2) @ c) @ wbar0[:, None, :] + ep ** 2 * X.transpose(-1, -2) @ (c * X) @ M0
    return a, 0.5 * (Q + Q.transpose(-1, -2))


def linearised_exact(X: Tensor, y: Tensor, T: Tensor, wbar0: Tensor, M0: Tensor, alpha, eps, eta0,
                     log_at, centred: bool = True) -> dict:
    """The linearised network (App. 14) in closed form: GD on it is kernel GD with the initial NTK,
    ``f ← f − (2η0/P) K r`` (``η K_true = η0 K``), so with ``K = VΛVᵀ`` the train residual is
    ``r_t = V(1 − 2η0Λ/P)^t Vᵀ r_0`` and the function change anywhere is ``Σ_μ c_μ K(x, x_μ)``
    with ``c = V[((1 − 2η0λ/P)^t − 1)/λ]Vᵀ r_0``; test losses are exact population losses."""
    S, P, D = X.shape
    al, ep, e0 = (_col(v, M0) for v in (alpha, eps, eta0))
    K = ntk_from_stats(X, X, wbar0, M0, ep)
    lam, V = torch.linalg.eigh(K)
    f0 = (al[:, None] * (X @ wbar0[..., None])[..., 0] + quad_form(X, (al * ep / 2)[:, None, None] * M0)) \
        if not centred else torch.zeros_like(y)
    r0 = f0 - y
    z0 = (V.transpose(-1, -2) @ r0[..., None])[..., 0]
    train, test, terms = [], [], {"variance": [], "misalignment": [], "linear": []}
    for t in np.asarray(log_at):
        decay = (1 - 2 * e0[:, None] * lam / P) ** float(t)
        r = (V @ (decay * z0)[..., None])[..., 0]
        c = (V @ ((decay - 1) / lam * z0)[..., None])[..., 0]
        a, Q = predictor_coeffs(X, c, wbar0, M0, ep)
        if not centred:
            a = a + al[:, None] * wbar0
            Q = Q + (al * ep / 2)[:, None, None] * M0
        pt = population_terms(a, Q - T, D)
        train.append((r * r).mean(-1))
        test.append(pt["total"])
        for k in terms:
            terms[k].append(pt[k])
    out = {"step": np.asarray(log_at), "train_loss": torch.stack(train, -1).numpy(),
           "test_loss": torch.stack(test, -1).numpy()}
    out.update({k: torch.stack(v, -1).numpy() for k, v in terms.items()})
    return out


# --------------------------------------------------------------------------- App. 11
def initial_kernel_eigenvalues(D: int, eps: float, n: int = 3000, seed: int = 0) -> dict[str, float]:
    """Monte Carlo eigenvalues of the infinite-width initial NTK ``K(x,x') = x·x' + ε²(x·x')²``
    (eq. 5 with w̄ = 0, M = I) over ``x ~ N(0, I/D)``: the Rayleigh quotient
    ``E[q(x)K(x,x')q(x')] / E[q²]`` of a linear function ``q = β·x`` and of a traceless quadratic
    ``q = (β·x)² − |β|²/D`` (independent pairs x, x' from ``n`` samples; App. 11: λ_lin = 1/D,
    λ_quad = 2ε²/D²)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, D, generator=g, dtype=torch.float64) / math.sqrt(D)
    beta = torch.randn(D, generator=g, dtype=torch.float64)
    G = X @ X.T
    G.fill_diagonal_(0.0)  # independent pairs only
    # x → −x is a symmetry of the data: the odd (linear) part of K is orthogonal to even q and the
    # even (quadratic) part to odd q, so each quotient uses its own part of K (less Monte Carlo noise)
    out = {}
    for name, q, K in (("lin", X @ beta, G), ("quad", (X @ beta) ** 2 - beta.dot(beta) / D, eps ** 2 * G ** 2)):
        out[name] = float(q @ K @ q / (n * (n - 1)) / (q * q).mean())
    return out
