"""The quadratic single-index task of Kumar et al. (§5, App. 8.1) on the exact (w̄, M) closure
(:mod:`companion.theory.lazy_rich`), batched over the runs of a sweep: Figs. 3a, 3b, 3e, 7, 9,
10 and 14, with their profiles and summaries."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.events import NOT_OBSERVED, increasing, observed, ratio
from companion.experiments.lazy_rich.measures import (
    half_times,
    rank_trend,
    seed_views,
    split_seeds,
    train_at,
    transpose,
)
from companion.linalg import solve
from companion.measures.ntk import kernel_alignment
from companion.settings import unstated
from companion.store.cache import experiment
from companion.theory import lazy_rich as th
from companion.train.fit import log_steps

DT = torch.float64


# --------------------------------------------------------------------------- configs
@dataclass(frozen=True)
class QuadraticRun:
    """One run of the committee machine on the quadratic single-index task (§5, App. 8.1).

    Defaults: Fig. 1 (D=100, P=550, N=500, ε=0.02, α=1, η = N/α², centred, 100k steps)."""

    D: int = 100  # input dimension
    P: int = 550  # training points
    N: int = 500  # hidden units (0: infinite width, M0 = σ²I)
    eps: float = 0.02  # quadratic part of φ: initial kernel–task alignment
    alpha: float = 1.0  # output scale: laziness
    sigma: float = 1.0  # weight init scale
    lr0: float = 1.0  # Kumar et al.'s η0: the GD step is η = η0·N/(α²σ²)
    steps: int = 100_000  # full-batch GD steps
    centred: bool = True  # f̃ = f − f(W0)
    target_scale: float = 0.5  # y = target_scale·Σ_k (β_k·x)²
    n_index: int = 1  # number of β_k (App. 15.1)
    lam: float = 0.0  # fraction of the analytic solution mixed into W0 (App. 8.3.3)
    weight_decay: float = 0.0  # decoupled weight decay κ (App. 13): every step multiplies W by 1 − η0κ
    seed: int = 0  # data seed; weight seed = seed + 1
    n_log: int = 160  # log-spaced evaluation steps


@dataclass(frozen=True)
class Sweep:
    """A batch of QuadraticRun runs differing in ``fields`` (one tuple of values per run)."""

    base: QuadraticRun = QuadraticRun()  # the settings every run shares
    fields: tuple = ("alpha",)  # the QuadraticRun fields that vary
    values: tuple = ((1.0,),)  # one tuple of values of ``fields`` per run
    n_cka: int = 1000  # fresh test points for the initial kernel–target alignment (Fig. 3b)
    cka_seed: int = 12_345  # their seed (the same points for every run)
    seeds: tuple = unstated(())  # data seeds (weight seed = seed + 1), each running every value; () = base.seed
    dtype: str = "float64"  # precision of the closure's iteration (the task and the kernels stay float64)


# Fig. 3a / 7: the authors' cell uses y = (β·x)² (no ½), ε = 0.25, D=100, P=450, N=500, η0 = 0.5
Q3A = QuadraticRun(P=450, eps=0.25, lr0=0.5, steps=60_000, target_scale=1.0)
ALPHAS = (2 ** -5, 2 ** -2, 2 ** -1, 1.0, 2.0, 4.0, 8.0, 16.0)
SIGMAS = (0.25, 0.5, 1.0, 2.0)  # Fig. 7b,c (the paper's 1/8 diverges at reduced D)
SEEDS = (0, 1, 2)  # data seeds of every sweep (weight seed = seed + 1), batched with its runs
FIG3A = Sweep(Q3A, ("alpha",), tuple((a,) for a in ALPHAS), seeds=SEEDS)
FIG7B = Sweep(Q3A, ("sigma",), tuple((s,) for s in SIGMAS), seeds=SEEDS)
FIG7C = Sweep(Q3A, ("sigma", "alpha"), tuple((s, 1 / s ** 2) for s in SIGMAS), seeds=SEEDS)
# cpu: half the paper's η0 for twice the steps (the same continuous-time dynamics): at η0 = 0.5 and D = 30 the
# α = 1/32 run of seed 0 ended in a period-2 oscillation (train loss alternating 0.106 / 0.053 of its start), a
# step too large for the curvature the rich solution reaches; at η0 = 0.25 every run converges and the delay
# ratios are unchanged to 3 digits
Q3A_CPU = replace(Q3A, D=30, P=135, N=150, lr0=0.25, steps=40_000)
Q3A_SMOKE = replace(Q3A, D=16, P=72, N=60, steps=3_000)

# float32 at cpu (Figs. 3a, 7b, c): against float64 the cpu runs move relative parameter changes by < 1e-4, final
# losses by < 1% and Fig. 3a's summary (delay ratios, K0 ratios) by < 3e-4, every verdict the same; the claims
# bound them to within 5% (relative change), 25% (final loss) or compare orderings. About half the time.
FIG3A_PROFILES = {
    "paper": FIG3A,
    # 5 seeds: the smallest α's delay ratio straddles 2 (1.76–3.89 over seeds 0–2 and 1000–1004)
    "cpu": replace(FIG3A, base=Q3A_CPU, dtype="float32", seeds=(0, 1, 2, 3, 4)),
    "smoke": replace(FIG3A, base=Q3A_SMOKE, values=((2 ** -5,), (1.0,), (16.0,)), seeds=(0,)),
}
# smoke (D = 16): σ = 1/4 breaks the step-size stability rule 2(η0/σ²)(1+√(D/P))²/D < 2
FIG7B_PROFILES = {"paper": FIG7B,
                  "cpu": replace(FIG7B, base=Q3A_CPU, dtype="float32"),
                  "smoke": replace(FIG7B, base=Q3A_SMOKE, values=FIG7B.values[1:], seeds=(0,))}
FIG7C_PROFILES = {"paper": FIG7C,
                  "cpu": replace(FIG7C, base=Q3A_CPU, dtype="float32"),
                  "smoke": replace(FIG7C, base=Q3A_SMOKE, values=FIG7C.values[1:], seeds=(0,))}

# Fig. 3b: no code survives; reconstructed as Fig. 1's setup with an ε sweep
EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)
FIG3B = Sweep(QuadraticRun(), ("eps",), tuple((e,) for e in EPSILONS), seeds=SEEDS)
FIG3B_PROFILES = {"paper": FIG3B,
                  # float32: the claims read losses, no small differences of large numbers
                 "cpu": replace(FIG3B, base=replace(FIG3B.base, D=30, P=165, N=0, steps=20_000), dtype="float32"),
                  "smoke": replace(FIG3B, base=replace(FIG3B.base, D=16, P=88, N=0, steps=3_000),
                                   values=((0.02,), (0.25,), (1.0,)), seeds=(0,))}

# Fig. 3e: phase diagram α = 0.4i, ε = 0.02i (i = 1..14), η0 = 20, ≤ 110k steps
FIG3E = Sweep(replace(QuadraticRun(), lr0=20.0, steps=110_000),
              ("alpha", "eps"), tuple((0.4 * i, 0.02 * j) for i in range(1, 15) for j in range(1, 15)), seeds=SEEDS)
GRID5 = tuple((a, e) for a in (0.4, 1.6, 2.8, 4.0, 5.2) for e in (0.02, 0.08, 0.14, 0.2, 0.26))
FIG3E_PROFILES = {"paper": FIG3E,
                  # η0 scaled with D (stability: 2η0(1+√(D/P))²/D < 2)
                  "cpu": replace(FIG3E, base=replace(FIG3E.base, D=20, P=110, N=0, lr0=8.0, steps=12_000),
                                 values=GRID5, dtype="float32"),
                  "smoke": replace(FIG3E, base=replace(FIG3E.base, D=12, P=66, N=0, lr0=4.0, steps=2_000),
                                   values=tuple((a, e) for a in (0.4, 2.8, 5.2) for e in (0.02, 0.14, 0.26)),
                                   seeds=(0,))}

# Fig. 9: goldilocks P ∈ {50, 120, 500} (the paper's); D=40, N=100, ε=0.5, η0=0.5, 50k steps (authors' cell)
FIG9 = Sweep(QuadraticRun(D=40, N=100, eps=0.5, lr0=0.5, steps=50_000), ("P",), ((50,), (120,), (500,)), seeds=SEEDS)
FIG9_PROFILES = {"paper": FIG9,
                 # 5 seeds: P = 500's delay ratio straddles 2 over 3
                 "cpu": replace(FIG9, base=replace(FIG9.base, steps=10_000), dtype="float32", seeds=(0, 1, 2, 3, 4)),
                 "smoke": replace(FIG9, base=replace(FIG9.base, D=16, N=40, steps=2_000),
                                  values=((20,), (48,), (200,)), seeds=(0,))}

# Figs. 4 and 10 (App. 8.3.3): the authors' N = 2 cell — D=40, P=120, ε=0.25, η = 0.5N = 1, uncentred,
# y = ½(β·x)², 20k epochs; W0 ← (1−λ)W0 + λ·(±β/√(αε)). Float64; a run that diverges is kept as
# such (its values are not observed), never replaced by another seed.
N2 = replace(QuadraticRun(), D=40, P=120, N=2, eps=0.25, lr0=0.5, centred=False, steps=20_000)
LAMS = (0.0, 0.2, 0.5, 0.95)
SMALL_LAM = 0.2  # the paper's "even a small" component of the solution
FIG10 = Sweep(N2, ("lam",), tuple((v,) for v in LAMS), seeds=(0, 1, 2, 3, 4))
FIG10_PROFILES = {"paper": FIG10, "cpu": replace(FIG10, base=replace(N2, steps=5_000)),
                  "smoke": replace(FIG10, base=replace(N2, steps=1_000), seeds=(0, 1))}

# Fig. 14: multi-index targets y = ½ Σ_k (β_k·x)², K ∈ {1,2,3}, P = 11·D (our choice)
FIG14 = Sweep(replace(QuadraticRun(), P=1100, steps=30_000), ("n_index",), ((1,), (2,), (3,)), seeds=SEEDS)
FIG14_PROFILES = {"paper": FIG14, "cpu": replace(FIG14, base=replace(FIG14.base, D=30, P=330, N=150, steps=20_000),
                                                  dtype="float32"),
                  "smoke": replace(FIG14, base=replace(FIG14.base, D=16, P=176, N=60, steps=3_000), seeds=(0,))}


# --------------------------------------------------------------------------- helpers
def init_stats(q: QuadraticRun, beta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(w̄0, M0) of one run: finite N from W0 ~ σN(0,1) (seed+1), or the N → ∞ values."""
    if q.N == 0:
        w, M = th.infinite_width_stats(1, q.D, q.sigma)
        if q.lam:
            raise ValueError("the interpolated init needs a finite width")
        return w[0], M[0]
    g = torch.Generator().manual_seed(q.seed + 1)
    W0 = q.sigma * torch.randn(q.N, q.D, generator=g, dtype=DT)
    if q.lam:
        sol = beta[0] / math.sqrt(q.alpha * q.eps)
        signs = torch.tensor([1.0 if i % 2 == 0 else -1.0 for i in range(q.N)], dtype=DT)
        W0 = (1 - q.lam) * W0 + q.lam * signs[:, None] * sol
    w, M = th.init_stats(W0[None])
    return w[0], M[0]


