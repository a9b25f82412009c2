"""Each setting's models and data, one ``nn.Module`` per seed, so that one set of diagnostics reads
every paper's run (:mod:`.experiments`).

* ``transformer`` — :class:`companion.models.transformer.Transformer` on ``[a, b, =]`` (at α ≠ 1
  inside :class:`companion.models.lazy_rich.ScaledTransformer`);
* ``gu`` — :func:`companion.models.gu.gu_transformer` (W_U ~ N(0, 1/d_model));
* ``quadratic`` — :class:`companion.models.quadratic_mlp.QuadraticMLP` on ``(a, b)``, MSE (its
  linearisation about θ₀, :class:`~companion.models.quadratic_mlp.LinearisedQuadraticMLP`, when ``linearised``);
* ``fnn_scratch`` / ``fnn_transfer`` — :class:`companion.models.fnn.FNNModule`, a table embedding
  or GrokTransfer's ``A·B`` with ``A`` the weak model's embedding (seed i from weak seed i, at
  the GrokTransfer chapter's ``partial`` checkpoint);
* ``linear`` — :class:`companion.models.linear_teacher_student.LinearStudent`, MSE, d_out = 1.

Both transformers are computed as :class:`companion.models.gu.TabulatedTransformer` (the same
parameters and function, keys and values tabulated per token: 3 seeds × 150 steps at the cpu size
took 4.5–4.8 s against the plain forward's 7.2–9.2 s), so their runs agree with the plain forward's
to float rounding, not bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from companion.data.embeddings import Pairs
from companion.data.modular import modular_arithmetic
from companion.data.teacher_student import linear_teacher_student
from companion.experiments.groktransfer.common import select
from companion.experiments.groktransfer.modular import weak_modular
from companion.experiments.synthesis.configs import Setting
from companion.models import fnn
from companion.models.gu import TabulatedTransformer, gu_config, gu_transformer
from companion.models.lazy_rich import ScaledTransformer
from companion.models.linear_teacher_student import LinearStudent
from companion.models.quadratic_mlp import LinearisedQuadraticMLP, QuadraticMLP
from companion.models.transformer import TransformerConfig


@dataclass
class Regression:
    """A teacher–student split in the shape the trainers read (real targets ``(n, d_out)``)."""

    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor


def split_seed(cfg: Setting, i: int) -> int:
    """Seed i's data split: its own for every family but the FNNs, whose seeds share one split
    (GrokTransfer's targets: seed i differs from seed 0 only in its initialisation)."""
    return cfg.seed if cfg.kind.startswith("fnn") else cfg.seed + i


def modular_split(cfg: Setting, i: int):
    data = modular_arithmetic(cfg.p, "add", cfg.train_frac, split_seed(cfg, i))
    return data if cfg.kind in ("transformer", "gu") else Pairs(data)


def linear_split(cfg: Setting, i: int) -> tuple[Regression, torch.Tensor]:
    """Levi et al.'s task, d_out = 1, N_tr = d_in / λ: the split and the initial student S₀."""
    n_train = int(round(cfg.train_frac * cfg.width))
    d = linear_teacher_student(cfg.width, 1, n_train, 1, cfg.seed + i, cfg.n_test)
    return Regression(d.x_train[0], d.x_train[0] @ d.teacher[0], d.x_test[0], d.x_test[0] @ d.teacher[0]), d.student0[0]


def weak_embeddings(cfg: Setting, device: str) -> list[torch.Tensor]:
    """The transferred left factors A (p, d_W), one per seed (GrokTransfer's ``partial`` rule)."""
    from dataclasses import replace

    weak = replace(cfg.weak, seed=cfg.seed, n_seeds=max(cfg.weak.n_seeds, cfg.n_seeds))
    sels = select(weak_modular(weak, device), "partial", cfg.n_seeds, weak.first_threshold, weak.partial_below)
    return [torch.as_tensor(s["A"], dtype=torch.float32) for s in sels]


def build(cfg: Setting, device: str = "cpu") -> tuple[list, list]:
    """``(models, splits)``: seed i's module (initialised with seed ``cfg.seed + i``) and split."""
    seeds = range(cfg.n_seeds)
    if cfg.kind == "linear":
        pairs = [linear_split(cfg, i) for i in seeds]
        return [LinearStudent(S0).to(device) for _, S0 in pairs], [_to(d, device) for d, _ in pairs]
    datas = [_to(modular_split(cfg, i), device) for i in seeds]
    if cfg.kind == "transformer":  # tabulated: the same function in about half the time (module docstring)
        tc = TransformerConfig(p=cfg.p, d_model=cfg.width, d_mlp=4 * cfg.width)
        models = [TabulatedTransformer(tc, seed=cfg.seed + i) for i in seeds]
        if cfg.alpha != 1:  # Kumar et al.'s centred, scaled logits α·(f − f₀) (their Fig. 6b)
            models = [ScaledTransformer(m, cfg.p, cfg.alpha) for m in models]
    elif cfg.kind == "gu":
        models = [gu_transformer(gu_config(cfg.p, d_model=cfg.width), seed=cfg.seed + i, tabulated=True) for i in seeds]
    elif cfg.kind == "quadratic":
        net = LinearisedQuadraticMLP if cfg.linearised else QuadraticMLP
        models = [net(cfg.p, cfg.width, cfg.alpha, seed=cfg.seed + i, init=cfg.init) for i in seeds]
    else:
        transfer = cfg.kind == "fnn_transfer"
        A = weak_embeddings(cfg, device) if transfer else [None] * cfg.n_seeds
        spec = fnn.FNNSpec("lowrank" if transfer else "table", cfg.p, cfg.d_embed, (cfg.width, cfg.width), cfg.p,
                           rank=A[0].shape[-1] if transfer else 0)
        models = [fnn.FNNModule(spec, fnn.init_params(spec, [cfg.alpha], cfg.seed + i,
                                                      None if a is None else a[None])) for i, a in zip(seeds, A)]
    return [m.to(device) for m in models], datas


def _to(d, device: str):
    if hasattr(d, "to"):
        return d.to(device)
    for k in ("train_x", "train_y", "test_x", "test_y"):
        setattr(d, k, getattr(d, k).to(device))
    return d


def embedding(model, p: int) -> torch.Tensor | None:
    """The (p, d) embedding of the p numbers (the transformers' "=" row dropped) that an explanation
    by uniformity reads; None for a model without one (the linear student)."""
    W = getattr(model.model if isinstance(model, ScaledTransformer) else model, "W_E", None)
    return None if W is None else W.detach()[:p]


def probe_labels(cfg: Setting, data) -> torch.Tensor:
    """What the probe is stratified over: the class (modular) or the sign of the target (linear)."""
    return (data.train_y[:, 0] > 0).long() if cfg.kind == "linear" else data.train_y
