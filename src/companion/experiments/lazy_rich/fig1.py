"""Figs. 1 and 4 of Kumar et al.: the committee machine on the quadratic task over several data
seeds (network, its linearisation, the N → ∞ closure, K0 kernel regression, weight norm,
NTK–target alignment, the eq. 6 decomposition) and Fig. 1a's weight-space trajectories."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.events import NOT_OBSERVED, ratio
from companion.experiments.lazy_rich.closure import DT, QuadraticRun, stack_runs, task
from companion.experiments.lazy_rich.measures import half_times, seed_views, tracks_until, train_at, transpose
from companion.settings import unstated
from companion.store.cache import experiment
from companion.theory import lazy_rich as th
from companion.train.committee import CommitteeTraining, run_committee
from companion.train.fit import log_steps


@dataclass(frozen=True)
class Fig1:
    """Fig. 1 / Fig. 4: one QuadraticRun per data seed, with the NTK–target alignment."""

    run: QuadraticRun = QuadraticRun()  # the paper's Fig. 1 settings
    seeds: tuple = unstated((0, 1, 2, 3, 4))  # data seeds checked (5: their delay ratios straddle 2)
    n_cka: int = 1000  # test points for the kernel–target alignment
    cka_every: int = 100  # steps between alignment evaluations
    cka_seed: int = 10_000  # the alignment points of data seed s are drawn with seed cka_seed + s
    dtype: str = "float64"  # precision of the closure's iteration (the task and the K0 lines stay float64)


FIG1 = Fig1()
FIG1_PROFILES = {"paper": FIG1,
                 "cpu": replace(FIG1, run=replace(FIG1.run, D=50, P=275, N=250, steps=30_000), n_cka=500,
                                cka_every=1000, dtype="float32"),
                 "smoke": replace(FIG1, run=replace(FIG1.run, D=20, P=110, N=100, steps=5_000), n_cka=200,
                                  cka_every=500, seeds=(0, 1, 2))}
#: Fig. 1's control: the same runs made rich, at the smallest α of the paper's Fig. 3a (1/32), which "can
#: eliminate grokking altogether" (§5.1); η = η0·N/α² keeps its early dynamics those of α = 1 (App. 8.1)
RICH_ALPHA = 2 ** -5
FIG1_RICH_PROFILES = {k: replace(v, run=replace(v.run, alpha=RICH_ALPHA)) for k, v in FIG1_PROFILES.items()}
# paper: the rich run has fitted and generalised within a few thousand steps; 20k of the 100k suffice
FIG1_RICH_PROFILES["paper"] = replace(FIG1_RICH_PROFILES["paper"], run=replace(FIG1_RICH_PROFILES["paper"].run,
                                                                             steps=20_000))


@dataclass(frozen=True)
class WeightTrajectories:
    """Fig. 1a: one small neuron-level run and its linearisation, with an empirical test set."""

    run: QuadraticRun = replace(QuadraticRun(), D=10, P=40, N=20, eps=0.1, steps=20_000)  # a small run
    n_test: int = 500  # test points
    test_seed: int = 99  # their seed
    seeds: tuple = unstated(())  # data seeds (weight seed = seed + 1), batched; () = (run.seed,)


FIG1A = WeightTrajectories()
FIG1A_PROFILES = {"paper": FIG1A, "cpu": replace(FIG1A, seeds=(0, 1, 2)),
                  "smoke": replace(FIG1A, run=replace(FIG1A.run, steps=2_000))}


@experiment
def fig1(cfg: Fig1, device: str = "cpu") -> dict:
    """Chapter Figs. 1b, 1c and 4: network (finite-N init statistics), its linearisation, the
    N → ∞ theory curve, the K0 kernel-regression line, the weight norm and the NTK–target
    alignment, per data seed."""
    runs = [replace(cfg.run, seed=s) for s in cfg.seeds]
    q, S = cfg.run, len(runs)
    b = stack_runs(runs + [replace(runs[0], N=0)])
    cX = torch.stack([torch.randn(cfg.n_cka, q.D, generator=torch.Generator().manual_seed(cfg.cka_seed + s),
                                  dtype=DT) / math.sqrt(q.D) for s in cfg.seeds + (cfg.seeds[0],)])
    la = log_steps(q.steps, q.n_log)
    dt = getattr(torch, cfg.dtype)
    d = {k: v.to(device=device, dtype=dt) for k, v in b.items()}
    net = th.run_closure(d["X"], d["y"], d["T"], d["w"], d["M"], d["alpha"], d["eps"], d["lr0_eff"], q.steps,
                         la, centred=q.centred, cka_X=cX.to(device=device, dtype=dt),
                         cka_y=th.quad_form(cX, b["T"]).to(device=device, dtype=dt), cka_every=cfg.cka_every)
    lin = th.linearised_exact(b["X"][:S], b["y"][:S], b["T"][:S], b["w"][:S], b["M"][:S], b["alpha"][:S],
                              b["eps"][:S], b["lr0_eff"][:S], la, centred=q.centred)
    k0 = th.k0_regression_loss(b["X"][:S], b["y"][:S], b["T"][:S], b["w"][:S], b["M"][:S], b["eps"][:S])
    return {"step": la, "seeds": list(cfg.seeds),
            **{k: net[k][:S] for k in ("train_loss", "test_loss", "variance", "misalignment", "linear")},
            "weight_norm": np.sqrt(q.N * net["weight_norm2"][:S]),
            "theory_train": net["train_loss"][S], "theory_test": net["test_loss"][S],
            "lin_train": lin["train_loss"], "lin_test": lin["test_loss"], "k0_test": k0.numpy(),
            "cka_step": net["cka_step"], "cka": net["cka"][:S], "theory_cka": net["cka"][S]}


@experiment
def fig1a(cfg: WeightTrajectories, device: str = "cpu") -> dict:
    """Chapter Fig. 1a from actual small runs (one per data seed, batched): the network's and the
    linearised network's weight trajectories, split into the part inside the tangent space
    S(X, W0) of the initial gradients (coordinate along the lazy solution's displacement) and the
    distance from S. The first seed's curves at the top level, every seed's under ``seed_runs``."""
    runs = [replace(cfg.run, seed=s) for s in (cfg.seeds or (cfg.run.seed,))]
    q = cfg.run
    ts = [task(r) for r in runs]
    W0 = torch.stack([q.sigma * torch.randn(q.N, q.D, generator=torch.Generator().manual_seed(r.seed + 1), dtype=DT)
                      for r in runs])
    la = log_steps(q.steps, q.n_log)
    Xt = torch.randn(cfg.n_test, q.D, generator=torch.Generator().manual_seed(cfg.test_seed),
                     dtype=DT).expand(len(runs), -1, -1) / math.sqrt(q.D)
    yt = th.quad_form(Xt, torch.stack([t["T"] for t in ts]))
    how = CommitteeTraining(q.alpha, q.eps, q.lr0, q.steps, la, centred=q.centred, keep_W=True)
    kw = dict(X=torch.stack([t["X"] for t in ts]), y=torch.stack([t["y"] for t in ts]), W0=W0, X_test=Xt, y_test=yt)
    net, lin = run_committee(**kw, how=how), run_committee(**kw, how=replace(how, linearised=True))
    per = []
    for i, t in enumerate(ts):
        # tangent space: rows ∂f(x_μ)/∂W at W0 ∝ (1 + ε w_i0·x_μ) x_μ
        H0 = t["X"] @ W0[i].T
        J = ((1 + q.eps * H0)[:, :, None] * t["X"][:, None, :]).reshape(q.P, -1)  # (P, N·D)
        Qb, _ = torch.linalg.qr(J.T)  # orthonormal basis of the span
        d_lazy = torch.as_tensor(lin["W_traj"][i, -1] - W0[i].numpy()).reshape(-1)
        e1 = d_lazy / d_lazy.norm()

        def coords(traj, i=i, Qb=Qb, e1=e1):
            D_ = torch.as_tensor(traj[i] - W0[i].numpy()).reshape(len(la), -1)
            inside = D_ @ Qb @ Qb.T
            return (inside @ e1).numpy(), (D_ - inside).norm(dim=-1).numpy()

        (xn, yn), (xl, yl) = coords(net["W_traj"]), coords(lin["W_traj"])
        per.append({"net_x": xn, "net_y": yn, "lin_x": xl, "lin_y": yl, "net_test": net["test_loss"][i],
                    "lin_test": lin["test_loss"][i], "net_train": net["train_loss"][i],
                    "lin_train": lin["train_loss"][i]})
    return {"step": la, **per[0], "seed_runs": per}


# --------------------------------------------------------------------------- summaries
@dataclass(frozen=True)
class Subspace:
    """Fig. 1a, per seed: final distance from S / final displacement along w_lazy − w0 inside S."""

    network: list
    linearised: list


def _fig1a(r: dict) -> Subspace:
    return Subspace(float(r["net_y"][-1] / abs(r["net_x"][-1])), float(r["lin_y"][-1] / abs(r["lin_x"][-1])))


def fig1a_summary(r: dict) -> Subspace:
    """Fig. 1a's two ratios, per seed (a kept result of one seed has no ``seed_runs``)."""
    return transpose([_fig1a(v) for v in seed_views(r)])


@dataclass(frozen=True)
class Fig1Summary:
    """Fig. 1b, c, one list entry per data seed."""

    n_seeds: int
    tracks_linear_until: list  # last step with test loss within 2% of the linearised one / t_tr(½)
    rise: list  # max test / initial test
    train_at_rise: list  # train / initial train at the test-loss peak
    delay_ratio: list  # t_te(½) / t_tr(½)
    train_at_test_half: list  # train / initial train loss when the test loss halves
    final_over_k0: list  # final test loss / K0 kernel-regression test loss
    linearised_final: list  # linearised final test / network initial test
    linearised_over_k0: list  # linearised final test / K0 kernel-regression test (its own limit)
    norm_growth: list  # final / initial weight norm
    alignment_growth: list  # final / initial NTK–target alignment
    train_half_times: list  # t_tr(½) (for Fig. 4)


def _fig1(r: dict, i: int) -> tuple:
    s = r["step"]
    tr, te = r["train_loss"][i], r["test_loss"][i]
    j = int(np.argmax(te))
    t_tr, t_te = half_times(s, tr, te)
    return (ratio(tracks_until(s, te, r["lin_test"][i]), t_tr, floor=None), float(te[j] / te[0]), float(tr[j] / tr[0]),
            ratio(t_te, t_tr, floor=None), train_at(s, tr, t_te), float(te[-1] / r["k0_test"][i]),
            float(r["lin_test"][i, -1] / te[0]),
            float(r["lin_test"][i, -1] / r["k0_test"][i]), float(r["weight_norm"][i, -1] / r["weight_norm"][i, 0]),
            float(r["cka"][i, -1] / r["cka"][i, 0]), t_tr)


def fig1_summary(r: dict) -> Fig1Summary:
    """Fig. 1b, c's numbers, per seed."""
    per = list(zip(*[_fig1(r, i) for i in range(len(r["seeds"]))]))
    return Fig1Summary(len(r["seeds"]), *[list(v) for v in per])


@dataclass(frozen=True)
class Decomposition:
    """Fig. 4: the eq. 6 terms around the peak of the power in linear modes, per seed (a
    diverged run's values are not observed)."""

    rise: list  # max / initial test loss
    linear_peak: list  # peak linear power / initial test loss
    linear_rise: list  # peak / initial linear power
    peak_over_train_half_time: list  # t_peak / t_tr(½)
    misalignment_at_peak: list  # misalignment at the peak / initial (not observed unless it later halves)
    linear_final: list  # final linear power / initial test loss
    diverged: int  # runs whose losses became non-finite


def _fig4(r: dict, i: int, t_tr) -> tuple:
    if not (np.isfinite(r["test_loss"][i]).all() and np.isfinite(r["linear"][i]).all()):
        return (NOT_OBSERVED,) * 6
    j = int(np.argmax(r["linear"][i]))
    te0 = r["test_loss"][i, 0]
    return (float(r["test_loss"][i].max() / te0), float(r["linear"][i, j] / te0),
            float(r["linear"][i, j] / r["linear"][i, 0]) if r["linear"][i, 0] > 0 else NOT_OBSERVED,
            ratio(r["step"][j], t_tr, floor=None), _late(r["misalignment"][i], j),
            float(r["linear"][i, -1] / te0))


def _late(mis: np.ndarray, j: int):
    """Misalignment at step index ``j`` / initial, read only when the run later aligns (its final misalignment at
    most half the initial): "alignment improves later" needs a later improvement, so a run that never aligns
    (which would pass "not yet aligned at the peak" trivially) is not observed."""
    return float(mis[j] / mis[0]) if mis[-1] <= 0.5 * mis[0] else NOT_OBSERVED


def fig4_summary(r: dict, runs: list | None = None) -> Decomposition:
    """Fig. 4's numbers from the runs ``runs`` (default all) of a results dict with the eq. 6
    terms (the Fig. 1 runs, or the first run of each seed of the N = 2 sweep via :func:`fig4_runs`)."""
    runs = list(range(len(r["test_loss"]))) if runs is None else runs
    per = [_fig4(r, i, half_times(r["step"], r["train_loss"][i], r["test_loss"][i])[0]) for i in runs]
    bad = sum(not np.isfinite(r["test_loss"][i]).all() for i in runs)
    return Decomposition(*[list(v) for v in zip(*per)], diverged=int(bad))


def fig4_n2_summary(r10: dict) -> Decomposition:
    """Fig. 4 in the authors' N = 2 setting: the λ = 0 run (the sweep's first) of each seed of
    the Fig. 10 sweep."""
    views = seed_views(r10)
    first = {k: np.stack([v[k][0] for v in views]) for k in ("train_loss", "test_loss", "variance", "misalignment",
                                                              "linear")}
    return fig4_summary({"step": r10["step"], **first})


@dataclass(frozen=True)
class AlignmentTracking:
    """App. 11.2 on the Fig. 1 runs, per seed: the NTK–target alignment against the misalignment term
    of eq. 6, over training (the misalignment interpolated onto the alignment's steps)."""

    rho_misalignment: list  # Spearman ρ(alignment, misalignment)
    rho_step: list  # Spearman ρ(alignment, step): how monotone the alignment is in time alone
    points: int  # alignment evaluations per run


def fig1_alignment_tracking(r: dict) -> AlignmentTracking:
    """Rank correlation over training between the kernel alignment (at ``cka_step``) and eq. 6's
    misalignment term (at ``step``, interpolated linearly in the step), per seed."""
    from scipy.stats import spearmanr

    cs = np.asarray(r["cka_step"], dtype=float)
    mis = [np.interp(cs, np.asarray(r["step"], dtype=float), r["misalignment"][i]) for i in range(len(r["cka"]))]
    return AlignmentTracking([float(spearmanr(r["cka"][i], m).statistic) for i, m in enumerate(mis)],
                             [float(spearmanr(r["cka"][i], cs).statistic) for i in range(len(r["cka"]))], len(cs))