def task(q: QuadraticRun) -> dict:
    """The run's data (X, y, T, beta) without the batch axis."""
    t = th.quadratic_task(q.D, q.P, q.seed, q.n_index, q.target_scale)
    return {k: v[0] for k, v in t.items()}


def stack_runs(runs: list[QuadraticRun]) -> dict:
    """Batch runs of equal D (P padded with zero rows, which carry zero residual)."""
    Pmax = max(q.P for q in runs)
    Xs, ys, Ts, ws, Ms = [], [], [], [], []
    for q in runs:
        t = task(q)
        pad = Pmax - q.P
        Xs.append(torch.cat([t["X"], torch.zeros(pad, q.D, dtype=DT)]))
        ys.append(torch.cat([t["y"], torch.zeros(pad, dtype=DT)]))
        Ts.append(t["T"])
        w, M = init_stats(q, t["beta"])
        ws.append(w)
        Ms.append(M)

    def per_run(name: str) -> torch.Tensor:
        return torch.tensor([float(getattr(q, name)) for q in runs], dtype=DT)

    return {"X": torch.stack(Xs), "y": torch.stack(ys), "T": torch.stack(Ts), "w": torch.stack(ws),
            "M": torch.stack(Ms), "alpha": per_run("alpha"), "eps": per_run("eps"),
            "weight_decay": per_run("weight_decay"),
            # η = η0·N/(α²σ²): the authors' Fig. 7 cells use 0.5N/σ² (σ sweep) and 0.5Nσ² (α = 1/σ²)
            "lr0_eff": per_run("lr0") / per_run("sigma") ** 2 * Pmax / per_run("P"), "pad": Pmax / per_run("P")}


