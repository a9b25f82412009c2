"""The non-polynomial experiments of Kumar et al. (2024), as plain batched training functions.

* :func:`train_modular_mlp` — App. 8.3: two-layer MLP with ``x²`` activation on one-hot
  modular addition, MSE, plain GD, no weight decay (Figs. 2, 16), batched over output scales.
* :func:`train_student_teacher` — App. 8.3.1 (Liu et al. 2022a): tanh MLP student of a tanh
  MLP teacher, output × scale, AdamW (Figs. 8, 17, 18), batched over scales.
* :func:`train_st_linearised` — App. 14 Fig. 13b: a bias-free tanh student and its
  linearisation around init, both with AdamW.
* :func:`train_digits_mlp` — Fig. 6a (Omnigrok MNIST protocol) on a digits dataset, output × α,
  centred, AdamW, batched over α.
* :class:`ScaledTransformer` — Fig. 6b: the book's one-layer transformer with centred logits
  scaled by α, ``α·(f(x) − f0(x))`` (composition; ``f0`` is a lookup table of the initial logits).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from companion import slices
from companion.models.committee import BatchedAdamW

Tensor = torch.Tensor


def _onehot(idx: Tensor, n: int, dtype=torch.float32) -> Tensor:
    return torch.nn.functional.one_hot(idx, n).to(dtype)


def _checkpoint(params: list[Tensor], opts: list[BatchedAdamW], hist: dict):
    """``save``/``load`` for :func:`companion.slices.steps` of a loop over stacked parameters
    trained by :class:`BatchedAdamW` optimizers, recording into ``hist`` (a dict of lists)."""
    def save() -> dict:
        return {"params": list(params), "opts": [o.state_dict() for o in opts],
                "hist": {k: list(v) for k, v in hist.items()}}

    def load(s: dict) -> None:
        with torch.no_grad():
            for p, v in zip(params, s["params"]):
                p.copy_(v)
        for o, st in zip(opts, s["opts"]):
            o.load_state_dict(st)
        for k, v in s["hist"].items():
            hist[k][:] = v
    return save, load


# --------------------------------------------------------------------------- Figs. 2, 16
def train_modular_mlp(data, scales, N: int, steps: int, log_at, lr0: float = 100.0, seed: int = 0) -> dict:
    """App. 8.3: ``out = W2 (W1 x)² · s²/(D N)``, ``x = [onehot(a), onehot(b)]``, loss
    ``MSE(out, onehot(c))/s²``, GD with lr ``lr0/s²``, no weight decay; W1, W2 ~ N(0, 1),
    the same init for every scale. Returns accuracy, MSE (without the 1/s²) and
    ``‖W1‖_F + ‖W2‖_F`` at ``log_at``, each ``(S, n_log)``."""
    p = data.p
    D = 2 * p
    s = torch.as_tensor(scales, dtype=torch.float32)
    S = len(s)
    g = torch.Generator().manual_seed(seed)
    W1 = torch.randn(N, D, generator=g).expand(S, N, D).clone()
    W2 = torch.randn(p, N, generator=g).expand(S, p, N).clone()

    def xs(x):
        return torch.cat([_onehot(x[:, 0], p), _onehot(x[:, 1], p)], 1)

    Xtr, Xte = xs(data.train_x), xs(data.test_x)
    Ytr, Yte = _onehot(data.train_y, p), _onehot(data.test_y, p)
    c = (s ** 2 / (D * N))[:, None, None]
    lr = (lr0 / s ** 2)[:, None, None]
    n = len(Ytr)
    logs = set(int(t) for t in np.asarray(log_at))
    hist: dict[str, list] = {k: [] for k in ("train_acc", "test_acc", "train_loss", "test_loss", "norm")}

    def fwd(X):
        h = X @ W1.transpose(-1, -2)  # (S, n, N)
        return h, c * (h * h) @ W2.transpose(-1, -2)

    save, load = slices.inplace_state({"W1": W1, "W2": W2}, hist)
    for t in slices.steps(steps + 1, evals=logs, save=save, load=load):
        h, out = fwd(Xtr)
        if t in logs:
            _, ote = fwd(Xte)
            hist["train_acc"].append((out.argmax(-1) == data.train_y).float().mean(-1))
            hist["test_acc"].append((ote.argmax(-1) == data.test_y).float().mean(-1))
            hist["train_loss"].append(((out - Ytr) ** 2).mean((-1, -2)))
            hist["test_loss"].append(((ote - Yte) ** 2).mean((-1, -2)))
            hist["norm"].append(W1.norm(dim=(-1, -2)) + W2.norm(dim=(-1, -2)))
        if t == steps:
            break
        dout = 2 * (out - Ytr) / (n * p) / (s ** 2)[:, None, None]
        gW2 = c * dout.transpose(-1, -2) @ (h * h)
        dh = c * (dout @ W2) * 2 * h
        gW1 = dh.transpose(-1, -2) @ Xtr
        W1 -= lr * gW1
        W2 -= lr * gW2
    return {"step": np.asarray(log_at), **{k: torch.stack(v, -1).numpy() for k, v in hist.items()}}


# --------------------------------------------------------------------------- Figs. 8, 17, 18
def _torch_linear_init(fan_in: int, fan_out: int, g: torch.Generator):
    """PyTorch's default ``nn.Linear`` init: U(−1/√fan_in, 1/√fan_in) for weight and bias."""
    b = 1 / math.sqrt(fan_in)
    return (torch.rand(fan_out, fan_in, generator=g) * 2 - 1) * b, (torch.rand(fan_out, generator=g) * 2 - 1) * b


