"""The Gaussian teacher–student data of Levi, Beck & Bar Sinai (ICLR 2024, §2, §3.4).

Inputs x ~ N(0, I); teacher (and initial student) entries ~ N(0, 1/(2 d_{l−1} d_l)) per layer, so
that ‖D₀‖²_F ≈ 1 for the one-layer model. Every function draws from one ``torch.Generator`` in a
fixed order, so a result is a function of the seed alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class LinearTeacherStudent:
    """``n_seeds`` independent draws of the one-layer task (float64, leading axis = seed).

    Shapes: ``x_train`` (S, N, d_in), ``x_test`` (S, N_gen, d_in), ``teacher`` and ``student0``
    (S, d_in, d_out), ``noise_unit`` (S, N, d_out) unit-variance label noise (scaled by σ later).
    """

    x_train: torch.Tensor
    x_test: torch.Tensor
    teacher: torch.Tensor
    student0: torch.Tensor
    noise_unit: torch.Tensor


def linear_teacher_student(d_in: int, d_out: int, n_train: int, n_seeds: int, seed: int, n_test: int,
                           device: str = "cpu") -> LinearTeacherStudent:
    """Draw inputs, fresh test inputs, teacher, initial student and label noise, in that order."""
    g = torch.Generator().manual_seed(seed)
    f64 = torch.float64
    x = torch.randn(n_seeds, n_train, d_in, generator=g, dtype=f64)
    x_test = torch.randn(n_seeds, n_test, d_in, generator=g, dtype=f64)
    sd = math.sqrt(1 / (2 * d_in * d_out))
    teacher = torch.randn(n_seeds, d_in, d_out, generator=g, dtype=f64) * sd
    student0 = torch.randn(n_seeds, d_in, d_out, generator=g, dtype=f64) * sd
    noise = torch.randn(n_seeds, n_train, d_out, generator=g, dtype=f64)
    return LinearTeacherStudent(*(a.to(device) for a in (x, x_test, teacher, student0, noise)))


def gaussian_layer(d_a: int, d_b: int, g: torch.Generator) -> torch.Tensor:
    """One (d_a, d_b) layer with entries ~ N(0, 1/(2 d_a d_b)) (float32), drawn from ``g``."""
    return torch.randn(d_a, d_b, generator=g) * math.sqrt(1 / (2 * d_a * d_b))


def two_layer_inputs(d_in: int, n: int, g: torch.Generator) -> torch.Tensor:
    """``n`` inputs x ~ N(0, I_{d_in}) (float32) for the two-layer task (§3.4), drawn from ``g``
    before the layers (:func:`gaussian_layer`)."""
    return torch.randn(n, d_in, generator=g)
