"""K seeds of one model trained as one tensor program (``torch.func``).

The members' parameters are stacked along a new leading axis and the model's forward is
``vmap``-ed over it (and over the members' own data splits), so K seeds cost one forward and
one backward of K-times-larger tensors instead of K launches of every kernel. ``torch.optim``'s
AdamW and Adam are elementwise, so one optimizer over the stacked tensors is exactly K
independent optimizers (same learning rate and weight decay for every member).

:func:`ensemble_loss` is the sum of the members' mean losses: its gradient with respect to a
member's parameters is that member's own gradient. :func:`ensemble_evaluate` is every member's
loss and accuracy at once, left on the device (no host synchronisation per member).
"""

from __future__ import annotations

import copy

import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap


class Ensemble:
    """Stacked parameters of ``models`` (all of one architecture) and their vmapped forward."""

    def __init__(self, models: list[nn.Module]):
        self.params, self.buffers = stack_module_state(models)
        self.base = copy.deepcopy(models[0]).to("meta")  # the architecture only
        self.K = len(models)

    def parameters(self) -> list[torch.Tensor]:
        return list(self.params.values())

    def forward(self, x: torch.Tensor, shared_input: bool = False) -> torch.Tensor:
        """Outputs ``(K, n, ...)``; ``x`` is ``(K, n, ...)`` (each member's own batch) or, with
        ``shared_input``, one ``(n, ...)`` batch for every member."""
        def one(p, b, xi):
            return functional_call(self.base, (p, b), (xi,))
        return vmap(one, in_dims=(0, 0, None if shared_input else 0))(self.params, self.buffers, x)

    def forward_member(self, k: int, x: torch.Tensor) -> torch.Tensor:
        """Member ``k``'s output on its own batch ``x`` ``(n, ...)``, read from the stacks (no copy)."""
        return functional_call(self.base, ({n: v[k] for n, v in self.params.items()},
                                           {n: v[k] for n, v in self.buffers.items()}), (x,))

    def member(self, k: int, like: nn.Module) -> nn.Module:
        """Member ``k`` as an ordinary module (a copy of ``like`` holding its parameters)."""
        m = copy.deepcopy(like)
        m.load_state_dict({n: v[k].detach() for n, v in {**self.params, **self.buffers}.items()})
        return m


def member_losses(logits: torch.Tensor, y: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Each member's mean cross-entropy ``(K,)`` for ``logits`` ``(K, n, C)`` and labels ``y`` ``(K, n)``, the
    log-softmax taken in ``dtype``."""
    K, n, C = logits.shape
    per = nn.functional.cross_entropy(logits.to(dtype).reshape(K * n, C), y.reshape(K * n), reduction="none")
    return per.view(K, n).mean(1)


def ensemble_loss(logits: torch.Tensor, y: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Σ_k mean_i CE(logits[k, i], y[k, i]): each member's gradient is its own loss's."""
    return member_losses(logits, y, dtype).sum()


def member_scores(logits: torch.Tensor, y: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Per member: :func:`member_losses` (as :func:`companion.train.trainer.cross_entropy` takes it) and the
    accuracy, each ``(K,)`` on the logits' device."""
    return member_losses(logits, y, dtype), (logits.argmax(-1) == y).float().mean(1)


@torch.no_grad()
def ensemble_evaluate(ens: Ensemble, x: torch.Tensor | list[torch.Tensor], y: torch.Tensor | list[torch.Tensor],
                      dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor]:
    """Every member's (loss, accuracy) on its own full batch, as ``(K,)`` tensors left on the device: one
    vmapped forward where ``x`` is stacked ``(K, n, ...)``; where it is a list of K batches of different sizes,
    one forward per member, read from the stacks. The forward runs in evaluation mode."""
    training = ens.base.training
    ens.base.eval()
    try:
        if isinstance(x, torch.Tensor):
            return member_scores(ens.forward(x), y, dtype)
        scores = [member_scores(ens.forward_member(k, xk)[None], yk[None], dtype)
                  for k, (xk, yk) in enumerate(zip(x, y))]
        return torch.cat([s[0] for s in scores]), torch.cat([s[1] for s in scores])
    finally:
        ens.base.train(training)