def tanh_mlp_params(widths, seed: int, mult: float = 1.0) -> list[Tensor]:
    g = torch.Generator().manual_seed(seed)
    out = []
    for a, b in zip(widths[:-1], widths[1:]):
        W, bias = _torch_linear_init(a, b, g)
        out += [W * mult, bias * mult]
    return out


def tanh_mlp(params: list[Tensor], x: Tensor) -> Tensor:
    """Tanh MLP with biases; params may carry a leading run axis (then ``x`` is broadcast)."""
    h = x
    L = len(params) // 2
    for i in range(L):
        W, b = params[2 * i], params[2 * i + 1]
        h = h @ W.transpose(-1, -2) + b[..., None, :]
        if i < L - 1:
            h = torch.tanh(h)
    return h


def train_student_teacher(scales, steps: int, log_at, width: int = 100, d: int = 5, n: int = 100,
                          lr: float = 3e-4, wd: float = 0.05, init_mult: float = 2.0,
                          thresholds=(1e-3,)) -> dict:
    """App. 8.3.1: teacher (seed 0) and student (seed 1, all parameters × ``init_mult``) tanh MLPs
    d-width-width-d; the student's output is multiplied by the scale; full-batch AdamW on the
    per-sample MSE (mean over outputs). Accuracy = fraction of samples with MSE < threshold."""
    widths = (d, width, width, d)
    teacher = tanh_mlp_params(widths, 0)
    g = torch.Generator().manual_seed(2)
    Xtr, Xte = torch.randn(n, d, generator=g), torch.randn(n, d, generator=g)
    with torch.no_grad():
        Ytr, Yte = tanh_mlp(teacher, Xtr), tanh_mlp(teacher, Xte)
    sc = torch.as_tensor(scales, dtype=torch.float32)
    S = len(sc)
    params = [p.expand(S, *p.shape).clone().requires_grad_(True) for p in tanh_mlp_params(widths, 1, init_mult)]
    opt = BatchedAdamW(params, torch.full((S,), lr), weight_decay=wd)
    logs = set(int(t) for t in np.asarray(log_at))
    hist: dict[str, list] = {"train_loss": [], "test_loss": [], "train_err": [], "test_err": []}
    save, load = _checkpoint(params, [opt], hist)
    for t in slices.steps(steps + 1, evals=logs, save=save, load=load):
        out = sc[:, None, None] * tanh_mlp(params, Xtr)
        err = ((out - Ytr) ** 2).mean(-1)  # (S, n)
        if t in logs:
            with torch.no_grad():
                ete = ((sc[:, None, None] * tanh_mlp(params, Xte) - Yte) ** 2).mean(-1)
            hist["train_err"].append(err.detach())
            hist["test_err"].append(ete)
            hist["train_loss"].append(err.detach().mean(-1))
            hist["test_loss"].append(ete.mean(-1))
        if t == steps:
            break
        opt.zero_grad()
        err.mean(-1).sum().backward()
        opt.step()
    res = {"step": np.asarray(log_at), **{k: torch.stack(v, -1).numpy() for k, v in hist.items()
                                          if k.endswith("loss")}}
    tr, te = torch.stack(hist["train_err"], -1), torch.stack(hist["test_err"], -1)  # (S, n, T)
    res["thresholds"] = list(thresholds)
    res["train_acc"] = np.stack([(tr < th).float().mean(1).numpy() for th in thresholds], 1)  # (S, n_th, T)
    res["test_acc"] = np.stack([(te < th).float().mean(1).numpy() for th in thresholds], 1)
    return res


