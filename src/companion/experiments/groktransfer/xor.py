"""GrokTransfer Sec. 3 (Xu et al. 2025): XOR nets and the target f_L of Theorem 3.2 — Figs. 4,
5, 9, 10, 11 — and their summaries."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.data.xor import xor_data
from companion.events import first_crossing, ratio
from companion.models import xor_net
from companion.settings import unstated
from companion.store.cache import experiment
from companion.train.groktransfer import XorTraining, train_target_fl, train_xor


@dataclass(frozen=True)
class XORConfig:
    """Sec. 3 / A.3.2: n = 400, p = 80 000, ε = 0.05, GD lr 0.1, wd 0.1 (torch convention),
    exponential loss. Wide net m = 2048 with PyTorch's default init; weak nets N(0, 0.1²) /
    N(0, 0.01²); target f_L: v_init 0.4, lr 2.0, m unspecified -> 2048. Test set [-> 2000]."""

    n: int = 400  # training points
    p: int = 80_000  # input dimension
    eps: float = 0.05  # noise coordinate scale ε of the weak nets' data
    wide_eps: float = 0.05  # ε of Fig. 4a's data (the paper: the same data as the weak model)
    n_test: int = 2000  # test points [unspecified]
    eval_every: int = 1  # GD steps between logged accuracies
    lr: float = 0.1  # GD learning rate
    weight_decay: float = 0.1  # L2, torch's convention
    wide_m: int = 2048  # Fig. 4a's width
    wide_steps: int = 300  # Fig. 4a's GD steps
    wide_stop_at: float | None = None  # end Fig. 4a's run once every seed's test accuracy reached this (time only)
    weak_ms: tuple = (3, 1, 2)  # weak nets' neuron counts (Figs. 4b/c, 10, 11)
    weak_steps: int = 1000  # weak nets' GD steps
    weak_w_std: float = 0.1  # weak nets' first layer N(0, std²)
    weak_a_std: float = 0.01  # weak nets' second layer N(0, std²)
    target_m: int = 2048  # f_L's width [unspecified]
    v_init: float = 0.4  # f_L's v_j ~ U({±v_init}^k)
    target_lr: float = 2.0  # f_L's GD learning rate
    target_steps: int = 50  # f_L's GD steps
    test_seed_offset: int = 1  # the test set is drawn with seed + this
    n_seeds: int = unstated(3)  # initialisations per net, trained at once (one data set)
    seed: int = 0  # data and init


XOR_PAPER = XORConfig()
# p 80 000 -> 10 000; the wide net keeps ε²p = 200 (ε = 0.1414); the weak nets and Theorem 3.2
# use ε = 0.11, which satisfies the theorem's (A1) ε⁴p ≤ n/log³n (1.46 ≤ 1.86 at n = 400; 0.1414
# gives 4.0); wide m 2048 -> 128; weak nets 1000 -> 800 steps; evaluation every 5 steps on
# 1000 test points.
XOR_CPU = replace(
    XOR_PAPER,
    p=10_000,
    eps=0.11,
    wide_eps=0.1414,
    wide_m=128,
    wide_steps=400,
    wide_stop_at=0.9,  # the claim reads the first step at test 90%: stop a quarter later
    weak_steps=800,
    n_test=1000,
    eval_every=5,
)
XOR_SMOKE = replace(
    XOR_PAPER,
    p=500,
    n=100,
    eps=0.1414,
    n_test=200,
    wide_eps=0.6,
    wide_m=16,
    wide_steps=10,
    weak_steps=30,
    target_m=64,
    target_steps=5,
    eval_every=5,
)
XOR = {"paper": XOR_PAPER, "cpu": XOR_CPU, "smoke": XOR_SMOKE}


def _xor_data(c: XORConfig, device: str):
    """The training and test points of ``c``, drawn on the host (the same draws on any device), on ``device``."""
    return xor_data(c.n, c.p, c.seed).to(device), xor_data(c.n_test, c.p, c.seed + c.test_seed_offset).to(device)


@experiment
def xor_wide(cfg: XORConfig, device: str = "cpu") -> dict:
    """Fig. 4a: the wide two-layer net trained from scratch."""
    tr, te = _xor_data(cfg, device)
    W, a = (t.to(device) for t in xor_net.init(cfg.n_seeds, cfg.p, cfg.wide_m, None, None, cfg.seed))
    h = train_xor(W, a, tr, te, cfg.wide_eps,
                  XorTraining(cfg.lr, cfg.weight_decay, cfg.wide_steps, cfg.eval_every, stop_at=cfg.wide_stop_at))
    out = {k: (v[0] if k != "step" else v) for k, v in h.items() if k not in ("W", "a")}
    return out | {"seeds": {k: v for k, v in h.items() if k not in ("W", "a", "step")}}


@experiment
def xor_weak(cfg: XORConfig, device: str = "cpu") -> dict:
    """Figs. 4b/c, 5a, 9, 10, 11: weak nets with m ∈ ``weak_ms`` neurons, their features and
    r_W, and the target f_L trained on each one's embedding U = W (Theorem 3.2); ``n_seeds``
    initialisations of each (keys m: seed 0, for the figures; ``"seeds"``: one such dict per seed)."""
    tr, te = _xor_data(cfg, device)
    # all widths and seeds train as one batch of max(m)-neuron nets whose surplus neurons start
    # (and, with zero weights and zero gradients, stay) at exactly 0
    mmax = max(cfg.weak_ms)
    nets = [(s, m) for s in range(cfg.n_seeds) for m in cfg.weak_ms]
    W, a = xor_net.init(len(nets), cfg.p, mmax, cfg.weak_w_std, cfg.weak_a_std, cfg.seed)
    for i, (_, m) in enumerate(nets):
        W[i, :, m:] = 0
        a[i, m:] = 0
    W, a = W.to(device), a.to(device)
    h = train_xor(W, a, tr, te, cfg.eps, XorTraining(cfg.lr, cfg.weight_decay, cfg.weak_steps, cfg.eval_every))
    seeds: list[dict] = [{} for _ in range(cfg.n_seeds)]
    for i, (s, m) in enumerate(nets):
        U = h["W"][i, :, :m]
        tgt = train_target_fl(U, tr, te, cfg.eps, cfg.target_m, cfg.v_init, cfg.target_lr, cfg.target_steps,
                                cfg.seed + s)
        seeds[s][m] = {"step": h["step"], "train_acc": h["train_acc"][i], "test_acc": h["test_acc"][i],
                       "features": xor_net.neuron_features(U), "r_W": float(xor_net.norm_ratio(U[None])[0].cpu()),
                       "target": tgt}
    return {**seeds[0], "seeds": seeds}


@dataclass(frozen=True)
class NormRatioConfig:
    """Fig. 5b/c: r_W of 3-neuron weak nets vs p (n = 1000) and vs n (p = 8·10⁴), for
    ε ∈ {1/40, 1/80, 1/160}; steps unspecified -> 2000."""

    ps: tuple = (40_000, 80_000, 160_000)  # Fig. 5b's p values
    n_for_p: int = 1000  # Fig. 5b's n
    ns: tuple = (400, 800, 1600, 3200)  # Fig. 5c's n values
    p_for_n: int = 80_000  # Fig. 5c's p
    epss: tuple = (1 / 40, 1 / 80, 1 / 160)  # noise scales ε
    seeds: int = 3  # nets per (n, p, ε); r_W is the median over those that learned
    learned_threshold: float = 0.7  # a net "learned" when its final train accuracy reaches this (the spec's rule)
    width: int = 3  # neurons per net
    w_std: float = 0.1  # first layer N(0, std²), as the weak nets of Fig. 4b
    a_std: float = 0.01  # second layer N(0, std²)
    n_test: int = 500  # test points per (n, p)
    steps: int = 2000  # GD steps [unspecified]
    lr: float = 0.1  # GD learning rate
    weight_decay: float = 0.1  # L2, torch's convention
    test_seed_offset: int = 1  # the test set is drawn with seed + this
    seed: int = 0  # data and init


RATIO_PAPER = NormRatioConfig()
RATIO_CPU = replace(
    RATIO_PAPER,
    ps=(1000, 2000, 4000),
    n_for_p=500,
    ns=(100, 200, 400, 800),
    p_for_n=8000,
    seeds=5,
    steps=800,
)
RATIO_SMOKE = replace(
    RATIO_PAPER,
    ps=(500, 1000),
    n_for_p=100,
    ns=(50, 100),
    p_for_n=500,
    seeds=4,
    steps=30,
)
RATIO = {"paper": RATIO_PAPER, "cpu": RATIO_CPU, "smoke": RATIO_SMOKE}


@experiment
def xor_ratio(cfg: NormRatioConfig, device: str = "cpu") -> dict:
    """Fig. 5b/c: r_W over the (p, n) grid; the ε values train together as one batch per (n, p)."""
    grid = [("p", p, cfg.n_for_p) for p in cfg.ps] + [("n", cfg.p_for_n, n) for n in cfg.ns]
    rows = []
    for which, p, n in grid:
        tr = xor_data(n, p, cfg.seed).to(device)
        te = xor_data(cfg.n_test, p, cfg.seed + cfg.test_seed_offset).to(device)
        eps = torch.tensor(cfg.epss, dtype=torch.float32).repeat_interleave(cfg.seeds)
        W, a = (t.to(device) for t in xor_net.init(len(eps), p, cfg.width, cfg.w_std, cfg.a_std, cfg.seed))
        h = train_xor(W, a, tr, te, eps, XorTraining(cfg.lr, cfg.weight_decay, cfg.steps, eval_every=cfg.steps))
        r = xor_net.norm_ratio(h["W"]).cpu().numpy()
        for i, e in enumerate(cfg.epss):
            k = slice(i * cfg.seeds, (i + 1) * cfg.seeds)
            ok = h["train_acc"][k, -1] >= cfg.learned_threshold
            rows.append({"sweep": which, "p": p, "n": n, "eps": e,
                         "r_W": float(np.median(r[k][ok] if ok.any() else r[k])), "learned": int(ok.sum()),
                         "r_each": [float(x) for x in r[k]], "learned_each": [bool(x) for x in ok],
                         "train_acc": float(h["train_acc"][k, -1].max()),
                         "test_acc": float(h["test_acc"][k, -1].max())})
    return {"rows": rows}


# ----------------------------------------------------------------------------- summaries
def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


@dataclass(frozen=True)
class RatioSlopes:
    """Fig. 5b/c: the log–log slope of r_W in p and in n per ε, fitted on the medians over the
    nets that learned (NaN with fewer than 3 such points, as the figure shows them); and per net
    index (seed), fitted on that seed's own nets at every cell, learned or not (at the reduced
    profile most nets end below the learned threshold, which leaves too few points per seed):
    the slope in n of each ε, the one farthest from −1/2, the largest |slope in p| and the
    median over the n cells of the slope in ε."""

    slopes: dict  # (sweep "p" | "n", ε) -> slope
    n_by_seed: list  # per seed: {ε: slope in n}
    n_worst_by_seed: list  # per seed: the slope in n farthest from −1/2
    p_max_abs_by_seed: list  # per seed: the largest |slope in p|
    eps_by_seed: list  # per seed: median over the n cells of the log–log slope of r_W in ε
    #: the slope in ε of every (seed, n) cell whose nets at all three ε learned, and of every cell whose nets at
    #: no ε did: if the second is as close to 1 as the first, r_W ∝ ε is a property of training, not of learning
    eps_learned: tuple = ()
    eps_unlearned: tuple = ()


def _fit(rr: list, sweep: str, seed: int | None) -> float:
    if seed is None:
        pts = [(r[sweep], r["r_W"]) for r in rr if r["learned"] > 0]
    else:
        pts = [(r[sweep], r["r_each"][seed]) for r in rr]
    return loglog_slope(*zip(*pts)) if len(pts) >= 3 else math.nan


def ratio_slopes(rows: list, cfg: NormRatioConfig) -> RatioSlopes:
    """:class:`RatioSlopes` of :func:`xor_ratio`'s rows."""
    def of(sweep, e):
        return [r for r in rows if r["sweep"] == sweep and r["eps"] == e]

    slopes = {(sw, e): _fit(of(sw, e), sw, None) for sw in ("p", "n") for e in cfg.epss}
    cells = sorted({r["n"] for r in rows if r["sweep"] == "n"})
    by_seed = [{e: _fit(of("n", e), "n", j) for e in cfg.epss} for j in range(cfg.seeds)]
    worst = [max(sn.values(), key=lambda v: abs(v + 0.5)) for sn in by_seed]
    pmax = [max(abs(_fit(of("p", e), "p", j)) for e in cfg.epss) for j in range(cfg.seeds)]
    in_eps = [float(np.median([loglog_slope(*zip(*[(r["eps"], r["r_each"][j]) for r in rows
                                                   if r["sweep"] == "n" and r["n"] == n])) for n in cells]))
              for j in range(cfg.seeds)]
    eps_cells: dict = {True: [], False: []}
    for j in range(cfg.seeds):
        for n in cells:
            cr = sorted((r for r in rows if r["sweep"] == "n" and r["n"] == n), key=lambda r: r["eps"])
            learned = {r["learned_each"][j] for r in cr}
            if len(learned) == 1:  # every ε net learned, or none did
                eps_cells[learned.pop()].append(loglog_slope([r["eps"] for r in cr], [r["r_each"][j] for r in cr]))
    return RatioSlopes(slopes, by_seed, worst, pmax, in_eps, tuple(eps_cells[True]), tuple(eps_cells[False]))


