"""The two-layer student of Levi, Beck & Bar Sinai (ICLR 2024, §3.4 / App. F): an MLP
d_in–d_h–d_out without biases, linear or tanh hidden layer, trained by full-batch GD on the
outputs of a teacher of the same architecture (trained by
:func:`companion.train.linear_estimators.train_two_layer`).

The one-layer student has an exact solution of GD and is not trained here: see
:class:`companion.theory.linear_estimators.LinearGD`. The data are
:mod:`companion.data.teacher_student`.
"""

from __future__ import annotations

import torch

ACTIVATIONS = ("linear", "tanh")


def two_layer(W0: torch.Tensor, W1: torch.Tensor, x: torch.Tensor, is_tanh: torch.Tensor) -> torch.Tensor:
    """Outputs (B, N, d_out) of B two-layer nets (B, d_in, d_h), (B, d_h, d_out) on inputs x
    (N, d_in); member b applies tanh to its hidden layer where ``is_tanh[b]``."""
    h = x @ W0
    return torch.where(is_tanh, torch.tanh(h), h) @ W1


class LinearStudent(torch.nn.Module):
    """The one-layer student ``ŷ = Sᵀx`` (Levi et al. §2) as an ``nn.Module``, from a drawn
    initial student ``S₀`` (d_in, d_out) (:func:`companion.data.teacher_student.linear_teacher_student`)."""

    def __init__(self, S0: torch.Tensor):
        super().__init__()
        self.S = torch.nn.Parameter(S0.detach().clone())  # (d_in, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.S