def train_st_linearised(steps: int, log_at, width: int = 100, d: int = 5, n: int = 100,
                        lr: float = 3e-3, wd: float = 0.1) -> dict:
    """App. 14, Fig. 13b: bias-free ``f = W3 tanh(W2 tanh(W1 x))`` student and teacher with
    N(0,1) weights in NTK parameterisation (each layer divided by √fan_in), trained with AdamW,
    and the student's linearisation ``f0 + J(θ − θ0)`` (explicit Jacobian) trained the same way."""
    def init(seed):
        g = torch.Generator().manual_seed(seed)
        return [torch.randn(width, d, generator=g), torch.randn(width, width, generator=g),
                torch.randn(d, width, generator=g)]

    def f(ps, x):
        W1, W2, W3 = ps
        h = torch.tanh(x @ W1.T / math.sqrt(d))
        h = torch.tanh(h @ W2.T / math.sqrt(width))
        return h @ W3.T / math.sqrt(width)

    g = torch.Generator().manual_seed(3)
    Xtr, Xte = torch.randn(n, d, generator=g), torch.randn(n, d, generator=g)
    teacher = init(0)
    Ytr, Yte = f(teacher, Xtr), f(teacher, Xte)
    theta0 = torch.cat([p.reshape(-1) for p in init(1)])
    shapes = [p.shape for p in init(1)]

    def unflat(v):
        out, i = [], 0
        for s in shapes:
            k = int(np.prod(s))
            out.append(v[i:i + k].reshape(s))
            i += k
        return out

    flat_f = lambda v, X: f(unflat(v), X).reshape(-1)  # noqa: E731
    Jtr = torch.autograd.functional.jacobian(lambda v: flat_f(v, Xtr), theta0, vectorize=True)
    Jte = torch.autograd.functional.jacobian(lambda v: flat_f(v, Xte), theta0, vectorize=True)
    f0tr, f0te = flat_f(theta0, Xtr).detach(), flat_f(theta0, Xte).detach()
    th_net = theta0.clone()[None].requires_grad_(True)
    th_lin = theta0.clone()[None].requires_grad_(True)
    opts = [BatchedAdamW([th_net], torch.tensor([lr]), weight_decay=wd),
            BatchedAdamW([th_lin], torch.tensor([lr]), weight_decay=wd)]
    logs = set(int(t) for t in np.asarray(log_at))
    hist = {k: [] for k in ("train_loss", "test_loss", "lin_train", "lin_test")}
    yt, ye = Ytr.reshape(-1), Yte.reshape(-1)
    save, load = _checkpoint([th_net, th_lin], opts, hist)
    for t in slices.steps(steps + 1, evals=logs, save=save, load=load):
        ln = ((flat_f(th_net[0], Xtr) - yt) ** 2).mean()
        ll = ((f0tr + Jtr @ (th_lin[0] - theta0) - yt) ** 2).mean()
        if t in logs:
            with torch.no_grad():
                hist["train_loss"].append(ln.item())
                hist["lin_train"].append(ll.item())
                hist["test_loss"].append(((flat_f(th_net[0], Xte) - ye) ** 2).mean().item())
                hist["lin_test"].append(((f0te + Jte @ (th_lin[0] - theta0) - ye) ** 2).mean().item())
        if t == steps:
            break
        for o in opts:
            o.zero_grad()
        (ln + ll).backward()
        for o in opts:
            o.step()
    return {"step": np.asarray(log_at), **{k: np.asarray(v) for k, v in hist.items()}}