def difficulty(runs: list[QuadraticRun], b: dict) -> np.ndarray:
    """App. 10, eqs. 8-9: the task difficulty ``yᵀK⁻¹y`` of every run, K the initial NTK on its training set
    (``(α²/N)·K_stats``, :func:`~companion.theory.lazy_rich.ntk_from_stats`), divided by N: the kernel-limit
    value of the per-neuron weight change ``‖W − W0‖²_F / N``. ``y`` is the residual the network must fit
    (the target; minus the initial output when not centred)."""
    out = []
    for i, q in enumerate(runs):
        X, w, M = b["X"][i:i + 1, :q.P], b["w"][i:i + 1], b["M"][i:i + 1]
        y = b["y"][i:i + 1, :q.P]
        if not q.centred:
            y = y - q.alpha * (X @ w[..., None])[..., 0] - q.alpha * q.eps / 2 * th.quad_form(X, M)
        K = th.ntk_from_stats(X, X, w, M, q.eps)[0]
        out.append(float(y[0] @ solve(K, y[0])) / q.alpha ** 2)
    return np.asarray(out)


def on(b: dict, device: str) -> dict:
    return {k: v.to(device) for k, v in b.items()}


def _run_batch(runs: list[QuadraticRun], linearised: bool = False, device: str = "cpu",
               dtype: str = "float64") -> dict:
    q0 = runs[0]
    b = stack_runs(runs)
    la = log_steps(q0.steps, q0.n_log)
    d = {k: v.to(device=device, dtype=getattr(torch, dtype)) for k, v in b.items()}
    res = th.run_closure(d["X"], d["y"], d["T"], d["w"], d["M"], d["alpha"], d["eps"], d["lr0_eff"],
                         q0.steps, la, centred=q0.centred, linearised=linearised, wd=d["weight_decay"])
    res["train_loss"] = res["train_loss"] * b["pad"].numpy()[:, None]
    return res


