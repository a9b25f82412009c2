"""The book's optimizers, by name: ``adamw`` (decoupled weight decay, Loshchilov & Hutter 2019),
``adam`` (weight decay added to the gradient as an L2 term, as in GrokFast's and Gu et al.'s
code) and ``sgd`` (gradient descent with optional heavy-ball momentum and L2 weight decay).

:func:`make_optimizer` picks the implementation from the hyper-parameters:

* shared (Python numbers): ``torch.optim``'s own ``AdamW`` / ``Adam`` / ``SGD``;
* per member (a sequence or tensor with one value per member of an ensemble, the leading axis
  of every parameter): :class:`BatchedOptimizer`, the one batched implementation. Every update
  in it is elementwise, so member k follows exactly the trajectory it would follow alone with
  its own learning rate and weight decay.

The two differ only in floating-point rounding (``torch.optim`` fuses ``p + α·u`` where
:class:`BatchedOptimizer` computes ``p − (lr·u)``).
"""

from __future__ import annotations

from typing import Sequence

import torch

from companion.settings import one_of

OPTIMIZERS = ("adamw", "adam", "sgd")


def _per_member(v) -> bool:
    return isinstance(v, (torch.Tensor, Sequence)) and not isinstance(v, str)


class BatchedOptimizer:
    """AdamW, Adam (+L2) or SGD (+momentum, +L2) on tensors whose first axis indexes members.

    ``lr`` and ``weight_decay`` are numbers (shared) or one value per member (a sequence or
    tensor of length M, cast to the parameters' dtype). Plain gradient descent ``p ← p − lr·g``
    is ``BatchedOptimizer(params, "sgd", lr)``. Updates (t the step count,
    m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ), g the gradient):

    * adamw: p ← p(1 − lr·wd); m ← β₁m + (1 − β₁)g; v ← β₂v + (1 − β₂)g²; p ← p − lr·m̂/(√v̂ + ε)
    * adam:  g ← g + wd·p, then the same without the decoupled decay;
    * sgd:   g ← g + wd·p; b ← μb + g (b = g when μ = 0); p ← p − lr·b.

    Everything a step reads lives on the parameters' device (learning rates, decays, moments, and the step
    count ``t_device`` beside the host's ``t``), so a step given its warm-up factor as a tensor (``scale``) reads
    nothing from the host and can be captured in a CUDA graph (:mod:`companion.train.graph`).
    """

    def __init__(self, params: list[torch.Tensor], name: str = "adamw", lr=1e-3, weight_decay=0.0,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, momentum: float = 0.0):
        one_of("optimizer", name, OPTIMIZERS)
        self.params, self.name = list(params), name
        M = self.params[0].shape[0] if self.params[0].dim() else 1
        dt, dev = self.params[0].dtype, self.params[0].device
        self.lr = self._member_values(lr, M, dt).to(dev)
        self.wd = self._member_values(weight_decay, M, dt).to(dev)
        self.l2 = name != "adamw" and bool((self.wd != 0).any())  # Adam's and SGD's decay enters the gradient
        self.b1, self.b2 = betas
        self.eps, self.momentum, self.t = eps, momentum, 0
        self.t_device = torch.zeros((), dtype=torch.float64, device=dev)  # t, for a step that reads no host value
        self.scale = torch.ones((), dtype=dt, device=dev)  # the warm-up factor a captured step reads
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params] if name != "sgd" else []

    @staticmethod
    def _member_values(v, M: int, dt) -> torch.Tensor:
        """One value per member, shape (M,); a plain number stays a 0-d tensor (shared)."""
        t = torch.as_tensor(v, dtype=dt)
        return t.expand(M).clone() if t.dim() else t.clone()

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self, lr_scale: float | torch.Tensor = 1.0) -> None:
        """One update. ``lr_scale``: the warm-up factor, a number, or a 0-d tensor on the parameters' device
        (:attr:`scale`): then the bias corrections come from :attr:`t_device` and the step reads nothing from
        the host — the form a CUDA graph captures; the caller then advances the host's ``t`` itself. Both
        forms give the same numbers: the factors are rounded to the parameters' dtype either way."""
        on_device = isinstance(lr_scale, torch.Tensor)
        self.t_device.add_(1)
        if on_device:
            c1, c2 = 1 - self.b1 ** self.t_device, 1 - self.b2 ** self.t_device
        else:
            self.t += 1
            c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            shape = (-1,) + (1,) * (p.dim() - 1)
            lr = self.lr * lr_scale if on_device or lr_scale != 1.0 else self.lr
            lr = lr.view(shape) if lr.dim() else lr
            wd = self.wd.view(shape) if self.wd.dim() else self.wd
            g = p.grad
            if self.name == "adamw":
                p.mul_(1 - lr * wd)
            elif self.l2:
                g = g + wd * p
            if self.name == "sgd":
                if self.momentum:
                    g = self.m[i].mul_(self.momentum).add_(g)
                p.sub_(lr * g)
                continue
            m, v = self.m[i], self.v[i]
            m.mul_(self.b1).add_(g, alpha=1 - self.b1)
            v.mul_(self.b2).addcmul_(g, g, value=1 - self.b2)
            p.sub_(lr * (m / c1) / ((v / c2).sqrt() + self.eps))

    def state_dict(self) -> dict:
        return {"m": list(self.m), "v": list(self.v), "t": self.t}

    def load_state_dict(self, s: dict) -> None:
        with torch.no_grad():
            for mine, saved in zip(self.m + self.v, s["m"] + s["v"]):
                mine.copy_(saved)
            self.t_device.fill_(s["t"])
        self.t = s["t"]


def make_optimizer(params, name: str = "adamw", lr=1e-3, weight_decay=0.0,
                   betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, momentum: float = 0.0):
    """``torch.optim``'s optimizer for shared hyper-parameters; :class:`BatchedOptimizer` when
    ``lr`` or ``weight_decay`` has one value per member."""
    one_of("optimizer", name, OPTIMIZERS)
    params = list(params)
    if _per_member(lr) or _per_member(weight_decay):
        return BatchedOptimizer(params, name, lr, weight_decay, betas, eps, momentum)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
    return torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