# --------------------------------------------------------------------------- Fig. 6a
def train_digits_mlp(Xtr, ytr, Xte, yte, alphas, steps: int, log_at, width: int = 200, depth: int = 3,
                     init_mult: float = 8.0, lr: float = 1e-3, wd: float = 0.01, batch: int = 200,
                     seed: int = 0) -> dict:
    """Fig. 6a (Omnigrok protocol, Liu et al. 2022a): ReLU MLP, PyTorch default init × ``init_mult``,
    output ``α(f − f0)`` (centred), MSE on one-hot targets, AdamW, mini-batches cycling through the
    training set; batched over α (the same init for every α). Returns accuracies at ``log_at``."""
    d, k = Xtr.shape[1], int(max(ytr.max(), yte.max())) + 1
    widths = [d] + [width] * depth + [k]
    g = torch.Generator().manual_seed(seed)
    base = []
    for a, b in zip(widths[:-1], widths[1:]):
        W, bias = _torch_linear_init(a, b, g)
        base += [W * init_mult, bias * init_mult]
    al = torch.as_tensor(alphas, dtype=torch.float32)
    S = len(al)
    params = [p.expand(S, *p.shape).clone().requires_grad_(True) for p in base]

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
    Ytr = _onehot(ytr, k)
    opt = BatchedAdamW(params, torch.full((S,), lr), weight_decay=wd)
    n = len(ytr)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed + 1))
    logs = set(int(t) for t in np.asarray(log_at))
    hist = {k_: [] for k_ in ("train_acc", "test_acc", "train_loss")}
    save, load = _checkpoint(params, [opt], hist)
    for t in slices.steps(steps + 1, evals=logs, save=save, load=load):
        if t in logs:
            with torch.no_grad():
                otr = al[:, None, None] * (f(params, Xtr) - f0tr)
                ote = al[:, None, None] * (f(params, Xte) - f0te)
                hist["train_acc"].append((otr.argmax(-1) == ytr).float().mean(-1))
                hist["test_acc"].append((ote.argmax(-1) == yte).float().mean(-1))
                hist["train_loss"].append(((otr - Ytr) ** 2).sum(-1).mean(-1))
        if t == steps:
            break
        i0 = (t * batch) % n
        idx = perm[i0:i0 + batch]
        out = al[:, None, None] * (f(params, Xtr[idx]) - f0tr[:, idx])
        loss = ((out - Ytr[idx]) ** 2).sum(-1).mean(-1).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"step": np.asarray(log_at), **{k_: torch.stack(v, -1).numpy() for k_, v in hist.items()}}


# --------------------------------------------------------------------------- Fig. 6b, 12
class ScaledTransformer(nn.Module):
    """``α·(f(x) − f0(x))`` for the book's transformer ``f`` (Fig. 6b: logits × α, centred at init).

    ``f0`` is stored as a table over all p² input pairs, so centring costs a lookup."""

    def __init__(self, model: nn.Module, p: int, alpha: float):
        super().__init__()
        self.model, self.p, self.alpha = model, p, alpha
        a = torch.arange(p).repeat_interleave(p)
        b = torch.arange(p).repeat(p)
        toks = torch.stack([a, b, torch.full_like(a, p)], 1)
        with torch.no_grad():
            self.register_buffer("f0", model(toks).detach())

    def forward(self, tokens: Tensor) -> Tensor:
        return self.alpha * (self.model(tokens) - self.f0[tokens[:, 0] * self.p + tokens[:, 1]])
