"""The training loops of Kumar et al. (2024), all by :func:`companion.train.fit.fit` with
:class:`~companion.train.optim.BatchedOptimizer` (one member per run, scale or α; the committee machine of §5
trains in :mod:`companion.train.committee`):

* :func:`train_modular_mlp` — App. 8.3: two-layer MLP with ``x²`` activation on one-hot modular
  addition, MSE, plain GD, no weight decay (Figs. 2, 16), batched over output scales; gradient
  written out (checked against autograd in the tests).
* :func:`train_student_teacher` — App. 8.3.1 (Liu et al. 2022a): tanh MLP student of a tanh MLP
  teacher, output × scale, AdamW (Figs. 8, 17, 18), batched over scales.
* :func:`train_st_linearised` — App. 14 Fig. 13b: a bias-free tanh student and its linearisation
  around init, both with AdamW.
* :func:`train_digits_mlp` — Fig. 6a (Omnigrok MNIST protocol) on a digits dataset, output × α,
  centred, AdamW, batched over α.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from companion.models.lazy_rich import tanh_mlp, tanh_mlp_params, torch_linear_init
from companion.train.fit import fit
from companion.train.history import history_state
from companion.train.optim import BatchedOptimizer

Tensor = torch.Tensor


def _onehot(idx: Tensor, n: int, dtype=torch.float32) -> Tensor:
    return torch.nn.functional.one_hot(idx, n).to(dtype)


def train_modular_mlp(data, scales, N: int, steps: int, log_at, lr0: float = 100.0, seed: int = 0,
                      init_seeds: tuple = (), device: str = "cpu") -> dict:
    """App. 8.3: ``out = W2 (W1 x)² · s²/(D N)``, ``x = [onehot(a), onehot(b)]``, loss
    ``MSE(out, onehot(c))/s²``, GD with lr ``lr0/s²``, no weight decay; W1, W2 ~ N(0, 1),
    the same init for every scale. Returns accuracy, MSE (without the 1/s²) and
    ``‖W1‖_F + ‖W2‖_F`` at ``log_at``, each ``(S, n_log)``. Trained by
    :func:`companion.train.fit.fit` with the gradient written out (``gradient=``; checked
    against autograd in ``tests/test_lazy_rich.py``) and plain GD, ``BatchedOptimizer("sgd")``
    with one learning rate per scale. With ``init_seeds`` every scale runs from each seed's own
    init (runs seed-major: all scales of the first seed, then the next), else from ``seed``'s. The inits are
    drawn on the host (the same draws on any device) and trained on ``device``."""
    data = data.to(device)
    p = data.p
    D = 2 * p
    seeds = tuple(init_seeds) or (seed,)
    s = torch.as_tensor(scales, dtype=torch.float32).repeat(len(seeds)).to(device)
    W1s, W2s = [], []
    for sd in seeds:
        g = torch.Generator().manual_seed(sd)
        W1s += [torch.randn(N, D, generator=g)] * len(scales)
        W2s += [torch.randn(p, N, generator=g)] * len(scales)
    W1t = torch.stack(W1s).transpose(-1, -2).contiguous().to(device)  # (S, D, N): W1ᵀ, one row per one-hot input
    W2 = torch.stack(W2s).clone().to(device)
    S = len(s)
    Ytr, Yte = _onehot(data.train_y, p), _onehot(data.test_y, p)
    c = (s ** 2 / (D * N))[:, None, None]
    n = len(Ytr)
    hist: dict[str, list] = {k: [] for k in ("train_acc", "test_acc", "train_loss", "test_loss", "norm")}

    def rows(x: Tensor) -> tuple[Tensor, Tensor]:
        """Rows of ``W1ᵀ`` viewed ``(S·D, N)`` that the one-hot inputs ``[onehot(a), onehot(b)]`` pick, per run."""
        off = (torch.arange(S, device=x.device) * D)[:, None]
        return (off + x[:, 0]).reshape(-1), (off + p + x[:, 1]).reshape(-1)

    itr, ite = rows(data.train_x), rows(data.test_x)
    Xtr = torch.cat([_onehot(data.train_x[:, 0], p), _onehot(data.train_x[:, 1], p)], 1)  # (n, D)

    def fwd(ix):
        """``h = onehot(x) W1ᵀ`` as the sum of W1ᵀ's two rows of (a, b): the same floats as the product
        with the one-hot inputs (every other term is an exact zero), without its multiplies."""
        W = W1t.view(S * D, N)
        h = (W.index_select(0, ix[0]) + W.index_select(0, ix[1])).view(S, -1, N)  # (S, n, N)
        return h, c * (h * h) @ W2.transpose(-1, -2)

    def record(t: int) -> None:
        _, out = fwd(itr)
        _, ote = fwd(ite)
        hist["train_acc"].append((out.argmax(-1) == data.train_y).float().mean(-1))
        hist["test_acc"].append((ote.argmax(-1) == data.test_y).float().mean(-1))
        hist["train_loss"].append(((out - Ytr) ** 2).mean((-1, -2)))
        hist["test_loss"].append(((ote - Yte) ** 2).mean((-1, -2)))
        hist["norm"].append(W1t.norm(dim=(-1, -2)) + W2.norm(dim=(-1, -2)))

    def gradient(t: int) -> list[Tensor]:
        h, out = fwd(itr)
        dout = 2 * (out - Ytr) / (n * p) / (s ** 2)[:, None, None]
        gW2 = c * dout.transpose(-1, -2) @ (h * h)
        dh = c * (dout @ W2) * 2 * h
        return [Xtr.T @ dh, gW2]  # Σ_μ onehot(x_μ) dh_μᵀ (a product: a scatter-add is slower on the CPU)

    fit([W1t, W2], BatchedOptimizer([W1t, W2], "sgd", lr0 / s ** 2), steps, evals=np.asarray(log_at),
        record=record, gradient=gradient, state=history_state(hist))
    return {"step": np.asarray(log_at), **{k: torch.stack(v, -1).cpu().numpy() for k, v in hist.items()}}


@dataclass(frozen=True)
class StudentTeacherTraining:
    """How :func:`train_student_teacher` trains (App. 8.3.1, after Liu et al. 2022a): full-batch AdamW of tanh
    MLP students d-width-width-d on n samples of a tanh teacher, logged at ``log_at``."""

    steps: int  # AdamW steps
    log_at: Any  # the logged steps
    width: int = 100  # hidden width
    d: int = 5  # input and output dimension
    n: int = 100  # training samples (and as many test samples)
    lr: float = 3e-4  # AdamW learning rate
    weight_decay: float = 0.05  # AdamW weight decay
    init_mult: float = 2.0  # the student's initial parameters × init_mult
    thresholds: tuple = (1e-3,)  # a sample is correct when its MSE is below a threshold


def train_student_teacher(scales, how: StudentTeacherTraining, seeds: tuple = (0,), device: str = "cpu") -> dict:
    """App. 8.3.1, as ``how`` says: teacher (seed 3s) and student (seed 3s+1, all parameters × ``init_mult``) tanh
    MLPs d-width-width-d, data seed 3s+2, for each ``s`` in ``seeds``; the student's output is
    multiplied by the scale; full-batch AdamW on the per-sample MSE (mean over outputs). Accuracy =
    fraction of samples with MSE < threshold. Runs are seed-major (all scales of the first seed, ...).
    Teacher, data and students are drawn on the host (the same draws on any device), trained on ``device``."""
    steps, log_at, width, d, n = how.steps, how.log_at, how.width, how.d, how.n
    lr, wd, init_mult, thresholds = how.lr, how.weight_decay, how.init_mult, how.thresholds
    widths = (d, width, width, d)
    K = len(scales)
    Xs, Ys, Xts, Yts, studs = [], [], [], [], []
    for sd in seeds:
        teacher = tanh_mlp_params(widths, 3 * sd)
        g = torch.Generator().manual_seed(3 * sd + 2)
        Xtr, Xte = torch.randn(n, d, generator=g), torch.randn(n, d, generator=g)
        with torch.no_grad():
            Ytr, Yte = tanh_mlp(teacher, Xtr), tanh_mlp(teacher, Xte)
        Xs += [Xtr] * K
        Ys += [Ytr] * K
        Xts += [Xte] * K
        Yts += [Yte] * K
        studs += [tanh_mlp_params(widths, 3 * sd + 1, init_mult)] * K
    Xtr, Ytr, Xte, Yte = (torch.stack(v).to(device) for v in (Xs, Ys, Xts, Yts))
    sc = torch.as_tensor(scales, dtype=torch.float32).repeat(len(seeds)).to(device)
    S = len(sc)
    params = [torch.stack([st[i] for st in studs]).clone().to(device).requires_grad_(True)
              for i in range(len(studs[0]))]
    hist: dict[str, list] = {"train_loss": [], "test_loss": [], "train_err": [], "test_err": []}

    def errors(X: Tensor, Y: Tensor) -> Tensor:
        return ((sc[:, None, None] * tanh_mlp(params, X) - Y) ** 2).mean(-1)  # (S, n)

    @torch.no_grad()
    def record(t: int) -> None:
        err, ete = errors(Xtr, Ytr), errors(Xte, Yte)
        hist["train_err"].append(err)
        hist["test_err"].append(ete)
        hist["train_loss"].append(err.mean(-1))
        hist["test_loss"].append(ete.mean(-1))

    fit(params, BatchedOptimizer(params, "adamw", torch.full((S,), lr, device=device), wd), steps,
        evals=np.asarray(log_at), record=record, loss=lambda t: errors(Xtr, Ytr).mean(-1).sum(),
        state=history_state(hist))
    res = {"step": np.asarray(log_at), **{k: torch.stack(v, -1).cpu().numpy() for k, v in hist.items()
                                          if k.endswith("loss")}}
    tr, te = torch.stack(hist["train_err"], -1).cpu(), torch.stack(hist["test_err"], -1).cpu()  # (S, n, T)
    res["thresholds"] = list(thresholds)
    res["train_acc"] = np.stack([(tr < th).float().mean(1).numpy() for th in thresholds], 1)  # (S, n_th, T)
    res["test_acc"] = np.stack([(te < th).float().mean(1).numpy() for th in thresholds], 1)
    return res


def train_st_linearised(steps: int, log_at, width: int = 100, d: int = 5, n: int = 100,
                        lr: float = 3e-3, wd: float = 0.1, seeds: tuple = (0,)) -> dict:
    """App. 14, Fig. 13b: bias-free ``f = W3 tanh(W2 tanh(W1 x))`` student and teacher with
    N(0,1) weights in NTK parameterisation (each layer divided by √fan_in), trained with AdamW,
    and the student's linearisation ``f0 + J(θ − θ0)`` (a ``torch.func.jvp`` at θ0) trained the same way.
    For each ``s`` in ``seeds``: teacher seed 10s, student seed 10s + 1, data seed 10s + 3; the
    seeds are one batched tensor program (the stacked parameters through batched matmuls). Returns
    ``(len(seeds), len(log_at))`` arrays."""
    def init(seed):
        g = torch.Generator().manual_seed(seed)
        return [torch.randn(width, d, generator=g), torch.randn(width, width, generator=g),
                torch.randn(d, width, generator=g)]

    def f(ps, x):
        W1, W2, W3 = ps
        h = torch.tanh(x @ W1.T / math.sqrt(d))
        h = torch.tanh(h @ W2.T / math.sqrt(width))
        return h @ W3.T / math.sqrt(width)

    shapes = [p.shape for p in init(1)]

    def batched_f(v, X):
        """The flattened outputs of every seed's net: ``v (S, n_params)``, ``X (S, n, d)``."""
        ps, i = [], 0
        for s in shapes:
            k = int(np.prod(s))
            ps.append(v[:, i:i + k].reshape(len(v), *s).transpose(-1, -2))
            i += k
        h = torch.tanh(X @ ps[0] / math.sqrt(d))
        h = torch.tanh(h @ ps[1] / math.sqrt(width))
        return (h @ ps[2] / math.sqrt(width)).reshape(len(v), -1)

    Xtr, Xte, Ytr, Yte, th0 = [], [], [], [], []
    for s in seeds:
        g = torch.Generator().manual_seed(10 * s + 3)
        xtr, xte = torch.randn(n, d, generator=g), torch.randn(n, d, generator=g)
        teacher = init(10 * s)
        theta0 = torch.cat([p.reshape(-1) for p in init(10 * s + 1)])
        Xtr.append(xtr), Xte.append(xte), th0.append(theta0)
        Ytr.append(f(teacher, xtr).reshape(-1)), Yte.append(f(teacher, xte).reshape(-1))
    Xtr, Xte, yt, ye, theta0 = (torch.stack(v) for v in (Xtr, Xte, Ytr, Yte, th0))
    f0tr, f0te = batched_f(theta0, Xtr).detach(), batched_f(theta0, Xte).detach()
    th_net = theta0.clone().requires_grad_(True)
    th_lin = theta0.clone().requires_grad_(True)
    hist: dict[str, list] = {k: [] for k in ("train_loss", "test_loss", "lin_train", "lin_test")}

    def losses(X: Tensor, y: Tensor, f0: Tensor) -> tuple[Tensor, Tensor]:
        """(network, linearised) MSE per seed; ``J(θ0)(θ − θ0)`` by one forward-mode product
        (``torch.func.jvp``) at θ0, no Jacobian formed (gradients flow through the tangent)."""
        from torch.func import jvp

        _, jdv = jvp(lambda v: batched_f(v, X), (theta0,), (th_lin - theta0,))
        return ((batched_f(th_net, X) - y) ** 2).mean(-1), ((f0 + jdv - y) ** 2).mean(-1)

    @torch.no_grad()
    def record(t: int) -> None:
        (ln, ll), (lnt, llt) = losses(Xtr, yt, f0tr), losses(Xte, ye, f0te)
        for k, v in zip(("train_loss", "lin_train", "test_loss", "lin_test"), (ln, ll, lnt, llt)):
            hist[k].append(v.numpy())

    def loss(t: int) -> Tensor:  # the sum: each model's and seed's gradient is its own
        ln, ll = losses(Xtr, yt, f0tr)
        return ln.sum() + ll.sum()

    params = [th_net, th_lin]
    fit(params, BatchedOptimizer(params, "adamw", torch.full((len(seeds),), lr), wd), steps,
        evals=np.asarray(log_at), record=record, loss=loss, state=history_state(hist))
    return {"step": np.asarray(log_at), **{k: np.stack(v, 1) for k, v in hist.items()}}


