"""GrokTransfer's training loops (Xu et al. 2025), all by :func:`companion.train.fit.fit`:
ensembles of the feed-forward nets of :mod:`companion.models.fnn` (full-batch AdamW with
per-member lr and weight decay), the two-layer XOR nets of :mod:`companion.models.xor_net`
(full-batch GD with weight decay) and the target f_L of Theorem 3.2 (plain GD on V); and the
transfer probe (:func:`transfer_probe`), GrokTransfer's target trained briefly on any embedding as a
diagnostic of how much of the task that embedding already makes easy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from companion.data.embeddings import Pairs
from companion.data.modular import modular_arithmetic
from companion.data.xor import XORData
from companion.models import xor_net
from companion.models.fnn import LOSSES, FNNSpec, embedding_matrix, forward, init_params, loss_and_acc
from companion.settings import one_of
from companion.train.fit import every, fit
from companion.train.optim import BatchedOptimizer, make_optimizer


@dataclass(frozen=True)
class EnsembleTraining:
    """How :func:`train_ensemble` trains its members: full-batch AdamW, 1 epoch = 1 step (Xu et al. App. A.3
    train every FNN full batch with AdamW), logged every ``eval_every`` epochs and at the last."""

    lr: Any  # AdamW learning rate: one for every member, or one per member (a tensor)
    weight_decay: Any  # AdamW's decoupled weight decay: one, or one per member
    epochs: int  # full-batch steps
    eval_every: int = 10  # epochs between logged evaluations
    loss: str = "ce"  # one of companion.models.fnn.LOSSES
    snapshot_every: int = 0  # epochs between saved embedding matrices (0: none)
    stop_at: float | None = None  # end at the first logged epoch at which every member's test accuracy reached it
    stop_any: bool = False  # with stop_at: some member's test accuracy instead of every member's
    measure_every: int = 0  # epochs between calls of train_ensemble's measure(P) (0: none)


def train_ensemble(P: dict, spec: FNNSpec, data, how: EnsembleTraining, device: str = "cpu", measure=None) -> dict:
    """Full-batch AdamW (1 epoch = 1 step) of every member as ``how`` says, by :func:`companion.train.fit.fit`
    with :class:`~companion.train.optim.BatchedOptimizer` (per-member ``lr`` and
    ``weight_decay``, cast to float32 like the parameters); returns the history.

    ``data`` has ``train_x, train_y, test_x, test_y``. History: ``epoch`` (T,), ``train_acc``,
    ``test_acc``, ``train_loss``, ``test_loss`` (M, T), logged every ``eval_every`` epochs and at
    the last; with ``snapshot_every`` also ``snapshots`` (S, M, V, d) of the embedding matrix at
    the logged epochs ``snapshot_epoch`` that ``snapshot_every`` divides. ``stop_at`` ends
    training at the first logged epoch after the start at which every member's (with
    ``stop_any``: some member's) test accuracy has reached it (curves stop there). Returns the
    trained parameters under ``params`` (tensors). ``measure(P) -> (M,) array`` is evaluated at
    the logged epochs that ``measure_every`` divides and at the last (key ``measure``, epochs
    ``measure_epoch``).
    """
    lr, weight_decay, epochs, eval_every, loss = how.lr, how.weight_decay, how.epochs, how.eval_every, how.loss
    snapshot_every, stop_at, stop_any, measure_every = how.snapshot_every, how.stop_at, how.stop_any, how.measure_every
    one_of("loss", loss, LOSSES)
    P = {k: v.detach().clone().to(device).requires_grad_(True) for k, v in P.items()}
    names = list(P)
    opt = BatchedOptimizer([P[k] for k in names], "adamw", lr, weight_decay)
    xs = [t.to(device) for t in (data.train_x, data.train_y, data.test_x, data.test_y)]
    H: dict[str, list] = {k: [] for k in ("epoch", "train_acc", "test_acc", "train_loss", "test_loss")}
    snaps, snap_ep, meas, meas_ep = [], [], [], []

    recorded: dict = {}  # the training loss of the epoch just logged, with its graph: its update reuses it

    def record(ep: int) -> bool:
        trl, tra = loss_and_acc(forward(P, spec, xs[0]), xs[1], loss)
        recorded.update(epoch=ep, loss=trl)
        trl = trl.detach()
        with torch.no_grad():
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
        if ep == 0 or stop_at is None:  # the stopping rule applies from the first update on
            return False
        return bool((tea >= stop_at).any() if stop_any else (tea >= stop_at).all())

    def objective(ep: int) -> torch.Tensor:
        logged, lo = recorded.pop("epoch", None), recorded.pop("loss", None)
        if logged != ep:  # not a logged epoch: one forward pass for the update alone
            lo, _ = loss_and_acc(forward(P, spec, xs[0]), xs[1], loss, with_acc=False)
        return lo.sum()  # the members' gradients are independent: each is its own mean loss's

    def save() -> dict:
        return {"H": {k: list(v) for k, v in H.items()}, "snaps": list(snaps), "snap_ep": list(snap_ep),
                "meas": list(meas), "meas_ep": list(meas_ep)}

    def load(s: dict) -> None:
        for k, v in s["H"].items():
            H[k][:] = v
        snaps[:], snap_ep[:], meas[:], meas_ep[:] = s["snaps"], s["snap_ep"], s["meas"], s["meas_ep"]

    fit([P[k] for k in names], opt, epochs, evals=every(eval_every, epochs), record=record, loss=objective,
        state=(save, load))
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


@dataclass(frozen=True)
class XorTraining:
    """How :func:`train_xor` trains its members: full-batch gradient descent on the exponential loss (Xu et al.
    §3.1, Thm 3.1), one learning rate and weight decay for every member."""

    lr: float  # gradient descent's step size
    weight_decay: float  # torch.optim.SGD's (coupled) weight decay
    steps: int  # full-batch steps
    eval_every: int = 1  # steps between logged evaluations (and the last)
    stop_at: float | None = None  # once every member's test accuracy reached it (first logged step r where all
    # have), training ends at the first logged step ≥ r·(1 + stop_patience)
    stop_patience: float = 0.25


def train_xor(W, a, train_data: XORData, test_data: XORData, eps, how: XorTraining) -> dict:
    """Full-batch GD on the exponential loss (Sec. 3.1) for every member as ``how`` says (``torch.optim.SGD``
    with weight decay, shared lr); returns the history (``step`` (T,), ``train_acc``,
    ``test_acc``, ``train_loss`` (M, T)) and the trained ``W``, ``a``. With ``how.stop_at`` no first crossing
    at or below it changes."""
    lr, weight_decay, steps, eval_every = how.lr, how.weight_decay, how.steps, how.eval_every
    stop_at, stop_patience = how.stop_at, how.stop_patience
    eps = torch.as_tensor(eps, dtype=torch.float32).to(W.device).expand(W.shape[0])
    W, a = W.clone().requires_grad_(True), a.clone().requires_grad_(True)
    opt = make_optimizer([W, a], "sgd", lr, weight_decay)
    H: dict[str, list] = {"step": [], "train_acc": [], "test_acc": [], "train_loss": []}
    recorded: dict = {}  # the training loss of the step just recorded, reused by its update
    reached = torch.zeros(W.shape[0], dtype=torch.bool)  # members whose test accuracy reached stop_at (host)
    all_at: list = [None]  # the first logged step at which every member had

    def f(d: XORData) -> torch.Tensor:
        return xor_net.output(W, a, d, eps)  # (M, n)

    def member_losses(out: torch.Tensor) -> torch.Tensor:
        return torch.exp(-train_data.y * out).mean(1)

    def record(t: int) -> bool:
        out = f(train_data)
        lo = member_losses(out)
        recorded.update(step=t, loss=lo)
        with torch.no_grad():
            H["step"].append(t)
            H["train_acc"].append(xor_net.sign_acc(out, train_data.y).cpu().numpy())
            H["test_acc"].append(xor_net.sign_acc(f(test_data), test_data.y).cpu().numpy())
            H["train_loss"].append(lo.detach().cpu().numpy())
        if stop_at is None or t == 0:
            return False
        reached.logical_or_(torch.as_tensor(H["test_acc"][-1] >= stop_at))
        if all_at[0] is None and bool(reached.all()):
            all_at[0] = t
        return all_at[0] is not None and t >= all_at[0] * (1 + stop_patience)

    def objective(t: int) -> torch.Tensor:
        step, lo = recorded.pop("step", None), recorded.pop("loss", None)
        return (lo if step == t else member_losses(f(train_data))).sum()

    def save() -> dict:
        return {**{k: list(v) for k, v in H.items()}, "reached": reached.clone(), "all_at": all_at[0]}

    def load(s: dict) -> None:
        for k in H:
            H[k][:] = s[k]
        reached.copy_(s.get("reached", reached))
        all_at[0] = s.get("all_at")

    fit([W, a], opt, steps, evals=every(eval_every, steps), record=record, loss=objective, state=(save, load))
    res = {"step": np.asarray(H.pop("step"))}
    res.update({k: np.stack(v, 1) for k, v in H.items()})
    res["W"], res["a"] = W.detach(), a.detach()
    return res


def train_target_fl(U: torch.Tensor, train_data: XORData, test_data: XORData, eps: float, m: int, v_init: float,
              lr: float, steps: int, seed: int) -> dict:
    """Train the target f_L(x) = Σ_j a_j φ(⟨v_j, Uᵀx⟩) of Sec. 3.3 / Theorem 3.2 on the transferred
    embedding U (p, k): a_j ~ U{±1/√m} and U fixed, v_j ~ U({±v_init}^k), plain GD on V only
    (V ← V − lr·∇V, :class:`~companion.train.optim.BatchedOptimizer` ``sgd``), exp loss,
    accuracies at every step.
    """
    ztr, zte = xor_net.embed(U, train_data, eps), xor_net.embed(U, test_data, eps)
    a, V = (t.to(U.device) for t in xor_net.target_fl_init(U.shape[1], m, v_init, seed))  # drawn on the host
    V.requires_grad_(True)
    H: dict[str, list] = {"step": [], "train_acc": [], "test_acc": []}

    def record(t: int) -> bool:
        with torch.no_grad():
            H["step"].append(t)
            H["train_acc"].append(float(xor_net.sign_acc(xor_net.target_fl_output(ztr, V, a), train_data.y)))
            H["test_acc"].append(float(xor_net.sign_acc(xor_net.target_fl_output(zte, V, a), test_data.y)))
        return False

    def objective(t: int) -> torch.Tensor:
        return torch.exp(-train_data.y * xor_net.target_fl_output(ztr, V, a)).mean()

    def save() -> dict:
        return {k: list(v) for k, v in H.items()}

    def load(s: dict) -> None:
        for key, v in s.items():
            H[key][:] = v

    fit([V], BatchedOptimizer([V], "sgd", lr), steps, evals=range(steps + 1), record=record, loss=objective,
        state=(save, load))
    return {key: np.asarray(v) for key, v in H.items()} | {"z_test": zte.cpu().numpy(),
                                                            "y_test": test_data.y.cpu().numpy(),
                                                            "signal_test": test_data.signal.cpu().numpy()}


# --------------------------------------------------------------------------- the transfer probe
def transfer_probe(embedding: torch.Tensor, p: int, *, op: str = "add", train_frac: float = 0.3,
                   data_seed: int = 0, d_embed: int = 32, width: int = 128, lr: float = 1e-2,
                   weight_decay: float = 1.0, init_scale: float = 1.0, steps: int = 300, seed: int = 0,
                   n_seeds: int = 1, normalise: bool = True, device: str | None = None) -> float:
    """Mean final test accuracy of ``n_seeds`` fresh targets W₃φ(W₂φ(W₁[E_a; E_b])), E = A·B, with A
    the first p rows of ``embedding`` (p, d) (a transformer's ``W_E`` has an extra ``=`` row) and
    B, W fresh (PyTorch's default init × ``init_scale``, target seed ``seed``), all trained
    ``steps`` full-batch AdamW steps on ``op`` mod p (the split of
    :func:`companion.data.modular.modular_arithmetic` with ``train_frac``, ``data_seed``).

    ``normalise`` rescales A to unit RMS row norm, so that embeddings of differently scaled models
    are compared by their structure (GrokTransfer copies A unscaled). The seeds train as one
    ensemble (:func:`train_ensemble`). The probe's sizes and
    optimiser settings are this book's (the paper's targets are (128, 512, 512) trained 10⁴ steps).
    """
    A = embedding.detach()[:p].float().cpu()
    if normalise:
        A = A / A.pow(2).sum(1).mean().sqrt().clamp_min(1e-12)
    data = Pairs(modular_arithmetic(p, op, train_frac, data_seed))
    spec = FNNSpec("lowrank", p, d_embed, (width, width), p, rank=A.shape[1])
    P = init_params(spec, [init_scale] * n_seeds, seed, A=A.expand(n_seeds, *A.shape))
    dev = device or str(embedding.device)
    h = train_ensemble(P, spec, data, EnsembleTraining(lr, weight_decay, steps, eval_every=steps), device=dev)
    return float(h["test_acc"][:, -1].mean())