@dataclass(frozen=True)
class XORSummary:
    """Figs. 4, 9, 10, 11, per seed: the wide net's delay (first step at test 90% over first
    step at train 100%; not observed if either never happens), the 3-neuron weak net's final
    test accuracy and whether its neurons are three distinct balanced features (|w₁|/|w₂| ∈
    (0.8, 1.25)), the target f_L's train and test accuracy after one step and at the end, the
    1-neuron target's final test accuracy; and seed 0's 2-neuron features."""

    wide_delay: list
    weak3_final_test: list
    three_features: list
    target_train_1: list
    target_test_1: list
    target_final_test: list
    one_neuron_final_test: list
    two_neuron_cosine: float
    two_neuron_features: str
    two_neuron_final_test: float


def _three(f: dict) -> bool:
    return len(set(f["patterns"])) == 3 and bool(np.all((f["ratio"] > 0.8) & (f["ratio"] < 1.25)))


def xor_summary(wide: dict, weak: dict) -> XORSummary:
    """:class:`XORSummary` of :func:`xor_wide` and :func:`xor_weak` results."""
    ws = wide["seeds"]
    wide_delay = [ratio(first_crossing(wide["step"], te, 0.9), first_crossing(wide["step"], tr, 1.0))
                  for tr, te in zip(ws["train_acc"], ws["test_acc"])]
    seeds = weak["seeds"]
    s2 = weak[2]["features"]["signal"]
    cos2 = float(s2[0] @ s2[1] / (np.linalg.norm(s2[0]) * np.linalg.norm(s2[1])))
    kind2 = "orthogonal" if abs(cos2) < 0.3 else ("antipodal (one line)" if cos2 < -0.7 else "neither")
    return XORSummary(wide_delay, [float(s[3]["test_acc"][-1]) for s in seeds],
                      [_three(s[3]["features"]) for s in seeds],
                      [float(s[3]["target"]["train_acc"][1]) for s in seeds],
                      [float(s[3]["target"]["test_acc"][1]) for s in seeds],
                      [float(s[3]["target"]["test_acc"][-1]) for s in seeds],
                      [float(s[1]["target"]["test_acc"][-1]) for s in seeds], cos2, kind2,
                      float(weak[2]["target"]["test_acc"][-1]))
