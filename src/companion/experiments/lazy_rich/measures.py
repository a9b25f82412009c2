"""Measurements on the loss and accuracy curves of the lazy-to-rich chapter: half-times, how long
one curve tracks another, rank trends, and the split of a batched sweep into its seeds (the
crossing times, ratios and monotonicity they use are :mod:`companion.events`').

A crossing that never happens in the run is :data:`~companion.events.NOT_OBSERVED` (never ∞):
a delay or ratio built from it is not observed too, and every claim on it fails unless the
paper's claim is that it never happens."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from companion.events import NOT_OBSERVED, interpolated_fall, observed


def half_times(step, train, test, frac: float = 0.5) -> tuple:
    """(t_train, t_test): first times the train / test loss fall to ``frac`` of their start."""
    return interpolated_fall(step, train, frac * train[0]), interpolated_fall(step, test, frac * test[0])


def train_at(step, train, t):
    """``train`` / its start at time ``t`` (interpolated linearly in log(step), as
    :func:`~companion.events.interpolated_fall`): how low
    the train loss is when another event happens (not observed if ``t`` is not)."""
    if not observed(t):
        return NOT_OBSERVED
    step, train = np.asarray(step, float), np.asarray(train, float)
    return float(np.interp(np.log(max(float(t), 1.0)), np.log(np.maximum(step, 1.0)), train) / train[0])


def tracks_until(step, a, b, rel: float = 0.02) -> float:
    """Last logged step before ``|a − b|/|b|`` first exceeds ``rel``."""
    dev = np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))
    bad = np.nonzero(dev > rel)[0]
    return float(step[-1]) if not len(bad) else float(step[max(bad[0] - 1, 0)])


def rank_trend(x, v, min_points: int):
    """Spearman ρ between ``x`` and the observed values of ``v`` (a sweep's settings and, say, its delay
    ratios): how monotone the trend is over the runs whose event happened, ignoring a small wiggle that
    strict monotonicity (:func:`~companion.events.increasing`) would fail on; not observed when fewer than
    ``min_points`` are observed."""
    from scipy.stats import spearmanr

    keep = [(float(a), float(b)) for a, b in zip(x, v) if observed(b)]
    if len(keep) < min_points:
        return NOT_OBSERVED
    return float(spearmanr(*zip(*keep)).statistic)


def smallest_step_ratio(v):
    """min over neighbours of v[i+1]/v[i] (> 1: increasing, with its margin); not observed if any is."""
    if not all(observed(x) for x in v):
        return NOT_OBSERVED
    v = np.asarray(v, float)
    return float((v[1:] / v[:-1]).min())


def split_seeds(res: dict, n_runs: int, n_seeds: int) -> dict:
    """A batched sweep's results (run axis seed-major: ``n_seeds`` blocks of ``n_runs``) as the first
    seed's results, with every seed's own run arrays under ``seed_runs`` (for :func:`seed_views`)."""
    R = n_runs * n_seeds
    axis = [k for k, a in res.items() if isinstance(a, np.ndarray) and a.ndim and a.shape[0] == R and k != "step"]
    blocks = [{k: res[k][s * n_runs:(s + 1) * n_runs] for k in axis} for s in range(n_seeds)]
    return {**res, **blocks[0], "seed_runs": blocks}


def seed_views(r: dict) -> list[dict]:
    """One results dict per seed of a sweep made by :func:`split_seeds` (just ``[r]`` without seeds)."""
    return [{**r, **b} for b in r.get("seed_runs", [{}])]


def transpose(items: list):
    """A list of per-seed summaries (one dataclass each) -> one dataclass whose fields are lists."""
    cls = type(items[0])
    return cls(**{f.name: [getattr(x, f.name) for x in items] for f in fields(cls)})


def seed_values(values: list, why: str) -> dict:
    """The keywords of :meth:`companion.claims.Claims.claim` for one value per seed: ``per_seed``
    when there are several, else ``measured`` with ``one_value=why`` (a kept result of one seed)."""
    return {"per_seed": list(values)} if len(values) > 1 else {"measured": values[0], "one_value": why}


def control_values(values: list) -> dict:
    """The keywords of :class:`companion.claims.ControlRun` for one value per seed (``measured`` for one seed)."""
    return {"per_seed": list(values)} if len(values) > 1 else {"measured": values[0]}
