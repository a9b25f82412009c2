"""GrokFast's EMA gradient filter (Lee et al. 2024, ``gradfilter_ema`` in ironjr/grokfast).

After ``backward()`` and before ``optimizer.step()`` every gradient g is replaced by
g + λ·ḡ, where ḡ ← α ḡ + (1 − α) g is an exponential moving average kept per parameter,
initialised to the first gradient (as in their code: ``grads = {n: p.grad}`` on the first call).
The state is an explicit dict owned by the caller, so the filter is a pure function of
(gradients, state) and fits :func:`companion.train.train`'s ``grad_filter`` hook.
"""

from __future__ import annotations

import torch


def ema_filter(params: list[torch.Tensor], state: dict, alpha: float = 0.98, lamb: float = 2.0) -> None:
    """Amplify the slow component of the gradients in place (Lee et al. 2024, Alg. 'EMA')."""
    ema = state.setdefault("ema", {})
    for i, p in enumerate(params):
        if p.grad is None:
            continue
        g = p.grad.detach()
        if i not in ema:
            ema[i] = g.clone()
        else:
            ema[i].mul_(alpha).add_(g, alpha=1 - alpha)
        p.grad.add_(ema[i], alpha=lamb)


def make_filter(alpha: float = 0.98, lamb: float = 2.0):
    """A ``grad_filter(params, state)`` for :func:`companion.train.train`."""
    def f(params, state):
        ema_filter(params, state, alpha, lamb)
    return f
