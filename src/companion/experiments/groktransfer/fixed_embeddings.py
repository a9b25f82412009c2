"""GrokTransfer Figs. 2 and 3 (Xu et al. 2025, A.3.1): a 3-layer FNN on four fixed integer
embeddings, its accuracy and the change of its empirical NTK."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from companion.data import embeddings
from companion.data.embeddings import KINDS
from companion.data.modular import modular_arithmetic
from companion.events import NOT_OBSERVED
from companion.experiments.groktransfer.common import Hyperparams, Split, delays
from companion.measures import pntk
from companion.models import fnn
from companion.settings import one_of, unstated
from companion.store.cache import experiment
from companion.train.groktransfer import EnsembleTraining, train_ensemble


@dataclass(frozen=True)
class FixedRun:
    """One fixed embedding and the (init, lr, wd) the paper selected for it."""

    kind: str  # onehot | binary | fourier | text (companion.data.embeddings.KINDS)
    hyper: Hyperparams  # the paper's configuration for this embedding

    def __post_init__(self):
        one_of("embedding", self.kind, KINDS)


@dataclass(frozen=True)
class FixedEmbeddings:
    """Fig. 2/3 (A.3.1): 3-layer width-512 FNN on frozen, unit-norm embeddings [e_a; e_b];
    configs (init, lr, wd) selected by the paper; epochs unspecified -> 10⁴; pNTK on a fixed
    probe set of training inputs [proposal]."""

    p: int = 113  # the modulus (addition)
    train_frac: float = 0.25  # fraction of the p² pairs used for training
    width: int = 512  # hidden width (two hidden layers)
    runs: tuple = (FixedRun("onehot", Hyperparams(0.2, 0.01, 5.0)), FixedRun("binary", Hyperparams(0.3, 0.01, 1.0)),
                   FixedRun("fourier", Hyperparams(0.5, 0.1, 0.1)), FixedRun("text", Hyperparams(1.3, 0.01, 1.0)))
    epochs: int = 10_000  # full-batch AdamW steps [unspecified]
    ntk_every: int = 100  # epochs between pNTK measurements
    ntk_probes: int = 100  # training inputs the pNTK is measured on (the first ones)
    eval_every: int = 10  # epochs between logged accuracies
    stop_at: float | None = None  # end a run once its test accuracy reaches this (saves time only)
    n_seeds: int = unstated(3)  # inits per embedding, trained at once (the pNTK of each)
    seed: int = 0  # data split and init


FIXED_PAPER = FixedEmbeddings()
FIXED_CPU = replace(
    FIXED_PAPER,
    width=128,
    epochs=1000,
    ntk_every=25,
    ntk_probes=48,
    stop_at=0.99,
)
FIXED_SMOKE = replace(
    FIXED_PAPER,
    width=16,
    epochs=30,
    ntk_every=10,
    ntk_probes=8,
    stop_at=0.99,
)
FIG2 = {"paper": FIXED_PAPER, "cpu": FIXED_CPU, "smoke": FIXED_SMOKE}


@experiment
def fig2(cfg: FixedEmbeddings, device: str = "cpu") -> dict:
    """Figs. 2 and 3: train one FNN per fixed embedding; record accuracies and the pNTK kernel
    distance from initialisation."""
    d = embeddings.Pairs(modular_arithmetic(cfg.p, "add", cfg.train_frac, cfg.seed))
    out = {}
    for run in cfg.runs:
        E, note = embeddings.embedding(run.kind, cfg.p)
        if E is None:
            out[run.kind] = {"skipped": note}
            continue
        data = Split(embeddings.pair_features(E, d.train_x), d.train_y, embeddings.pair_features(E, d.test_x),
                     d.test_y)
        spec = fnn.FNNSpec("fixed", data.train_x.shape[1], 0, (cfg.width, cfg.width), cfg.p,
                           onehot_pair=run.kind == "onehot")  # the same numbers, a cheaper first layer
        probes = data.train_x[: cfg.ntk_probes].to(device)
        K0 = {}

        def ntk(P, spec=replace(spec, onehot_pair=False), probes=probes, K0=K0):  # autograd's own layer
            def fwd(pr, x):
                return fnn.forward({k: v.unsqueeze(0) for k, v in pr.items()}, spec, x)[0]
            out = []
            for i in range(cfg.n_seeds):  # every seed's own kernel, against its own K₀
                K = pntk.pntk(fwd, {k: v[i].detach() for k, v in P.items()}, probes)
                out.append(pntk.kernel_distance(K, K0.setdefault(i, K)))
            return np.array(out)

        P = fnn.init_params(spec, [run.hyper.init_scale] * cfg.n_seeds, cfg.seed)
        c0 = time.process_time()
        how = EnsembleTraining(run.hyper.lr, run.hyper.weight_decay, cfg.epochs, cfg.eval_every,
                               measure_every=cfg.ntk_every, stop_at=cfg.stop_at)
        h = train_ensemble(P, spec, data, how, device=device, measure=ntk)
        h.pop("params")
        out[run.kind] = {**{k: (v[0] if k != "epoch" and k != "measure_epoch" else v) for k, v in h.items()},
                         "note": note, "cpu_s": time.process_time() - c0,
                         "seeds": {k: h[k] for k in ("train_acc", "test_acc", "measure")}}
    return out


@dataclass(frozen=True)
class FixedEmbeddingSummary:
    """Figs. 2, 3: per seed, the 90% delays of the one-hot, binary and Fourier runs; per seed, the
    final pNTK kernel distance of every embedding that ran; and how alike the kernels moved — per seed,
    the largest over the common measurement epochs (every epoch after the start that every embedding's
    run reached: runs stop at different epochs, so only these compare like with like) of the largest
    over the smallest distance across embeddings, with the epoch where it is largest."""

    onehot: list
    binary: list
    fourier: list
    final_ntk: dict  # embedding -> per seed
    ntk_spread: list  # per seed: the worst ratio over the common epochs
    ntk_spread_epoch: list  # per seed: the common epoch of that ratio
    common_epochs: tuple  # the measurement epochs every embedding reached (after the start)


def fixed_embedding_summary(res: dict) -> FixedEmbeddingSummary:
    """:class:`FixedEmbeddingSummary` of a :func:`fig2` result."""
    def per_seed(kind):
        r = res[kind]
        return [delays(r["epoch"], tr, te) for tr, te in zip(r["seeds"]["train_acc"], r["seeds"]["test_acc"])]

    ran = {k: r for k, r in res.items() if "skipped" not in r}
    last = {k: np.asarray(r["seeds"]["measure"], float)[:, -1] for k, r in ran.items()}
    common = sorted(set.intersection(*(set(map(int, r["measure_epoch"])) for r in ran.values())) - {0}) if ran else []
    n = len(next(iter(last.values()))) if last else 1
    spread, at = [NOT_OBSERVED] * n, [NOT_OBSERVED] * n
    if common:
        # (embeddings, seeds, common epochs)
        d = np.stack([np.asarray(r["seeds"]["measure"], float)[:, [list(map(int, r["measure_epoch"])).index(t)
                                                                  for t in common]] for r in ran.values()])
        ok = np.isfinite(d).all((0, 2)) & (d.min((0, 2)) > 0)  # a seed whose kernel never moved has no ratio
        ratio = d.max(0) / np.where(d.min(0) > 0, d.min(0), np.nan)  # (seeds, epochs)
        for i in range(n):
            if ok[i]:
                j = int(np.nanargmax(ratio[i]))
                spread[i], at[i] = float(ratio[i, j]), common[j]
    return FixedEmbeddingSummary(per_seed("onehot"), per_seed("binary"), per_seed("fourier"),
                                 {k: v.tolist() for k, v in last.items()}, spread, at, tuple(common))
