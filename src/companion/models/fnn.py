"""GrokTransfer (Xu, Ni, Wang & Hu, ICLR 2025): feed-forward nets with a trainable embedding,
the low-rank embedding E_T = A·B and the GrokTransfer procedure (Sec. 2.2, App. A.3).

Every FNN of the paper is homogeneous with no bias terms (A.3): an *embedding* followed by a
stack of bias-free linear maps with ReLU between them. Many such nets differing only in seed,
init scale, learning rate or weight decay are trained at once as an *ensemble*: every parameter
carries a leading member axis ``M`` and :func:`train_ensemble` runs AdamW with per-member
(lr, wd). Because AdamW is element-wise and the loss is the sum of the members' mean losses,
each member follows exactly the trajectory it would follow alone.

Embedding kinds (``FNNSpec.embed``):

* ``table``  -- tokens (a, b) -> [E[a]; E[b]], E ∈ ℝ^{V×d} (``nn.Embedding``: init N(0, 1));
* ``lowrank`` -- the same with E = A·B, A ∈ ℝ^{V×r}, B ∈ ℝ^{r×d}, both trained (Sec. 2.2);
* ``dense``  -- a real input x ∈ ℝ^q -> xE, E ∈ ℝ^{q×d} (``nn.Linear``: U(±1/√q)), for parity;
* ``dense_lowrank`` -- x·A·B (the parity target of Sec. 4.1);
* ``fixed``  -- the input is already a feature vector (the fixed embeddings of Fig. 2).

Init-scale convention (A.3, after Liu et al. 2023): the default PyTorch initialisation times a
factor α. The transferred A is copied unscaled; B gets ``nn.Linear(r, d)``'s init times α.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from companion import slices

EMBEDS = ("table", "lowrank", "dense", "dense_lowrank", "fixed")


@dataclass(frozen=True)
class FNNSpec:
    """Shape of a bias-free ReLU FNN: embedding, then ``len(widths)`` hidden layers, then out.

    The modular weak model (4, 16) is ``FNNSpec("table", 113, 4, (16,), 113)``: W₂φ(W₁[E_a; E_b]);
    the target (128, 512) is ``FNNSpec("table", 113, 128, (512, 512), 113)``.
    """

    embed: str = "table"
    vocab: int = 113  # V (tokens) or q (input dimension for dense embeddings)
    d_embed: int = 128
    widths: tuple = (512, 512)
    n_out: int = 113
    n_tokens: int = 2  # tokens concatenated (modular: 2; dense inputs: 1)
    rank: int = 0  # r for the low-rank embeddings
    act_after_embed: bool = False  # ReLU right after the embedding (parity weak model: φ(W₁x))


def _uniform(g, shape, bound):
    return (torch.rand(shape, generator=g) * 2 - 1) * bound


def init_params(spec: FNNSpec, scales, seed: int, A: torch.Tensor | None = None) -> dict:
    """Default PyTorch init times the per-member init scale α (``scales``: length M).

    ``A`` (M, V, r) is the transferred (or random) left factor of a low-rank embedding.
    """
    a = torch.as_tensor(scales, dtype=torch.float32)
    M = len(a)
    g = torch.Generator().manual_seed(seed)
    s = a.view(M, 1, 1)
    P: dict[str, torch.Tensor] = {}
    if spec.embed == "table":
        P["E"] = torch.randn(M, spec.vocab, spec.d_embed, generator=g) * s
    elif spec.embed == "dense":
        P["E"] = _uniform(g, (M, spec.vocab, spec.d_embed), 1 / math.sqrt(spec.vocab)) * s
    elif spec.embed in ("lowrank", "dense_lowrank"):
        if A is None:
            raise ValueError("a low-rank embedding needs its left factor A (M, V, r)")
        P["A"] = A.detach().clone().float()
        r = P["A"].shape[-1]
        P["B"] = _uniform(g, (M, r, spec.d_embed), 1 / math.sqrt(r)) * s
    d_in = spec.d_embed * spec.n_tokens if spec.embed != "fixed" else spec.vocab
    for i, w in enumerate((*spec.widths, spec.n_out)):
        P[f"W{i + 1}"] = _uniform(g, (M, w, d_in), 1 / math.sqrt(d_in)) * s
        d_in = w
    return {k: v.requires_grad_(True) for k, v in P.items()}


def embedding_matrix(P: dict) -> torch.Tensor:
    """The (M, V, d) embedding: E, or A·B for the low-rank kinds."""
    return P["E"] if "E" in P else P["A"] @ P["B"]


def forward(P: dict, spec: FNNSpec, x: torch.Tensor) -> torch.Tensor:
    """Outputs (M, N, n_out) for inputs x: int tokens (N, n_tokens) or reals (N, q)."""
    if spec.embed == "fixed":
        h = x.unsqueeze(0)
    elif spec.embed in ("table", "lowrank"):
        E = embedding_matrix(P)
        M, N = E.shape[0], x.shape[0]
        h = E[:, x].reshape(M, N, -1)
    else:
        h = x @ embedding_matrix(P)  # (M, N, d)
    if spec.act_after_embed:
        h = torch.relu(h)
    n = len(spec.widths) + 1
    for i in range(1, n + 1):
        h = h @ P[f"W{i}"].transpose(-1, -2)
        if i < n:
            h = torch.relu(h)
    return h


def loss_and_acc(out: torch.Tensor, y: torch.Tensor, loss: str, with_acc: bool = True):
    """Per-member mean loss (M,) and accuracy (M,).

    ``ce`` and ``mse``: integer labels; ``logistic``: y ∈ {±1} (parity, Sec. 4.1)."""
    if loss == "ce":
        M, N, C = out.shape
        pad = -C % 64  # torch's CPU log-softmax is ~8x slower at 113 columns than at 128
        z = F.pad(out, (0, pad), value=-math.inf) if pad else out
        logp = torch.log_softmax(z, -1)
        lo = -logp.gather(-1, y.view(1, N, 1).expand(M, N, 1)).squeeze(-1).mean(1)
        acc = (out.argmax(-1) == y).float().mean(1) if with_acc else None
    elif loss == "mse":  # squared error to one-hot targets (Liu et al. 2023's MNIST setting)
        lo = ((out - F.one_hot(y, out.shape[-1]).float()) ** 2).sum(-1).mean(1)
        acc = (out.argmax(-1) == y).float().mean(1)
    else:
        f = out[..., 0]
        lo = F.softplus(-y * f).mean(1)  # log(1 + e^{−yf})
        acc = (torch.sign(f) == y).float().mean(1)  # f = 0 counts as wrong
    return lo, acc


class AdamW:
    """torch.optim.AdamW's update with a per-member learning rate and weight decay.

    p ← p(1 − lr·wd) − lr·m̂/(√v̂ + eps), with m̂, v̂ the bias-corrected moments (default betas).
    """

    def __init__(self, params: list, lr, wd, betas=(0.9, 0.999), eps=1e-8):
        self.params = params
        M = params[0].shape[0]
        self.lr = torch.as_tensor(lr, dtype=torch.float32).expand(M).clone()
        self.wd = torch.as_tensor(wd, dtype=torch.float32).expand(M).clone()
        self.b1, self.b2, self.eps, self.t = betas[0], betas[1], eps, 0
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for p, m, v in zip(self.params, self.m, self.v):
            shape = (-1,) + (1,) * (p.dim() - 1)
            lr, wd = self.lr.view(shape).to(p.device), self.wd.view(shape).to(p.device)
            p.mul_(1 - lr * wd)
            m.mul_(self.b1).add_(p.grad, alpha=1 - self.b1)
            v.mul_(self.b2).addcmul_(p.grad, p.grad, value=1 - self.b2)
            p.sub_(lr * (m / c1) / ((v / c2).sqrt() + self.eps))


def fast_allocator() -> None:
    """Keep freed memory in the process (glibc ``mallopt``) instead of returning it to the OS.

    Measured on the 2-core build machine: allocating a fresh 11 MB tensor cost ~20 ms of page
    faults versus ~1 ms once freed blocks are reused; every step here allocates several. Process
    wide and harmless (memory is reused, not leaked); a no-op where glibc is absent.
    """
    global _ALLOC_DONE
    if _ALLOC_DONE:
        return
    _ALLOC_DONE = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 30)  # M_MMAP_THRESHOLD: no mmap per large block
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: do not give the heap back
    except (OSError, AttributeError):
        pass


_ALLOC_DONE = False


def train_ensemble(P: dict, spec: FNNSpec, data, lr, wd, epochs: int, eval_every: int = 10,
                   loss: str = "ce", snapshot_every: int = 0, stop_at: float | None = None,
                   device: str = "cpu", measure=None, measure_every: int = 0, stop_any: bool = False) -> dict:
    """Full-batch AdamW (1 epoch = 1 step) of every member; returns the history.

    ``data`` has ``train_x, train_y, test_x, test_y``. History: ``epoch`` (T,), ``train_acc``,
    ``test_acc``, ``train_loss``, ``test_loss`` (M, T); with ``snapshot_every`` also
    ``snapshots`` (S, M, V, d) of the embedding matrix at epochs ``snapshot_epoch``. ``stop_at``
    ends training once every member's test accuracy has reached it (curves stop there).
    Returns the trained parameters under ``params`` (tensors). ``measure(P) -> (M,) array``
    is evaluated every ``measure_every`` epochs (key ``measure``, epochs ``measure_epoch``).
    """
    fast_allocator()
    P = {k: v.detach().clone().to(device).requires_grad_(True) for k, v in P.items()}
    names = list(P)
    opt = AdamW([P[k] for k in names], lr, wd)
    xs = [t.to(device) for t in (data.train_x, data.train_y, data.test_x, data.test_y)]
    H: dict[str, list] = {k: [] for k in ("epoch", "train_acc", "test_acc", "train_loss", "test_loss")}
    snaps, snap_ep, meas, meas_ep = [], [], [], []

    def record(ep):
        with torch.no_grad():
            trl, tra = loss_and_acc(forward(P, spec, xs[0]), xs[1], loss)
            tel, tea = loss_and_acc(forward(P, spec, xs[2]), xs[3], loss)
        for k, v in zip(("train_loss", "train_acc", "test_loss", "test_acc"), (trl, tra, tel, tea)):
            H[k].append(v.cpu().numpy())
        H["epoch"].append(ep)
        if snapshot_every and ep % snapshot_every == 0:
            snaps.append(embedding_matrix(P).detach().cpu().numpy().copy())
            snap_ep.append(ep)
        if measure is not None and measure_every and ep % measure_every == 0:
            meas.append(np.asarray(measure(P)))
            meas_ep.append(ep)
        return tea

    record(0)

    def save() -> dict:
        return {"P": dict(P), "m": list(opt.m), "v": list(opt.v), "t": opt.t, "H": {k: list(v) for k, v in H.items()},
                "snaps": list(snaps), "snap_ep": list(snap_ep), "meas": list(meas), "meas_ep": list(meas_ep)}

    def load(s: dict) -> None:
        with torch.no_grad():
            for k in names:
                P[k].copy_(s["P"][k])
            for mine, saved in zip(opt.m + opt.v, s["m"] + s["v"]):
                mine.copy_(saved)
        opt.t = s["t"]
        for k, v in s["H"].items():
            H[k][:] = v
        snaps[:], snap_ep[:], meas[:], meas_ep[:] = s["snaps"], s["snap_ep"], s["meas"], s["meas_ep"]

    evals = lambda ep: ep % eval_every == 0 or ep == epochs  # noqa: E731
    for ep in slices.steps(epochs + 1, 1, evals=evals, save=save, load=load):
        lo, _ = loss_and_acc(forward(P, spec, xs[0]), xs[1], loss, with_acc=False)
        for p in P.values():
            p.grad = None
        lo.sum().backward()
        opt.step()
        if evals(ep):
            tea = record(ep)
            if stop_at is not None and bool((tea >= stop_at).any() if stop_any else (tea >= stop_at).all()):
                break
    if measure is not None and measure_every and meas_ep and meas_ep[-1] != H["epoch"][-1]:
        meas.append(np.asarray(measure(P)))  # the last epoch too (runs may stop early)
        meas_ep.append(H["epoch"][-1])
    out = {"epoch": np.asarray(H.pop("epoch"))}
    out.update({k: np.stack(v, 1) for k, v in H.items()})
    if snapshot_every:
        out["snapshots"], out["snapshot_epoch"] = np.stack(snaps), np.asarray(snap_ep)
    if meas:
        out["measure"], out["measure_epoch"] = np.stack(meas, 1), np.asarray(meas_ep)
    out["params"] = {k: v.detach().cpu() for k, v in P.items()}
    return out


def first_epoch(epochs: np.ndarray, acc: np.ndarray, threshold: float) -> float:
    """First logged epoch with ``acc >= threshold`` (``inf`` if never)."""
    hit = np.nonzero(np.asarray(acc) >= threshold)[0]
    return float(epochs[hit[0]]) if len(hit) else math.inf


def time_gap(epochs, train_acc, test_acc, threshold: float = 0.95) -> float:
    """TimeGap (Sec. 4.1): first epoch test ≥ 95% minus first epoch train ≥ 95%."""
    return first_epoch(epochs, test_acc, threshold) - first_epoch(epochs, train_acc, threshold)


def select_weak(hist: dict, rule: str = "best", threshold: float = 0.3) -> dict:
    """Weak-model selection, an explicit step the paper leaves implicit.

    ``hist`` is a :func:`train_ensemble` history with snapshots (several weak seeds = members).
    ``best``: the (member, checkpoint) with the highest test accuracy (the paper's "until it
    groks to a non-trivial performance on the validation set"); ``first``: the first checkpoint
    at which some member reaches ``threshold`` test accuracy (Fig. 8: "when it first reaches
    30%"), falling back to ``best`` if none does. Returns member, epoch, test/train accuracy
    and the embedding A (V, d_W).
    """
    ep = hist["epoch"]
    idx = np.searchsorted(ep, hist["snapshot_epoch"])
    te = hist["test_acc"][:, idx]  # (M, S)
    tr = hist["train_acc"][:, idx]
    if rule == "first" and (te >= threshold).any():
        s = int(np.nonzero((te >= threshold).any(0))[0][0])
        m = int(np.argmax(te[:, s] >= threshold))
    else:
        m, s = map(int, np.unravel_index(np.argmax(te), te.shape))
    return {"member": m, "epoch": int(hist["snapshot_epoch"][s]), "test_acc": float(te[m, s]),
            "train_acc": float(tr[m, s]), "A": hist["snapshots"][s, m], "rule": rule}


def grok_transfer(data, weak: FNNSpec, target: FNNSpec, weak_opt: dict, target_opt: dict,
                  n_weak_seeds: int = 1, select: str = "best", threshold: float = 0.3,
                  seed: int = 0, loss: str = "ce", device: str = "cpu") -> dict:
    """The GrokTransfer procedure of Sec. 2.2 as one function.

    1. train ``n_weak_seeds`` weak models (``weak_opt``: init, lr, wd, epochs, snapshot_every);
    2. select one checkpoint (:func:`select_weak`) -- its embedding is A ∈ ℝ^{V×d_W};
    3. build the target with embedding E_T = A·B (B random, both trained; ``target.embed``
       must be ``lowrank`` or ``dense_lowrank``) and train it (``target_opt``: init, lr, wd,
       epochs). Returns the weak history, the selection record and the target history.
    """
    o = weak_opt
    Pw = init_params(weak, [o["init"]] * n_weak_seeds, seed + 1000)
    wh = train_ensemble(Pw, weak, data, o["lr"], o["wd"], o["epochs"], o.get("eval_every", 10),
                        loss, snapshot_every=o["snapshot_every"], device=device)
    sel = select_weak(wh, select, threshold)
    t = target_opt
    A = torch.as_tensor(sel["A"]).unsqueeze(0)
    Pt = init_params(target, [t["init"]], seed, A=A)
    th = train_ensemble(Pt, target, data, t["lr"], t["wd"], t["epochs"], t.get("eval_every", 10), loss,
                        device=device)
    return {"weak": wh, "selection": sel, "target": th}



class Pairs:
    """A modular task's split as (a, b) token pairs for the FNNs (the ``=`` token dropped)."""

    def __init__(self, data):
        self.p = data.p
        self.train_x, self.train_y = data.train_x[:, :2], data.train_y
        self.test_x, self.test_y = data.test_x[:, :2], data.test_y


def scale_init(model: torch.nn.Module, alpha: float) -> torch.nn.Module:
    """The init-scale convention of A.3 (Liu et al. 2023): every parameter times α."""
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(alpha)
    return model


class LowRankEmbedding(torch.nn.Module):
    """A transformer whose token embedding is E_T = A·B (Sec. 2.2), both factors trained.

    Wraps the book's :class:`companion.models.transformer.Transformer` (composition: its blocks, positional
    embedding and unembedding are used as they are; its own ``W_E`` is dropped). A (V, r) is the
    weak model's embedding of the p numbers; the ``=`` token, which the FNN never saw, gets a
    random row with the same RMS as A. B ~ U(±1/√r)·α.
    """

    def __init__(self, base, A: torch.Tensor, alpha: float, seed: int):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        V, r = base.W_E.shape[0], A.shape[1]
        extra = torch.randn(V - A.shape[0], r, generator=g) * A.pow(2).mean().sqrt()
        del base._parameters["W_E"]
        self.base = base
        self.A = torch.nn.Parameter(torch.cat([A.float(), extra]))
        self.B = torch.nn.Parameter(_uniform(g, (r, base.cfg.d_model), 1 / math.sqrt(r)) * alpha)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        b = self.base
        x = (self.A @ self.B)[tokens] + b.W_pos[: tokens.shape[1]]
        for i, block in enumerate(b.blocks):
            x = block(x, last_only=i == len(b.blocks) - 1)
        return x[:, -1] @ b.W_U