@experiment
def quad_sweep(cfg: Sweep, device: str = "cpu") -> dict:
    """All runs of a sweep through the exact closure in one batch (chapter Figs. 3a, 3b, 3e, 7,
    9, 10, 14), with each run's initial kernel–target alignment (Fig. 3b)."""
    seeds = cfg.seeds or (cfg.base.seed,)
    runs = [replace(cfg.base, **dict(zip(cfg.fields, v)), seed=s) for s in seeds for v in cfg.values]  # seed-major
    res = _run_batch(runs, device=device, dtype=cfg.dtype)
    b = stack_runs(runs)
    g = torch.Generator().manual_seed(cfg.cka_seed)
    cX = (torch.randn(cfg.n_cka, cfg.base.D, generator=g, dtype=DT) / math.sqrt(cfg.base.D)).expand(len(runs), -1, -1)
    K0 = th.ntk_from_stats(cX, cX, b["w"], b["M"], b["eps"])
    res["cka0"] = kernel_alignment(K0, th.quad_form(cX, b["T"])).numpy()
    res["difficulty"] = difficulty(runs, b)
    if len({q.P for q in runs}) == 1 and cfg.base.centred:  # K0 kernel regression: the α → ∞ limit
        res["k0_test"] = th.k0_regression_loss(b["X"], b["y"], b["T"], b["w"], b["M"], b["eps"]).numpy()
    res["values"] = [list(v) for v in cfg.values]
    res["fields"] = list(cfg.fields)
    res["seeds"] = list(seeds)
    return split_seeds(res, len(cfg.values), len(seeds))