@dataclass(frozen=True)
class DigitsTraining:
    """How :func:`train_digits_mlp` trains (Fig. 6a, the Omnigrok protocol of Liu et al. 2022a): AdamW on
    mini-batches of a ReLU MLP, logged at ``log_at``."""

    steps: int  # AdamW steps
    log_at: Any  # the logged steps
    width: int = 200  # hidden width
    depth: int = 3  # hidden layers
    init_mult: float = 8.0  # PyTorch's default initialisation × init_mult
    lr: float = 1e-3  # AdamW learning rate
    weight_decay: float = 0.01  # AdamW weight decay
    batch: int = 200  # mini-batch size


def train_digits_mlp(splits, alphas, how: DigitsTraining, seeds: tuple = (0,)) -> dict:
    """Fig. 6a as ``how`` says (Omnigrok protocol, Liu et al. 2022a): ReLU MLP, PyTorch default init × ``init_mult``,
    output ``α(f − f0)`` (centred), MSE on one-hot targets, AdamW, mini-batches cycling through the
    training set. ``splits[j] = (X_train, y_train, X_test, y_test)`` belongs to ``seeds[j]`` (init
    seed s, mini-batch order seed s + 1); every (seed, α) is one member of a batched tensor program,
    seed-major, the α of a seed sharing its init. Returns ``(members, n_logged)`` accuracies."""
    steps, log_at, width, depth, init_mult = how.steps, how.log_at, how.width, how.depth, how.init_mult
    lr, wd, batch = how.lr, how.weight_decay, how.batch
    A = len(alphas)
    Xtr, ytr, Xte, yte = (torch.stack([sp[i] for sp in splits]).repeat_interleave(A, 0) for i in range(4))
    d, k = Xtr.shape[-1], int(max(ytr.max(), yte.max())) + 1
    widths = [d] + [width] * depth + [k]
    inits = []
    for sd in seeds:
        g = torch.Generator().manual_seed(sd)
        inits.append([])
        for a, b in zip(widths[:-1], widths[1:]):
            W, bias = torch_linear_init(a, b, g)
            inits[-1] += [W * init_mult, bias * init_mult]
    params = [torch.stack([ini[i] for ini in inits]).repeat_interleave(A, 0).requires_grad_(True)
              for i in range(len(inits[0]))]
    al = torch.as_tensor(alphas, dtype=torch.float32).repeat(len(seeds))
    S = len(al)

    def f(ps, x):
        h = x
        L = len(ps) // 2
        for i in range(L):
            h = h @ ps[2 * i].transpose(-1, -2) + ps[2 * i + 1][..., None, :]
            if i < L - 1:
                h = torch.relu(h)
        return h

    with torch.no_grad():
        f0tr, f0te = f(params, Xtr), f(params, Xte)
    Ytr = _onehot(ytr, k)  # (S, n, k)
    n = ytr.shape[1]
    perm = torch.stack([torch.randperm(n, generator=torch.Generator().manual_seed(sd + 1)) for sd in seeds])
    perm = perm.repeat_interleave(A, 0)  # (S, n): each member's mini-batch order, its seed's
    hist = {k_: [] for k_ in ("train_acc", "test_acc", "train_loss")}

    @torch.no_grad()
    def record(t: int) -> None:
        otr = al[:, None, None] * (f(params, Xtr) - f0tr)
        ote = al[:, None, None] * (f(params, Xte) - f0te)
        hist["train_acc"].append((otr.argmax(-1) == ytr).float().mean(-1))
        hist["test_acc"].append((ote.argmax(-1) == yte).float().mean(-1))
        hist["train_loss"].append(((otr - Ytr) ** 2).sum(-1).mean(-1))

    def rows(T: Tensor, idx: Tensor) -> Tensor:
        """``T[m, idx[m]]`` for every member m: (S, b, ...)."""
        return torch.gather(T, 1, idx[..., None].expand(-1, -1, T.shape[-1]))

    def loss(t: int) -> Tensor:
        """Mini-batch ``t``: the next ``batch`` indices of each member's fixed permutation, cycling."""
        i0 = (t * batch) % n
        idx = perm[:, i0:i0 + batch]
        out = al[:, None, None] * (f(params, rows(Xtr, idx)) - rows(f0tr, idx))
        return ((out - rows(Ytr, idx)) ** 2).sum(-1).mean(-1).sum()

    fit(params, BatchedOptimizer(params, "adamw", torch.full((S,), lr), wd), steps, evals=np.asarray(log_at),
        record=record, loss=loss, state=history_state(hist))
    return {"step": np.asarray(log_at), **{k_: torch.stack(v, -1).numpy() for k_, v in hist.items()}}
