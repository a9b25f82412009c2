"""Neural tangent kernels and what is measured with them (Kumar et al. 2024, §3, §5.3, §6.1, App. 14).

* :func:`empirical_ntk` — ``K(x, x') = Σ_θ ∂f(x)/∂θ · ∂f(x')/∂θ`` of any scalar-output model,
  from its autograd Jacobian;
* :func:`kernel_alignment` — the centred kernel–target alignment of the authors' code
  (``kalignment``): ``ỹᵀ K ỹ / (‖K − 1mᵀ‖_F ‖ỹ‖²)``, ``ỹ = y − ȳ``, ``m`` the column means
  (§5.3 writes ``‖y‖`` for ``‖y‖²``; the code's form is used);
* :func:`kernel_regression` — ridgeless regression with a kernel (the "lazy" solution);
* :func:`kernel_gd` — gradient descent of the linearised network, which is kernel GD in function
  space (App. 14), with optional heavy-ball momentum;
* :func:`eigenvector_labels` — labels from the j-th eigenvector of the initial NTK (§6.1, Fig. 5).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from companion.linalg import solve
from companion.store import slices

Tensor = torch.Tensor


def jacobian(f: Callable[[Tensor], Tensor], params: Tensor) -> Tensor:
    """``∂f/∂θ`` of a function of a flat parameter vector: ``(n_out, n_params)``."""
    return torch.autograd.functional.jacobian(f, params, vectorize=True)


def empirical_ntk(f: Callable[[Tensor, Tensor], Tensor], params: Tensor, XA: Tensor,
                  XB: Tensor | None = None) -> Tensor:
    """Empirical NTK ``J_A J_Bᵀ`` of a scalar-output model ``f(params, X) -> (n,)``."""
    JA = jacobian(lambda p: f(p, XA), params)
    JB = JA if XB is None else jacobian(lambda p: f(p, XB), params)
    return JA @ JB.T


def kernel_alignment(K: Tensor, y: Tensor) -> Tensor:
    """Centred kernel–target alignment (the authors' ``kalignment``), batched over leading axes."""
    yc = y - y.mean(-1, keepdim=True)
    Kc = K - K.mean(-2, keepdim=True)
    num = (yc[..., None, :] @ K @ yc[..., :, None])[..., 0, 0]
    return num / (torch.linalg.matrix_norm(Kc) * (yc * yc).sum(-1))


def kernel_regression(K_train: Tensor, K_test_train: Tensor, y: Tensor, ridge: float = 0.0) -> Tensor:
    """Predictions ``K(X_t, X) (K(X, X) + ridge·I)⁻¹ y`` (ridgeless by default)."""
    if ridge:
        K_train = K_train + ridge * torch.eye(K_train.shape[-1], dtype=K_train.dtype)
    return (K_test_train @ solve(K_train, y[..., None]))[..., 0]


def kernel_gd(K_train: Tensor, K_test_train: Tensor, y: Tensor, y_test: Tensor, lr: float, steps: int,
              log_at, f0: Tensor | None = None, f0_test: Tensor | None = None,
              momentum: float = 0.0) -> dict:
    """GD on ``L = mean((f − y)²)`` of the linearised network, run in function space (App. 14).

    ``f ← f − lr·(2/P)·K r`` on the training and test points (``K = J J_ᵀ`` of the linearised
    model, so this is exactly parameter-space GD of ``f0 + J(θ − θ0)``). With momentum ``μ``
    the parameter velocity ``v ← μv + ∇`` maps to ``u = Jv``: ``u ← μu + (2/P) K r``,
    ``f ← f − lr·u`` (heavy ball, as ``torch.optim.SGD``). Returns train/test MSE at ``log_at``.
    No network is trained here (the function values are the state), so this loop is not
    :func:`companion.train.fit.fit`'s.
    """
    P = y.shape[-1]
    f = torch.zeros_like(y) if f0 is None else f0.clone()
    ft = torch.zeros_like(y_test) if f0_test is None else f0_test.clone()
    u, ut = torch.zeros_like(f), torch.zeros_like(ft)
    logs = set(int(s) for s in np.asarray(log_at))
    tr, te = [], []
    for t in slices.steps(steps + 1, evals=logs):
        if t in logs:
            tr.append(((f - y) ** 2).mean(-1))
            te.append(((ft - y_test) ** 2).mean(-1))
        if t == steps:
            break
        r = (2.0 / P) * (f - y)
        u = momentum * u + (K_train @ r[..., None])[..., 0]
        ut = momentum * ut + (K_test_train @ r[..., None])[..., 0]
        f, ft = f - lr * u, ft - lr * ut
    return {"step": np.asarray(log_at), "train_loss": torch.stack(tr, -1).numpy(),
            "test_loss": torch.stack(te, -1).numpy()}


def eigenvector_labels(K: Tensor, j: int) -> Tensor:
    """Label vector = the j-th (1-based, by descending eigenvalue) eigenvector of ``K − mean(K)``
    (a scalar mean, as in the authors' Fig. 5 code), over all points of ``K``."""
    vals, vecs = torch.linalg.eigh(K - K.mean())
    order = torch.argsort(vals, descending=True)
    return vecs[:, order[j - 1]]