# --------------------------------------------------------------------------- summaries
# Every summary is computed per data seed (:func:`seed_views`) and returned with one list per field.
DELAYED = 2.0  # "grokking": the test loss halves ≥ 2× later than the train loss (t_te(½)/t_tr(½))


def _half_times(r: dict) -> list[tuple]:
    return [half_times(r["step"], r["train_loss"][i], r["test_loss"][i]) for i in range(len(r["values"]))]


def _final(r: dict) -> np.ndarray:
    """Final / initial test loss of every run."""
    return r["test_loss"][:, -1] / r["test_loss"][:, 0]


def _rise(r: dict) -> np.ndarray:
    """Largest / initial test loss of every run."""
    return r["test_loss"].max(1) / r["test_loss"][:, 0]


def per_seed(summary, r: dict, *more: dict):
    """``summary`` of each seed's runs (of ``r`` and, seed by seed, of ``more``), one list per field."""
    views = [seed_views(x) for x in (r, *more)]
    return transpose([summary(*vs) for vs in zip(*views)])


@dataclass(frozen=True)
class AlphaSweep:
    """Fig. 3a: the grokking delay and final loss against α (one list entry per seed)."""

    ratios: list  # t_te(½) / t_tr(½) of every α (not observed where a loss never halves)
    delay_increasing: list  # t_te(½) / t_tr(½) increases with α (strictly, every α observed)
    delay_trend: list  # Spearman ρ(α, t_te(½) / t_tr(½)) over the α whose test loss halves (≥ 5 of them)
    laziest_generalising: list  # the largest α whose test loss halves
    final_increasing: list  # final / initial test loss increases with α
    lazy_train_at_test_half: list  # train / initial when the test loss halves, at the laziest α whose test loss halves
    rich_train_at_test_half: list  # the same at the smallest α
    smallest_alpha: float  # the smallest α of the sweep
    smallest_alpha_ratio: list  # t_te(½) / t_tr(½) at the smallest α
    unit_alpha_ratio: list  # t_te(½) / t_tr(½) at α = 1 (the control of "small α eliminates grokking")
    largest_alpha_over_k0: list  # final test loss / K0 kernel-regression test loss at the largest α
    k0_gap_shrinks: list  # |log(final / K0)| decreases with α over α ≥ 1 (the α → ∞ limit is K0)


def _fig3a(r: dict) -> AlphaSweep:
    ht = _half_times(r)
    al = [v[0] for v in r["values"]]
    k0 = r.get("k0_test", np.full(len(al), np.nan))  # a result kept before the K0 line was computed has none
    gap = np.abs(np.log(r["test_loss"][:, -1] / k0))
    big = [i for i, a in enumerate(al) if a >= 1.0]
    rs = [ratio(b, a, floor=None) for a, b in ht]
    gen = [i for i, (_, t) in enumerate(ht) if observed(t)]
    lazy = gen[-1] if gen else len(al) - 1
    return AlphaSweep(ratios=rs, delay_increasing=increasing(rs), delay_trend=rank_trend(al, rs, 5),
                      laziest_generalising=al[lazy] if gen else NOT_OBSERVED, final_increasing=increasing(_final(r)),
                      lazy_train_at_test_half=train_at(r["step"], r["train_loss"][lazy], ht[lazy][1]),
                      rich_train_at_test_half=train_at(r["step"], r["train_loss"][0], ht[0][1]),
                      smallest_alpha=al[0], smallest_alpha_ratio=ratio(ht[0][1], ht[0][0], floor=None),
                      unit_alpha_ratio=rs[al.index(1.0)] if 1.0 in al else NOT_OBSERVED,
                      largest_alpha_over_k0=float(r["test_loss"][-1, -1] / k0[-1]),
                      k0_gap_shrinks=increasing(-gap[big]) if np.isfinite(gap[big]).all() else NOT_OBSERVED)


