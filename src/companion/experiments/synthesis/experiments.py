"""The synthesis chapter's cached experiments: every setting trained with the same diagnostics.

At each log-spaced evaluation step every seed records, besides the losses and accuracies,
(:mod:`companion.measures.kernels`, :mod:`companion.measures.embedding`):

* ``kernel_distance`` — 1 − cos(K_t, K₀) of the empirical NTK on a stratified probe of training
  points (Kumar et al.'s lazy-to-rich transition: a lazy network keeps K₀);
* ``alignment`` — the unbiased centred kernel–target alignment of K_t with the probe's labels
  (Kumar et al. §5.3: the rich regime aligns the kernel with the task);
* ``med_normalised`` and ``med_invariant`` — the embedding's MED (Gu et al. Def. 4.2) over its RMS
  norm, and its minimum over the relabellings a → ca (models with an embedding only);
* ``param_sq`` — Σ‖θ‖² (the weight norm that weight decay shrinks).
"""

from __future__ import annotations

from dataclasses import replace

import torch

from companion.experiments.synthesis.configs import PROFILES, Setting
from companion.experiments.synthesis.settings import build, embedding, probe_labels
from companion.measures.embedding import med_invariant, med_normalised
from companion.measures.kernels import centred_alignment, kernel_distance, module_ntk, stratified_probe
from companion.profiles import select
from companion.store.cache import experiment
from companion.train import train_batched
from companion.train.synthesis import train_mse_batched

#: the diagnostics recorded on every run (``med_*`` only where the model has an embedding)
DIAGNOSTICS = ("kernel_distance", "alignment", "med_normalised", "med_invariant", "param_sq")
#: families trained with squared error (the rest with cross-entropy)
MSE_KINDS = ("quadratic", "linear")


def setting(profile: str, name: str, seed: int = 0) -> Setting:
    """The setting ``name`` at ``profile`` with first seed ``seed``."""
    return replace(select(PROFILES, profile)[name], seed=seed)


def diagnostics(cfg: Setting, model: torch.nn.Module, data, i: int) -> dict:
    """Seed i's measures (module docstring), as functions of the model for the trainer's
    ``measures=``; K₀ is taken now, so call this before training."""
    d = cfg.diagnostics
    labels = probe_labels(cfg, data).cpu()
    n = max(d.min_probe, d.per_class * int(labels.max() + 1))
    idx = stratified_probe(labels, n, d.probe_seed + cfg.seed + i).to(data.train_x.device)
    x, y = data.train_x[idx], data.train_y[idx]

    def ntk(m):
        with torch.enable_grad():
            return module_ntk(m, x, output=d.ntk_output)

    K0, last = ntk(model), {}

    def distance(m) -> float:
        last["K"] = ntk(m)
        return kernel_distance(last["K"], K0)

    out = {"kernel_distance": distance, "alignment": lambda m: centred_alignment(last["K"], y),
           "param_sq": lambda m: float(sum((q.detach().double() ** 2).sum() for q in m.parameters()))}
    if embedding(model, cfg.p) is not None:
        out["med_normalised"] = lambda m: med_normalised(embedding(m, cfg.p), cfg.p)
        out["med_invariant"] = lambda m: med_invariant(embedding(m, cfg.p), cfg.p)
    return out


@experiment
def clock_runs(cfg: Setting, device: str = "cpu") -> list[dict]:
    """Every seed of ``cfg`` trained as one batch, with :data:`DIAGNOSTICS` at its evaluation
    steps: one history per seed (keys of :func:`companion.train.train` and the diagnostics)."""
    models, datas = build(cfg, device)
    measures = [diagnostics(cfg, m, d, i) for i, (m, d) in enumerate(zip(models, datas))]
    if cfg.kind in MSE_KINDS:
        hists = train_mse_batched(models, datas, cfg.train, n_classes=None if cfg.kind == "linear" else cfg.p,
                                  acc_eps=cfg.acc_eps, alpha=cfg.alpha, measures=measures)
    else:
        hists = train_batched(models, datas, cfg.train, measures=measures)
    for h, d in zip(hists, datas):
        h["n_train"], h["n_test"] = len(d.train_y), len(d.test_y)
    return hists


def all_clock_runs(profile: str, device: str, names, seed: int = 0) -> dict[str, list[dict]]:
    """:func:`clock_runs` of each setting in ``names`` at ``profile``: {name: histories}."""
    return {n: clock_runs(setting(profile, n, seed), device) for n in names}
