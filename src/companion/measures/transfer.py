"""Xu et al.'s (2025) transfer probe as a diagnostic of any embedding (the synthesis chapter).

GrokTransfer (§2.2, A.3) initialises a target FNN's embedding as E_T = A·B with A the weak
model's embedding and B fresh, and trains both. :func:`transfer_probe` does that briefly for a
given (p, d) embedding — of any model, at any training step — and reports the target's test
accuracy: how much of the task the embedding already makes easy to learn.
"""

from __future__ import annotations

import torch

from companion.data.embeddings import Pairs
from companion.data.modular import modular_arithmetic
from companion.models import fnn
from companion.train.groktransfer import train_ensemble


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
    ensemble (:func:`companion.train.groktransfer.train_ensemble`). The probe's sizes and
    optimiser settings are this book's (the paper's targets are (128, 512, 512) trained 10⁴ steps).
    """
    A = embedding.detach()[:p].float().cpu()
    if normalise:
        A = A / A.pow(2).sum(1).mean().sqrt().clamp_min(1e-12)
    data = Pairs(modular_arithmetic(p, op, train_frac, data_seed))
    spec = fnn.FNNSpec("lowrank", p, d_embed, (width, width), p, rank=A.shape[1])
    P = fnn.init_params(spec, [init_scale] * n_seeds, seed, A=A.expand(n_seeds, *A.shape))
    dev = device or str(embedding.device)
    h = train_ensemble(P, spec, data, lr, weight_decay, steps, eval_every=steps, device=dev)
    return float(h["test_acc"][:, -1].mean())