def sweep_values(r: dict) -> list:
    """The swept values of a one-field sweep (its runs' ``values``), in run order."""
    return [v[0] for v in r["values"]]


def fig3a_summary(r: dict) -> AlphaSweep:
    """Fig. 3a's numbers (runs in increasing α), per seed."""
    return per_seed(_fig3a, r)


@dataclass(frozen=True)
class EpsilonSweep:
    """Fig. 3b: initial alignment, delay and final loss against ε (per seed)."""

    alignment_increasing: list  # initial kernel–target alignment increases with ε
    ratios: list  # t_te(½) / t_tr(½) of every ε
    delay_decreasing: list  # t_te(½) / t_tr(½) decreases with ε
    final_nondecreasing: list  # final / initial test loss non-decreasing in ε, over ε ≥ converged_eps


CONVERGED_EPS = 0.1  # Fig. 3b: smaller ε have not converged by the end of the run


def _fig3b(r: dict) -> EpsilonSweep:
    eps = [v[0] for v in r["values"]]
    big = [i for i, e in enumerate(eps) if e >= CONVERGED_EPS]
    rs = [ratio(b, a, floor=None) for a, b in _half_times(r)]
    return EpsilonSweep(alignment_increasing=increasing(r["cka0"]), ratios=rs,
                        delay_decreasing=increasing([-x if observed(x) else x for x in rs]),
                        final_nondecreasing=increasing(_final(r)[big], strict=False))


def fig3b_summary(r: dict) -> EpsilonSweep:
    """Fig. 3b's numbers (runs in increasing ε), per seed."""
    return per_seed(_fig3b, r)


@dataclass(frozen=True)
class PhaseDiagram:
    """Fig. 3e: the delay on the (α, ε) grid as the chapter's criterion, t_te(½) / t_tr(½) (NaN in the map,
    not observed in the claims, where a loss never halves), per seed. The authors' heat map is the
    absolute ``max(0, t_te(0.1) − t_tr(0.1))``; an absolute time grows with everything that slows
    training, so the chapter compares ratios throughout."""

    alphas: list  # rows, increasing
    epsilons: list  # columns, increasing
    time_to_grok: list  # (len(alphas), len(epsilons)) t_te(½) / t_tr(½) per seed, NaN where not observed
    increases_with_alpha: list  # at the smallest ε
    smallest_eps_longest: list  # for every α
    max_in_lazy_misaligned_corner: list  # largest α, smallest ε


def _fig3e(r: dict) -> PhaseDiagram:
    rs = [ratio(b, a, floor=None) for a, b in _half_times(r)]
    vals = np.asarray(r["values"])
    al, ep = sorted(set(vals[:, 0])), sorted(set(vals[:, 1]))
    grid = np.asarray([float(x) if observed(x) else np.nan for x in rs]).reshape(len(al), len(ep))
    whole = bool(np.isfinite(grid).all())
    return PhaseDiagram(tuple(al), tuple(ep), grid, increases_with_alpha=increasing(grid[:, 0].tolist())
                        if np.isfinite(grid[:, 0]).all() else NOT_OBSERVED,
                        smallest_eps_longest=bool(np.all(grid.argmax(1) == 0)) if whole else NOT_OBSERVED,
                        max_in_lazy_misaligned_corner=bool(np.unravel_index(grid.argmax(), grid.shape)
                                                           == (len(al) - 1, 0)) if whole else NOT_OBSERVED)


def fig3e_summary(r: dict) -> PhaseDiagram:
    """Fig. 3e's phase diagram and its three statements, per seed."""
    return per_seed(_fig3e, r)
