"""Figs. 6b, 12 and 13c of Kumar et al.: Nanda et al.'s one-layer transformer on modular addition
with centred logits scaled by α (:class:`companion.models.lazy_rich.ScaledTransformer`), one run
per (α, weight decay) and seed, and (Fig. 13c) beside its linearisation; every run of a figure is
one member of a batched tensor program (:mod:`companion.train.lazy_rich_transformer`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.data.modular import modular_arithmetic
from companion.events import increasing, interpolated_fall, ratio
from companion.experiments.lazy_rich.measures import seed_views, split_seeds, tracks_until, transpose
from companion.measures.kernels import linearise
from companion.models.lazy_rich import ScaledTransformer
from companion.models.transformer import Transformer, TransformerConfig
from companion.settings import unstated
from companion.store.cache import experiment
from companion.train.fit import log_steps
from companion.train.lazy_rich_transformer import (
    TransformerTraining,
    train_linearised_transformers,
    train_scaled_transformers,
)


@dataclass(frozen=True)
class TransformerSweep:
    """Fig. 6b (Nanda et al. 2023 transformer, authors' cell): p=113, d_model 128, d_mlp 512,
    4 heads, train_frac 0.4, centred logits × α, AdamW lr 6e-6/α² (lr0/α²), wd 1, β=(0.9, 0.98),
    10-step warm-up, full batch, 200k epochs."""

    p: int = 113  # modulus
    d_model: int = 128  # residual width (d_mlp = 4·d_model)
    train_frac: float = 0.4  # fraction of the p² pairs in the training set
    runs: tuple = ((0.15, 1.0), (0.3, 1.0), (0.5, 1.0))  # (α, weight decay); paper sweeps α ∈ 0.05…0.5
    lr0: float = 6e-6  # AdamW learning rate lr0/α²
    steps: int = 200_000  # full-batch steps
    seed: int = 0  # data split and init
    n_log: int = 80  # log-spaced evaluation steps
    n_heads: int = 4  # attention heads
    seeds: tuple = unstated(())  # data split and init seeds, each running every (α, wd) (batched); () = (seed,)
    stop_when_crossed: bool = False  # a run leaves the batch once its train and test loss have reached LOSS_LEVEL


FIG6B = TransformerSweep()
FIG6B_PROFILES = {"paper": FIG6B,
                  # a measured reduction
                  "cpu": replace(FIG6B, p=31, d_model=64, train_frac=0.5, lr0=1e-3, steps=4_000, seeds=(0, 1, 2),
                                 stop_when_crossed=True),
                  "smoke": replace(FIG6B, runs=((0.3, 1.0), (1.0, 1.0)), p=13, d_model=32, train_frac=0.5, lr0=1e-3,
                                   steps=150)}
FIG12 = replace(FIG6B, runs=((0.5, 1.0), (0.5, 5.0), (1.4, 5.0)))  # App. 13 (a), (b), (c)
FIG12_PROFILES = {"paper": FIG12,
                  # a measured reduction
                  "cpu": replace(FIG12, p=31, d_model=64, train_frac=0.5, lr0=1e-3, steps=4_000, seeds=(0, 1, 2),
                                 stop_when_crossed=True),
                  "smoke": replace(FIG12, p=13, d_model=32, train_frac=0.5, lr0=1e-3, steps=150)}
LOSS_LEVEL = 0.1  # the cross-entropy that counts as fitted / generalised


@experiment
def transformer(cfg: TransformerSweep, device: str = "cpu") -> dict:
    """Chapter Figs. 6b and 12: one-layer transformer with centred, α-scaled logits; every
    (α, weight decay) run of every seed trained as one batched tensor program (seed-major)."""
    seeds = cfg.seeds or (cfg.seed,)
    tc = TransformerConfig(p=cfg.p, d_model=cfg.d_model, d_mlp=4 * cfg.d_model, n_heads=cfg.n_heads)
    datas = [modular_arithmetic(cfg.p, "add", cfg.train_frac, s).to(device) for s in seeds for _ in cfg.runs]
    models = [ScaledTransformer(Transformer(tc, seed=s), cfg.p, 1.0).to(device) for s in seeds for _ in cfg.runs]
    runs = [r for _ in seeds for r in cfg.runs]
    how = TransformerTraining(cfg.steps, tuple(int(t) for t in log_steps(cfg.steps, cfg.n_log)),
                              stop_level=LOSS_LEVEL if cfg.stop_when_crossed else None)
    out = train_scaled_transformers(models, datas, [a for a, _ in runs], [cfg.lr0 / a ** 2 for a, _ in runs],
                                    [w for _, w in runs], how)
    out["runs"], out["seeds"] = [list(r) for r in cfg.runs], list(seeds)
    return split_seeds(out, len(cfg.runs), len(seeds))


def _unseeded(cfg: TransformerSweep) -> TransformerSweep:
    return replace(cfg, runs=(), seed=0, seeds=())


def shared_transformer(cfg: TransformerSweep, device: str = "cpu") -> dict:
    """:func:`transformer` for Figs. 6b and 12, which share runs: Fig. 12 (a) (α = 0.5, weight decay 1)
    is a run of Fig. 6b's α sweep, with the same seeds, data and initialisation. Every figure config of
    ``cfg``'s profile that differs from ``cfg`` only in its runs is trained as one batch over the union
    of their (α, wd) runs (cached once), and ``cfg``'s runs are read from it; a config that matches no
    other (another seed shift, a changed field) is trained alone."""
    profiles = [FIG6B_PROFILES, FIG12_PROFILES]
    same = [c for prof in profiles for c in prof.values() if _unseeded(c) == _unseeded(cfg)]
    union = tuple(dict.fromkeys([tuple(r) for c in same for r in c.runs] + [tuple(r) for r in cfg.runs]))
    if len(union) == len(cfg.runs):
        return transformer(cfg, device)
    r = transformer(replace(cfg, runs=union), device)
    return None if r is None else select_runs(r, cfg.runs)  # None: a probe (companion.store.slices) computed nothing


def select_runs(r: dict, runs: tuple) -> dict:
    """The results of :func:`transformer` restricted to ``runs`` (each an (α, wd) pair of ``r["runs"]``),
    in that order, for every seed."""
    have = [tuple(x) for x in r["runs"]]
    idx = [have.index(tuple(x)) for x in runs]
    blocks = [{k: v[idx] for k, v in b.items()} for b in r["seed_runs"]]
    return {**r, **blocks[0], "seed_runs": blocks, "runs": [list(x) for x in runs]}


def delay_ratios(r: dict) -> list:
    """t_te(0.1) / t_tr(0.1) of every run (cross-entropy 0.1 as fitted / generalised; not
    observed when either never happens in the run)."""
    s = r["step"]
    return [ratio(interpolated_fall(s, r["test_loss"][k], LOSS_LEVEL),
                  interpolated_fall(s, r["train_loss"][k], LOSS_LEVEL), floor=None) for k in range(len(r["runs"]))]


@dataclass(frozen=True)
class AlphaDelays:
    """Fig. 6b: the grokking delay t_te/t_tr against α (one run per α), per seed."""

    alphas: list
    ratios: list  # t_te(0.1) / t_tr(0.1) per α
    increasing: object  # the ratio increases with α (not observed if a run did not generalise)
    smallest_alpha_ratio: object  # at the smallest α
    smallest_alpha_final: object  # at the smallest α: the last logged test cross-entropy
    smallest_alpha_min: object  # at the smallest α: the lowest logged test cross-entropy


def _fig6b(r: dict) -> AlphaDelays:
    rr = delay_ratios(r)
    te = np.asarray(r["test_loss"][0], float)
    te = te[np.isfinite(te)]
    return AlphaDelays([a for a, _ in r["runs"]], rr, increasing(rr), rr[0], float(te[-1]), float(te.min()))


def fig6b_summary(r: dict) -> AlphaDelays:
    """Fig. 6b's numbers, one list entry per seed."""
    return transpose([_fig6b(v) for v in seed_views(r)])


@dataclass(frozen=True)
class WeightDecayVsLaziness:
    """Fig. 12: t_te/t_tr of runs (a) α = 0.5, wd = 1; (b) wd = 5; (c) larger α, wd = 5; per seed."""

    a: object
    b: object
    c: object


def fig12_summary(r: dict) -> WeightDecayVsLaziness:
    """Fig. 12's numbers, one list entry per seed."""
    return transpose([WeightDecayVsLaziness(*delay_ratios(v)) for v in seed_views(r)])


# --------------------------------------------------------------------------- Fig. 13c
@dataclass(frozen=True)
class TransformerLinearisation:
    """App. 14 Fig. 13c: the Fig. 6b transformer (p = 113, d_model 128, train_frac 0.4, centred
    logits × α) at α = 1, trained with AdamW lr 1e-3/α², wd 2, β = (0.9, 0.98), 10-step warm-up,
    full batch, 15k epochs, beside its linearisation about θ₀ trained the same way."""

    p: int = 113  # modulus
    d_model: int = 128  # residual width (d_mlp = 4·d_model)
    train_frac: float = unstated(0.4)  # fraction of the p² pairs in the training set (Fig. 6b's)
    alpha: float = 1.0  # logit scale
    lr0: float = 1e-3  # AdamW learning rate lr0/α²
    weight_decay: float = 2.0  # AdamW weight decay
    steps: int = 15_000  # full-batch steps
    n_log: int = 80  # log-spaced evaluation steps
    n_heads: int = 4  # attention heads
    seeds: tuple = unstated((0,))  # data split and init seeds (batched)
    stop_when_decided: bool = False  # stop once every seed's train loss has halved and left its linearisation


FIG13C = TransformerLinearisation()
FIG13C_PROFILES = {"paper": FIG13C,
                   # Fig. 12's cpu size; stops once the events the claim reads have happened
                   "cpu": replace(FIG13C, p=31, d_model=64, train_frac=0.5, steps=2_000, seeds=(0, 1, 2),
                                  stop_when_decided=True),
                   "smoke": replace(FIG13C, p=13, d_model=32, train_frac=0.5, steps=100, n_log=30)}
#: Fig. 13c's control: the same runs without weight decay, since App. 14 says the network leaves its linearisation
#: quickly "due to weight decay"
FIG13C_NOWD_PROFILES = {k: replace(v, weight_decay=0.0) for k, v in FIG13C_PROFILES.items()}
TRACK_REL = 0.05  # relative train-loss gap that counts as leaving the linearisation (as Fig. 13b's 5%)


@experiment
def transformer_linearised(cfg: TransformerLinearisation, device: str = "cpu") -> dict:
    """Chapter Fig. 13c: the α-scaled transformer and its ``torch.func.jvp`` linearisation, one
    pair per seed, all one batched tensor program."""
    tc = TransformerConfig(p=cfg.p, d_model=cfg.d_model, d_mlp=4 * cfg.d_model, n_heads=cfg.n_heads)
    datas = [modular_arithmetic(cfg.p, "add", cfg.train_frac, s).to(device) for s in cfg.seeds]
    models = [ScaledTransformer(Transformer(tc, seed=s), cfg.p, 1.0).to(device) for s in cfg.seeds]
    how = TransformerTraining(cfg.steps, tuple(int(t) for t in log_steps(cfg.steps, cfg.n_log)),
                              stop_rel=TRACK_REL if cfg.stop_when_decided else None)
    out = train_linearised_transformers(models, datas, linearise, cfg.alpha, cfg.lr0 / cfg.alpha ** 2, cfg.weight_decay,
                                        how)
    out["seeds"] = list(cfg.seeds)
    return out


@dataclass(frozen=True)
class EarlyDeviation:
    """Fig. 13c per seed: when the network's train loss leaves its linearisation's (by 5%) and
    when it halves, and their ratio."""

    leaves: list  # last logged step within 5%
    halves: list  # the network's train loss at half its initial value
    ratio: list  # leaves / halves


def fig13c_summary(r: dict) -> EarlyDeviation:
    """Fig. 13c's numbers, one list entry per seed."""
    s, net, lin = r["step"], r["train_loss"], r["lin_train"]
    leaves = [tracks_until(s, a, b, TRACK_REL) for a, b in zip(net, lin)]
    halves = [interpolated_fall(s, a, a[0] / 2) for a in net]
    return EarlyDeviation(leaves, halves, [ratio(a, b, floor=None) for a, b in zip(leaves, halves)])
