"""Grokking on modular addition: the phenomenon every other chapter builds on.

Power et al. (2022) found that a small transformer trained on a fraction of the table of
a + b mod p first memorises its training set and only much later generalises; Nanda et al.
(2023, §3, App. A) made the setting canonical: one layer, d_model 128, p = 113, 30% of the pairs
for training, full-batch AdamW (lr 1e-3, weight decay 1, β = (0.9, 0.98)), and showed that
the weight norm falls while the generalising circuit forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from companion.cache import experiment
from companion.models import Transformer, TransformerConfig
from companion.profiles import select
from companion.tasks import modular_arithmetic
from companion.train import TrainConfig, first_step, train, weight_norm

TITLE = "Grokking on modular addition"
PAPER_ITEMS = ("Fig. 1",)


@dataclass(frozen=True)
class GrokkingConfig:
    """Nanda et al. (2023) App. A: p = 113, 30% training pairs, 1-layer transformer, 50k steps."""

    p: int = 113  # modulus
    op: str = "add"  # a + b mod p
    train_frac: float = 0.3  # fraction of the p² pairs used for training
    model: TransformerConfig = field(default_factory=TransformerConfig)
    train: TrainConfig = field(default_factory=lambda: TrainConfig(steps=50_000, n_evals=200))
    seed: int = 0  # data split and initialisation


PAPER = GrokkingConfig()
PROFILES = {
    "paper": PAPER,
    # a smaller table and a 3x higher learning rate grok in ~3k steps (~1.5 min on one core)
    "cpu": replace(PAPER, p=47, train_frac=0.4, model=replace(PAPER.model, p=47),
                   train=replace(PAPER.train, steps=4_000, lr=3e-3, n_evals=120)),
    "smoke": replace(PAPER, p=23, train_frac=0.5, model=replace(PAPER.model, p=23, d_model=32, d_mlp=64),
                     train=replace(PAPER.train, steps=150, lr=3e-3, n_evals=20)),
}


def config(profile: str, seed: int = 0) -> GrokkingConfig:
    return replace(select(PROFILES, profile), seed=seed)


@experiment
def training_run(cfg: GrokkingConfig, device: str = "cpu") -> dict:
    """Train and test loss/accuracy and the weight norm at log-spaced steps."""
    data = modular_arithmetic(cfg.p, cfg.op, cfg.train_frac, cfg.seed).to(device)
    model = Transformer(cfg.model, seed=cfg.seed).to(device)
    hist = train(model, data, cfg.train, measures={"weight_norm": weight_norm})
    hist["n_train"], hist["n_test"] = data.n_train, len(data.test_y)
    return hist


def milestones(hist: dict, threshold: float = 0.99) -> dict:
    """Steps at which train and test accuracy first reach ``threshold`` and derived ratios."""
    t_train = first_step(hist["step"], hist["train_acc"], threshold)
    t_test = first_step(hist["step"], hist["test_acc"], threshold)
    import numpy as np

    norm_at = lambda t: float(np.interp(t, hist["step"], hist["weight_norm"]))  # noqa: E731
    both = t_train < float("inf") and t_test < float("inf")
    return {"t_train": t_train, "t_test": t_test,
            "delay_ratio": t_test / max(t_train, 1.0) if both else float("nan"),
            "final_test_acc": float(hist["test_acc"][-1]),
            "norm_ratio": norm_at(t_test) / norm_at(t_train) if t_test < float("inf") else float("nan")}


def run_all(profile: str, device: str, seed: int = 0) -> None:
    training_run(config(profile, seed), device)
