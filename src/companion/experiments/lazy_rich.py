"""Kumar, Bordelon, Gershman & Pehlevan (ICLR 2024), "Grokking as the transition from lazy to rich
training dynamics": configurations and cached experiments for every figure.

Defaults are the paper's settings (recovered from the authors' notebook where the paper is
silent); the ``cpu`` and ``smoke`` profiles are ``replace(...)`` of them, one visible line per
departure. Polynomial-task figures run on the exact (w̄, M) closure
(:mod:`companion.theory.lazy_rich`), batched over seeds and swept parameters; the remaining
figures live in :mod:`companion.experiments.lazy_rich_nets`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.cache import experiment
from companion.models.committee import log_grid, run_committee
from companion.theory import lazy_rich as th

DT = torch.float64


# --------------------------------------------------------------------------- configs
@dataclass(frozen=True)
class Quad:
    """One run of the committee machine on the quadratic single-index task (§5, App. 8.1).

    Defaults: Fig. 1 (D=100, P=550, N=500, ε=0.02, α=1, η = N/α², centred, 100k steps)."""

    D: int = 100  # input dimension
    P: int = 550  # training points
    N: int = 500  # hidden units (0: infinite width, M0 = σ²I)
    eps: float = 0.02  # quadratic part of φ: initial kernel–task alignment
    alpha: float = 1.0  # output scale: laziness
    sigma: float = 1.0  # weight init scale
    eta0: float = 1.0  # η = η0·N/(α²σ²)
    steps: int = 100_000  # full-batch GD steps
    centred: bool = True  # f̃ = f − f(W0)
    target_scale: float = 0.5  # y = target_scale·Σ_k (β_k·x)²
    n_index: int = 1  # number of β_k (App. 15.1)
    lam: float = 0.0  # fraction of the analytic solution mixed into W0 (App. 8.3.3)
    seed: int = 0  # data seed; weight seed = seed + 1
    n_log: int = 160  # log-spaced evaluation steps


@dataclass(frozen=True)
class Sweep:
    """A batch of Quad runs differing in ``fields`` (one tuple of values per run)."""

    base: Quad = Quad()
    fields: tuple = ("alpha",)
    values: tuple = ((1.0,),)


@dataclass(frozen=True)
class Fig1:
    run: Quad = Quad()
    seeds: tuple = (0, 1, 2)  # data seeds checked
    n_cka: int = 1000  # test points for the kernel–target alignment
    cka_every: int = 100  # steps between alignment evaluations


FIG1 = Fig1()
FIG1_PROFILES = {"paper": FIG1,
                 "cpu": replace(FIG1, run=replace(FIG1.run, D=50, P=275, N=250, steps=30_000), n_cka=500,
                                cka_every=1000),
                 "smoke": replace(FIG1, run=replace(FIG1.run, D=20, P=110, N=100, steps=5_000), n_cka=200,
                                  cka_every=500)}

# Fig. 3a / 7: the authors' cell uses y = (β·x)² (no ½), ε = 0.25, D=100, P=450, N=500, η0 = 0.5
Q3A = Quad(P=450, eps=0.25, eta0=0.5, steps=60_000, target_scale=1.0)
ALPHAS = (2 ** -5, 2 ** -2, 2 ** -1, 1.0, 2.0, 4.0, 8.0, 16.0)
SIGMAS = (0.25, 0.5, 1.0, 2.0)  # Fig. 7b,c (the paper's 1/8 diverges at reduced D; see spec)
FIG3A = Sweep(Q3A, ("alpha",), tuple((a,) for a in ALPHAS))
FIG7B = Sweep(Q3A, ("sigma",), tuple((s,) for s in SIGMAS))
FIG7C = Sweep(Q3A, ("sigma", "alpha"), tuple((s, 1 / s ** 2) for s in SIGMAS))
Q3A_CPU = replace(Q3A, D=30, P=135, N=150, steps=20_000)
Q3A_SMOKE = replace(Q3A, D=16, P=72, N=60, steps=3_000)


def _sweep_profiles(sw: Sweep, cpu_base: Quad, smoke_base: Quad, smoke_values=None) -> dict:
    return {"paper": sw, "cpu": replace(sw, base=cpu_base),
            "smoke": replace(sw, base=smoke_base, values=smoke_values or sw.values)}


FIG3A_PROFILES = _sweep_profiles(FIG3A, Q3A_CPU, Q3A_SMOKE, ((2 ** -2,), (1.0,), (16.0,)))
# at D = 30 the α = 1/32 run ends in a period-2 oscillation (its weights grow ~17×, past the
# stable step size), so the reduced profiles start the sweep at α = 1/4
FIG3A_PROFILES["cpu"] = replace(FIG3A_PROFILES["cpu"], values=FIG3A.values[1:])
# smoke (D = 16): σ = 1/4 breaks the step-size stability rule 2(η0/σ²)(1+√(D/P))²/D < 2
FIG7B_PROFILES = _sweep_profiles(FIG7B, Q3A_CPU, Q3A_SMOKE, FIG7B.values[1:])
FIG7C_PROFILES = _sweep_profiles(FIG7C, Q3A_CPU, Q3A_SMOKE, FIG7C.values[1:])

# Fig. 3b: no code; the spec's proposal is Fig. 1's setup with an ε sweep
EPSILONS = (0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)
FIG3B = Sweep(Quad(), ("eps",), tuple((e,) for e in EPSILONS))
FIG3B_PROFILES = _sweep_profiles(FIG3B, replace(FIG3B.base, D=30, P=165, N=0, steps=20_000),
                                 replace(FIG3B.base, D=16, P=88, N=0, steps=3_000), ((0.02,), (0.25,), (1.0,)))

# Fig. 3e: phase diagram α = 0.4i, ε = 0.02i (i = 1..14), η0 = 20, ≤ 110k steps
FIG3E = Sweep(replace(Quad(), eta0=20.0, steps=110_000),
              ("alpha", "eps"), tuple((0.4 * i, 0.02 * j) for i in range(1, 15) for j in range(1, 15)))
GRID5 = tuple((a, e) for a in (0.4, 1.6, 2.8, 4.0, 5.2) for e in (0.02, 0.08, 0.14, 0.2, 0.26))
FIG3E_PROFILES = {"paper": FIG3E,
                  # η0 scaled with D (stability: 2η0(1+√(D/P))²/D < 2)
                  "cpu": replace(FIG3E, base=replace(FIG3E.base, D=20, P=110, N=0, eta0=8.0, steps=12_000),
                                 values=GRID5),
                  "smoke": replace(FIG3E, base=replace(FIG3E.base, D=12, P=66, N=0, eta0=4.0, steps=2_000),
                                   values=tuple((a, e) for a in (0.4, 2.8, 5.2) for e in (0.02, 0.14, 0.26)))}

# Fig. 9: goldilocks P (authors' cell: D=40, N=100, ε=0.5, η0=0.5, 50k steps); P=300 added as the
# nearest configuration that groks
FIG9 = Sweep(Quad(D=40, N=100, eps=0.5, eta0=0.5, steps=50_000), ("P",), ((50,), (120,), (300,), (500,)))
FIG9_PROFILES = {"paper": FIG9, "cpu": replace(FIG9, base=replace(FIG9.base, steps=10_000)),
                 "smoke": replace(FIG9, base=replace(FIG9.base, D=16, N=40, steps=2_000),
                                  values=((20,), (48,), (120,), (200,)))}

# Fig. 10: robust variant (spec): Fig. 1 config, uncentred, W0 ← (1−λ)W0 + λ·solution
LAMS = (0.0, 0.2, 0.5, 0.75, 0.95)
FIG10 = Sweep(replace(Quad(), centred=False, steps=20_000), ("lam",), tuple((v,) for v in LAMS))
FIG10_PROFILES = {"paper": FIG10, "cpu": replace(FIG10, base=replace(FIG10.base, D=30, P=165, N=150, steps=15_000)),
                  "smoke": replace(FIG10, base=replace(FIG10.base, D=16, P=88, N=60, steps=2_000))}

# Fig. 14: multi-index targets y = ½ Σ_k (β_k·x)², K ∈ {1,2,3}, P = 11·D (spec measurement)
FIG14 = Sweep(replace(Quad(), P=1100, steps=30_000), ("n_index",), ((1,), (2,), (3,)))
FIG14_PROFILES = {"paper": FIG14, "cpu": replace(FIG14, base=replace(FIG14.base, D=30, P=330, N=150, steps=20_000)),
                  "smoke": replace(FIG14, base=replace(FIG14.base, D=16, P=176, N=60, steps=3_000))}


# --------------------------------------------------------------------------- helpers
def _init(q: Quad, beta: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
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


def _task(q: Quad) -> dict:
    t = th.quadratic_task(q.D, q.P, q.seed, q.n_index, q.target_scale)
    return {k: v[0] for k, v in t.items()}


def _stack_runs(runs: list[Quad]) -> dict:
    """Batch runs of equal D (P padded with zero rows, which carry zero residual)."""
    Pmax = max(q.P for q in runs)
    Xs, ys, Ts, ws, Ms = [], [], [], [], []
    for q in runs:
        t = _task(q)
        pad = Pmax - q.P
        Xs.append(torch.cat([t["X"], torch.zeros(pad, q.D, dtype=DT)]))
        ys.append(torch.cat([t["y"], torch.zeros(pad, dtype=DT)]))
        Ts.append(t["T"])
        w, M = _init(q, t["beta"])
        ws.append(w)
        Ms.append(M)
    tens = lambda name: torch.tensor([float(getattr(q, name)) for q in runs], dtype=DT)  # noqa: E731
    return {"X": torch.stack(Xs), "y": torch.stack(ys), "T": torch.stack(Ts), "w": torch.stack(ws),
            "M": torch.stack(Ms), "alpha": tens("alpha"), "eps": tens("eps"),
            # η = η0·N/(α²σ²): the authors' Fig. 7 cells use 0.5N/σ² (σ sweep) and 0.5Nσ² (α = 1/σ²)
            "eta0_eff": tens("eta0") / tens("sigma") ** 2 * Pmax / tens("P"), "pad": Pmax / tens("P")}


def _on(b: dict, device: str) -> dict:
    return {k: v.to(device) for k, v in b.items()}


def _run_batch(runs: list[Quad], linearised: bool = False, device: str = "cpu") -> dict:
    q0 = runs[0]
    b = _stack_runs(runs)
    la = log_grid(q0.steps, q0.n_log)
    d = _on(b, device)
    res = th.run_closure(d["X"], d["y"], d["T"], d["w"], d["M"], d["alpha"], d["eps"], d["eta0_eff"],
                         q0.steps, la, centred=q0.centred, linearised=linearised)
    res["train_loss"] = res["train_loss"] * b["pad"].numpy()[:, None]
    return res


@experiment
def quad_sweep(cfg: Sweep, device: str = "cpu") -> dict:
    """All runs of a sweep through the exact closure in one batch (Figs. 3, 7, 9, 10, 14)."""
    runs = [replace(cfg.base, **dict(zip(cfg.fields, v))) for v in cfg.values]
    res = _run_batch(runs, device=device)
    # initial kernel–target alignment of each run on the same 1000 fresh test points (Fig. 3b)
    b = _stack_runs(runs)
    g = torch.Generator().manual_seed(12_345)
    cX = (torch.randn(1000, cfg.base.D, generator=g, dtype=DT) / math.sqrt(cfg.base.D)).expand(len(runs), -1, -1)
    K0 = th.ntk_from_stats(cX, cX, b["w"], b["M"], b["eps"])
    from companion.measures.ntk import kernel_alignment

    res["cka0"] = kernel_alignment(K0, th.quad_form(cX, b["T"])).numpy()
    res["values"] = [list(v) for v in cfg.values]
    res["fields"] = list(cfg.fields)
    return res


@experiment
def fig1(cfg: Fig1, device: str = "cpu") -> dict:
    """Fig. 1 / Fig. 4: network (finite-N init statistics), its linearisation, the N → ∞ theory
    curve, the K0 kernel-regression line, the weight norm and the NTK–target alignment."""
    runs = [replace(cfg.run, seed=s) for s in cfg.seeds]
    q, S = cfg.run, len(runs)
    b = _stack_runs(runs + [replace(runs[0], N=0)])
    cX = torch.stack([torch.randn(cfg.n_cka, q.D, generator=torch.Generator().manual_seed(10_000 + s),
                                  dtype=DT) / math.sqrt(q.D) for s in cfg.seeds + (cfg.seeds[0],)])
    la = log_grid(q.steps, q.n_log)
    d = _on(b, device)
    net = th.run_closure(d["X"], d["y"], d["T"], d["w"], d["M"], d["alpha"], d["eps"], d["eta0_eff"], q.steps,
                         la, centred=q.centred, cka_X=cX.to(device), cka_y=th.quad_form(cX, b["T"]).to(device),
                         cka_every=cfg.cka_every)
    lin = th.linearised_exact(b["X"][:S], b["y"][:S], b["T"][:S], b["w"][:S], b["M"][:S], b["alpha"][:S],
                              b["eps"][:S], b["eta0_eff"][:S], la, centred=q.centred)
    k0 = th.k0_regression_loss(b["X"][:S], b["y"][:S], b["T"][:S], b["w"][:S], b["M"][:S], b["eps"][:S])
    return {"step": la, "seeds": list(cfg.seeds),
            **{k: net[k][:S] for k in ("train_loss", "test_loss", "variance", "misalignment", "linear")},
            "weight_norm": np.sqrt(q.N * net["weight_norm2"][:S]),
            "theory_train": net["train_loss"][S], "theory_test": net["test_loss"][S],
            "lin_train": lin["train_loss"], "lin_test": lin["test_loss"], "k0_test": k0.numpy(),
            "cka_step": net["cka_step"], "cka": net["cka"][:S], "theory_cka": net["cka"][S]}


@experiment
def fig1a(cfg: Quad, device: str = "cpu") -> dict:
    """Fig. 1a from an actual small run: the network's and the linearised network's weight
    trajectories, split into the part inside the tangent space S(X, W0) of the initial gradients
    (coordinate along the lazy solution's displacement) and the distance from S."""
    t = _task(cfg)
    g = torch.Generator().manual_seed(cfg.seed + 1)
    W0 = cfg.sigma * torch.randn(1, cfg.N, cfg.D, generator=g, dtype=DT)
    la = log_grid(cfg.steps, cfg.n_log)
    Xt = torch.randn(1, 500, cfg.D, generator=torch.Generator().manual_seed(99), dtype=DT) / math.sqrt(cfg.D)
    yt = th.quad_form(Xt, t["T"][None])
    kw = dict(X=t["X"][None], y=t["y"][None], W0=W0, alpha=cfg.alpha, eps=cfg.eps, eta0=cfg.eta0,
              steps=cfg.steps, log_at=la, centred=cfg.centred, X_test=Xt, y_test=yt, keep_W=True)
    net, lin = run_committee(**kw), run_committee(**kw, linearised=True)
    # tangent space: rows ∂f(x_μ)/∂W at W0 ∝ (1 + ε w_i0·x_μ) x_μ
    H0 = t["X"] @ W0[0].T
    J = ((1 + cfg.eps * H0)[:, :, None] * t["X"][:, None, :]).reshape(cfg.P, -1)  # (P, N·D)
    Qb, _ = torch.linalg.qr(J.T)  # orthonormal basis of the span
    d_lazy = torch.as_tensor(lin["W_traj"][0, -1] - W0[0].numpy()).reshape(-1)
    e1 = d_lazy / d_lazy.norm()

    def coords(traj):
        D_ = torch.as_tensor(traj[0] - W0[0].numpy()).reshape(len(la), -1)
        inside = D_ @ Qb @ Qb.T
        return (inside @ e1).numpy(), (D_ - inside).norm(dim=-1).numpy()

    (xn, yn), (xl, yl) = coords(net["W_traj"]), coords(lin["W_traj"])
    return {"step": la, "net_x": xn, "net_y": yn, "lin_x": xl, "lin_y": yl,
            "net_test": net["test_loss"][0], "lin_test": lin["test_loss"][0],
            "net_train": net["train_loss"][0], "lin_train": lin["train_loss"][0]}


FIG1A = replace(Quad(), D=10, P=40, N=20, eps=0.1, steps=20_000)
FIG1A_PROFILES = {"paper": FIG1A, "cpu": FIG1A, "smoke": replace(FIG1A, steps=2_000)}


# --------------------------------------------------------------------------- measurements
def crossing(step, curve, level: float) -> float:
    """First time ``curve`` falls to ``level`` or below, interpolated linearly in log(step)
    between logged points; ``inf`` if never (``0`` if already there at step 0)."""
    step, curve = np.asarray(step, float), np.asarray(curve, float)
    hit = np.nonzero(curve <= level)[0]
    if not len(hit):
        return math.inf
    i = hit[0]
    if i == 0:
        return 0.0
    s0, s1 = max(step[i - 1], 1.0), step[i]
    c0, c1 = curve[i - 1], curve[i]
    frac = (c0 - level) / (c0 - c1) if c0 != c1 else 1.0
    return float(np.exp(np.log(s0) + frac * (np.log(s1) - np.log(s0))))


def half_times(step, train, test, frac: float = 0.5) -> tuple[float, float]:
    """(t_train, t_test): first times the train / test loss fall to ``frac`` of their start."""
    return crossing(step, train, frac * train[0]), crossing(step, test, frac * test[0])


def tracks_until(step, a, b, rel: float = 0.02) -> float:
    """Last logged step before ``|a − b|/|b|`` first exceeds ``rel``."""
    dev = np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))
    bad = np.nonzero(dev > rel)[0]
    return float(step[-1]) if not len(bad) else float(step[max(bad[0] - 1, 0)])


def fig1_stats(r: dict) -> dict:
    """Per-seed numbers behind the Fig. 1 claims."""
    s = r["step"]
    out: dict[str, list] = {k: [] for k in ("bump", "t_bump", "train_at_bump", "t_tr", "t_te", "ratio",
                                            "end", "lin_end", "k0", "track", "wnorm", "cka")}
    for i in range(len(r["seeds"])):
        tr, te = r["train_loss"][i], r["test_loss"][i]
        j = int(np.argmax(te))
        t_tr, t_te = half_times(s, tr, te)
        out["bump"].append(te[j] / te[0])
        out["t_bump"].append(float(s[j]))
        out["train_at_bump"].append(tr[j] / tr[0])
        out["t_tr"].append(t_tr)
        out["t_te"].append(t_te)
        out["ratio"].append(t_te / t_tr)
        out["end"].append(te[-1] / te[0])
        out["lin_end"].append(r["lin_test"][i, -1] / te[0])
        out["k0"].append(r["k0_test"][i] / te[0])
        out["track"].append(tracks_until(s, te, r["lin_test"][i]))
        out["wnorm"].append(r["weight_norm"][i, -1] / r["weight_norm"][i, 0])
        out["cka"].append(r["cka"][i, -1] / r["cka"][i, 0])
    return {k: np.asarray(v) for k, v in out.items()}


# --------------------------------------------------------------------------- Figs. 5, 19
@dataclass(frozen=True)
class Eig:
    """§6.1 / Fig. 5: Gaussian inputs, labels = j-th eigenvector of the initial NTK on all 2P
    points (first P train, last P test); N=2, ε=0.25, α=1, η = 0.5N/α², centred, 25k epochs."""

    D: int = 100
    P: int = 100
    N: int = 2
    eps: float = 0.25
    alpha: float = 1.0
    eta0: float = 0.5
    steps: int = 25_000
    js: tuple = (1, 70, 100)
    seed: int = 0
    n_log: int = 120


@dataclass(frozen=True)
class EigGrid:
    base: Eig = Eig()
    Ps: tuple = (100, 200, 400)


FIG5 = Eig()
FIG5_PROFILES = {"paper": FIG5, "cpu": replace(FIG5, steps=10_000),
                 "smoke": replace(FIG5, D=40, P=40, js=(1, 28, 40), steps=1_000)}
FIG19 = EigGrid(replace(FIG5, js=(70, 100, 150)))
FIG19_PROFILES = {"paper": FIG19, "cpu": replace(FIG19, base=replace(FIG19.base, steps=10_000)),
                  "smoke": replace(FIG19, base=replace(FIG19.base, D=40, js=(28, 40, 60), steps=1_000),
                                   Ps=(40, 80))}


def _eig_run(cfg: Eig) -> dict:
    from companion.measures.ntk import eigenvector_labels, kernel_alignment

    g = torch.Generator().manual_seed(cfg.seed)
    X = torch.randn(2 * cfg.P, cfg.D, generator=g, dtype=DT) / math.sqrt(cfg.D)  # h = W x/√D
    W0 = torch.randn(1, cfg.N, cfg.D, generator=torch.Generator().manual_seed(cfg.seed + 1), dtype=DT)
    w, M = th.init_stats(W0)
    K = th.ntk_from_stats(X[None], X[None], w, M, cfg.eps)[0]
    ys = torch.stack([eigenvector_labels(K, j) for j in cfg.js])  # (J, 2P)
    J, P = len(cfg.js), cfg.P
    la = log_grid(cfg.steps, cfg.n_log)
    r = run_committee(X[:P].expand(J, P, cfg.D), ys[:, :P], W0.expand(J, -1, -1), cfg.alpha, cfg.eps,
                      cfg.eta0, cfg.steps, la, X_test=X[P:].expand(J, P, cfg.D), y_test=ys[:, P:])
    cka = kernel_alignment(K[:P, :P].expand(J, P, P), ys[:, :P]).numpy()
    return {"step": la, "js": list(cfg.js), "train_loss": r["train_loss"], "test_loss": r["test_loss"],
            "cka0": cka}


@experiment
def fig5(cfg: Eig, device: str = "cpu") -> dict:
    """Fig. 5: one batched run per label index j (same data and init)."""
    return _eig_run(cfg)


@experiment
def fig19(cfg: EigGrid, device: str = "cpu") -> dict:
    """Fig. 19: the Fig. 5 protocol over dataset sizes P (columns) and label indices j (rows)."""
    runs = [_eig_run(replace(cfg.base, P=P)) for P in cfg.Ps]
    return {"Ps": list(cfg.Ps), "js": list(cfg.base.js), "step": runs[0]["step"],
            "train_loss": np.stack([r["train_loss"] for r in runs], 1),  # (J, nP, T)
            "test_loss": np.stack([r["test_loss"] for r in runs], 1)}


# --------------------------------------------------------------------------- Figs. 2, 16
@dataclass(frozen=True)
class ModMLP:
    """App. 8.3: p=23 modular addition, 2-layer x² MLP (N=100), MSE, GD lr 100/s², no weight
    decay, 90% train, 100k epochs (50k for Fig. 2a,b), scales s ∈ {0.5, 1, 1.5, 2}."""

    p: int = 23
    N: int = 100
    scales: tuple = (0.5, 1.0, 1.5, 2.0)
    lr0: float = 100.0
    train_frac: float = 0.9
    steps: int = 100_000
    seed: int = 1
    n_log: int = 150


FIG2 = ModMLP()
FIG2_PROFILES = {"paper": FIG2,
                 # GD with a 4× larger step is the same flow in 4× fewer steps (stable here)
                 "cpu": replace(FIG2, scales=(0.5, 0.75, 1.0), lr0=400.0, steps=8_000),
                 "smoke": replace(FIG2, scales=(0.5, 1.0), lr0=400.0, steps=1_500)}


@experiment
def fig2(cfg: ModMLP, device: str = "cpu") -> dict:
    from companion.models.lazy_rich import train_modular_mlp
    from companion.data.modular import modular_arithmetic

    data = modular_arithmetic(cfg.p, "add", cfg.train_frac, cfg.seed)
    r = train_modular_mlp(data, cfg.scales, cfg.N, cfg.steps, log_grid(cfg.steps, cfg.n_log), cfg.lr0, cfg.seed)
    r["scales"] = list(cfg.scales)
    r["epochs"] = r["step"] * cfg.lr0 / 100.0  # in the paper's lr-100 epochs
    return r


# --------------------------------------------------------------------------- Figs. 8, 17, 18, 13b
@dataclass(frozen=True)
class StudentTeacher:
    """App. 8.3.1 (Liu et al. 2022a): 5-100-100-5 tanh student/teacher, student init × 2, output
    × scale, AdamW lr 3e-4 wd 0.05, 100 train/100 test, 10k epochs; correct if MSE < threshold."""

    scales: tuple = (0.1, 0.25, 0.5, 0.75, 1.0, 3.0)
    steps: int = 10_000
    thresholds: tuple = (1e-3,)
    n_log: int = 100


FIG8 = StudentTeacher()
FIG8_PROFILES = {"paper": FIG8, "cpu": replace(FIG8, steps=3_000), "smoke": replace(FIG8, steps=300)}
FIG17 = StudentTeacher(scales=(1.0,), steps=100_000, thresholds=(1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.1))
FIG17_PROFILES = {"paper": FIG17, "cpu": replace(FIG17, steps=5_000), "smoke": replace(FIG17, steps=300)}


@experiment
def student_teacher(cfg: StudentTeacher, device: str = "cpu") -> dict:
    from companion.models.lazy_rich import train_student_teacher

    r = train_student_teacher(cfg.scales, cfg.steps, log_grid(cfg.steps, cfg.n_log), thresholds=cfg.thresholds)
    r["scales"] = list(cfg.scales)
    return r


@dataclass(frozen=True)
class STLin:
    """App. 14 Fig. 13b: bias-free tanh student–teacher (width 100, D=5, P=100), AdamW lr 3e-3,
    wd 0.1, 20k epochs, with the linearised student."""

    steps: int = 20_000
    width: int = 100
    n_log: int = 80


FIG13B_PROFILES = {"paper": STLin(), "cpu": STLin(steps=1_500), "smoke": STLin(steps=100, width=20)}


@experiment
def fig13b(cfg: STLin, device: str = "cpu") -> dict:
    from companion.models.lazy_rich import train_st_linearised

    return train_st_linearised(cfg.steps, log_grid(cfg.steps, cfg.n_log), width=cfg.width)


# --------------------------------------------------------------------------- Figs. 11, 13a, 15
@dataclass(frozen=True)
class Direct:
    """A neuron-level committee-machine run (readouts, momentum or Hermite φ)."""

    quad: Quad = Quad()
    momentum: float = 0.0
    readouts: bool = False
    hermite_k: int = 2  # 2: quadratic φ; k > 2: φ = h + (ε/2)He_k(h), target He_k(β·x)
    n_test: int = 1000
    seeds: tuple = (0,)


# App. 12: D=40, N=2, α=1, ε=0.25, P=120, trained readouts, η = 0.05N, uncentred, 100k epochs
FIG11 = Direct(replace(Quad(), D=40, P=120, N=2, eps=0.25, eta0=0.05, centred=False, steps=100_000), readouts=True)
FIG11_PROFILES = {"paper": FIG11, "cpu": replace(FIG11, quad=replace(FIG11.quad, steps=30_000)),
                  "smoke": replace(FIG11, quad=replace(FIG11.quad, steps=2_000))}
# App. 14 Fig. 13a: Fig. 1 with heavy-ball momentum 0.95 (net and linearised)
FIG13A = Direct(replace(Quad(), steps=10_000), momentum=0.95)
FIG13A_PROFILES = {"paper": FIG13A, "cpu": replace(FIG13A, quad=replace(FIG13A.quad, D=50, P=275, N=250)),
                   "smoke": replace(FIG13A, quad=replace(FIG13A.quad, D=20, P=110, N=100, steps=1_000))}
# App. 15.2: Hermite targets; the paper gives no sizes (spec: search space, unverified)
FIG15 = Direct(replace(Quad(), D=30, P=600, N=200, eps=0.05, eta0=0.5, steps=100_000), hermite_k=3)
FIG15_PROFILES = {"paper": FIG15, "cpu": replace(FIG15, quad=replace(FIG15.quad, D=20, P=400, N=100, steps=10_000)),
                  "smoke": replace(FIG15, quad=replace(FIG15.quad, D=10, P=100, N=20, steps=500))}


@experiment
def direct(cfg: Direct, device: str = "cpu") -> dict:
    """Neuron-level runs (batched over seeds) and, without readouts, the linearised network."""
    q = cfg.quad
    Xs, ys, Xts, yts, W0s, As = [], [], [], [], [], []
    for s in cfg.seeds:
        g = torch.Generator().manual_seed(s)
        beta = torch.randn(q.D, generator=g, dtype=DT)
        X = torch.randn(q.P, q.D, generator=g, dtype=DT) / math.sqrt(q.D)
        Xt = torch.randn(cfg.n_test, q.D, generator=g, dtype=DT) / math.sqrt(q.D)
        if cfg.hermite_k > 2:
            from companion.models.committee import hermite

            beta = beta / beta.norm() * math.sqrt(q.D)  # β·x ~ N(0, 1)
            lab = lambda Z: hermite(Z @ beta, cfg.hermite_k)  # noqa: E731
        else:
            lab = lambda Z: q.target_scale * (Z @ beta) ** 2  # noqa: E731
        gw = torch.Generator().manual_seed(s + 1)
        W0s.append(q.sigma * torch.randn(q.N, q.D, generator=gw, dtype=DT))
        As.append(torch.randn(q.N, generator=gw, dtype=DT))
        Xs.append(X), ys.append(lab(X)), Xts.append(Xt), yts.append(lab(Xt))
    st = torch.stack
    la = log_grid(q.steps, q.n_log)
    kw = dict(X=st(Xs), y=st(ys), W0=st(W0s), alpha=q.alpha, eps=q.eps, eta0=q.eta0, steps=q.steps, log_at=la,
              centred=q.centred, momentum=cfg.momentum, k=cfg.hermite_k, X_test=st(Xts), y_test=st(yts))
    if cfg.readouts:
        kw["readouts"] = st(As)
    net = run_committee(**kw)
    out = {"step": la, "train_loss": net["train_loss"], "test_loss": net["test_loss"]}
    if cfg.readouts and cfg.hermite_k == 2:  # eq. 6 terms with readout-weighted statistics (App. 12)
        T = st([0.5 * torch.outer(b, b) for b in [torch.randn(q.D, generator=torch.Generator().manual_seed(s),
                                                               dtype=DT) for s in cfg.seeds]])
        kw.pop("X_test"), kw.pop("y_test")
        dec = run_committee(**kw, T=T)
        out.update({k: dec[k] for k in ("variance", "misalignment", "linear")})
        out["pop_test"] = dec["test_loss"]
    if not cfg.readouts:
        lin = run_committee(**kw, linearised=True)
        out["lin_train"], out["lin_test"] = lin["train_loss"], lin["test_loss"]
    return out


# --------------------------------------------------------------------------- Figs. 6, 12
@dataclass(frozen=True)
class Digits:
    """Fig. 6a (Omnigrok MNIST protocol): 1000 train / 2000 test images, ReLU MLP 3×200, default
    init × 8, centred output × α, MSE, AdamW lr 1e-3 wd 0.01, batch 200, 250k steps."""

    n_train: int = 1000
    n_test: int = 2000
    alphas: tuple = (1e-4, 1e-3, 1e-2, 1.0)
    width: int = 200
    depth: int = 3
    init_mult: float = 8.0
    steps: int = 250_000
    seed: int = 0
    n_log: int = 60


FIG6A = Digits()
FIG6A_PROFILES = {"paper": FIG6A,
                  # scikit-learn's digits has 1797 images in all
                  "cpu": replace(FIG6A, n_test=797, alphas=(1e-3, 1e-2, 1.0), width=100, depth=2, steps=1_500),
                  "smoke": replace(FIG6A, n_test=797, alphas=(1e-3, 1.0), width=32, depth=2, steps=200)}


@experiment
def fig6a(cfg: Digits, device: str = "cpu") -> dict:
    from companion.data.digits import load_digits_dataset
    from companion.models.lazy_rich import train_digits_mlp

    Xtr, ytr, Xte, yte, source = load_digits_dataset(cfg.n_train, cfg.n_test, cfg.seed)
    r = train_digits_mlp(Xtr, ytr, Xte, yte, cfg.alphas, cfg.steps, log_grid(cfg.steps, cfg.n_log),
                         cfg.width, cfg.depth, cfg.init_mult, seed=cfg.seed)
    r["alphas"], r["source"] = list(cfg.alphas), source
    return r


@dataclass(frozen=True)
class Tf:
    """Fig. 6b (Nanda et al. 2023 transformer, authors' cell): p=113, d_model 128, d_mlp 512,
    4 heads, frac_train 0.4, centred logits × α, AdamW lr 6e-6/α² (lr0/α²), wd 1, β=(0.9, 0.98),
    10-step warm-up, full batch, 200k epochs."""

    p: int = 113
    d_model: int = 128
    frac: float = 0.4
    runs: tuple = ((0.15, 1.0), (0.3, 1.0), (0.5, 1.0))  # (α, weight decay); paper sweeps α ∈ 0.05…0.5
    lr0: float = 6e-6
    steps: int = 200_000
    seed: int = 0
    n_log: int = 80


FIG6B = Tf()
TF_CPU = dict(p=31, d_model=64, frac=0.5, lr0=1e-3, steps=2_000)  # spec's measured reduction
FIG6B_PROFILES = {"paper": FIG6B, "cpu": replace(FIG6B, runs=((0.3, 1.0), (0.6, 1.0), (1.0, 1.0)), **TF_CPU),
                  "smoke": replace(FIG6B, runs=((0.3, 1.0), (1.0, 1.0)), p=13, d_model=32, frac=0.5, lr0=1e-3,
                                   steps=150)}
FIG12 = replace(FIG6B, runs=((0.5, 1.0), (0.5, 5.0), (1.4, 5.0)))  # App. 13 (a), (b), (c)
FIG12_PROFILES = {"paper": FIG12, "cpu": replace(FIG12, **TF_CPU),
                  "smoke": replace(FIG12, p=13, d_model=32, frac=0.5, lr0=1e-3, steps=150)}


@experiment
def transformer(cfg: Tf, device: str = "cpu") -> dict:
    """One-layer transformer with centred, α-scaled logits; one run per (α, weight decay)."""
    from companion.models.lazy_rich import ScaledTransformer
    from companion.models.transformer import Transformer, TransformerConfig
    from companion.data.modular import modular_arithmetic
    from companion.train import TrainConfig, train

    data = modular_arithmetic(cfg.p, "add", cfg.frac, cfg.seed).to(device)
    hists = []
    for alpha, wd in cfg.runs:
        tc = TransformerConfig(p=cfg.p, d_model=cfg.d_model, d_mlp=4 * cfg.d_model, n_heads=4)
        model = ScaledTransformer(Transformer(tc, seed=cfg.seed), cfg.p, alpha).to(device)
        hists.append(train(model, data, TrainConfig(steps=cfg.steps, lr=cfg.lr0 / alpha ** 2, weight_decay=wd,
                                                    n_evals=cfg.n_log)))
    out = {k: np.stack([h[k] for h in hists]) for k in ("train_loss", "test_loss", "train_acc", "test_acc")}
    out["step"], out["runs"] = hists[0]["step"], [list(r) for r in cfg.runs]
    return out


# --------------------------------------------------------------------------- registry
CONFIGS = {"fig1": FIG1_PROFILES, "fig1a": FIG1A_PROFILES, "fig2": FIG2_PROFILES, "fig3a": FIG3A_PROFILES,
           "fig3b": FIG3B_PROFILES, "fig3e": FIG3E_PROFILES, "fig5": FIG5_PROFILES, "fig6a": FIG6A_PROFILES,
           "fig6b": FIG6B_PROFILES, "fig7b": FIG7B_PROFILES, "fig7c": FIG7C_PROFILES, "fig8": FIG8_PROFILES,
           "fig9": FIG9_PROFILES, "fig10": FIG10_PROFILES, "fig11": FIG11_PROFILES, "fig12": FIG12_PROFILES,
           "fig13a": FIG13A_PROFILES, "fig13b": FIG13B_PROFILES, "fig14": FIG14_PROFILES,
           "fig15": FIG15_PROFILES, "fig17": FIG17_PROFILES, "fig19": FIG19_PROFILES}
RUNNERS = {"fig1": fig1, "fig1a": fig1a, "fig2": fig2, "fig3a": quad_sweep, "fig3b": quad_sweep,
           "fig3e": quad_sweep, "fig5": fig5, "fig6a": fig6a, "fig6b": transformer, "fig7b": quad_sweep,
           "fig7c": quad_sweep, "fig8": student_teacher, "fig9": quad_sweep, "fig10": quad_sweep,
           "fig11": direct, "fig12": transformer, "fig13a": direct, "fig13b": fig13b, "fig14": quad_sweep,
           "fig15": direct, "fig17": student_teacher, "fig19": fig19}


def _reseed(cfg, seed: int):
    """Shift every ``seed``/``seeds`` field (recursively) by ``seed``."""
    if not seed:
        return cfg
    ch = {}
    for f in cfg.__dataclass_fields__:
        v = getattr(cfg, f)
        if f == "seed":
            ch[f] = v + seed
        elif f == "seeds":
            ch[f] = tuple(s + seed for s in v)
        elif hasattr(v, "__dataclass_fields__"):
            ch[f] = _reseed(v, seed)
    return replace(cfg, **ch)


def config(name: str, profile: str, seed: int = 0):
    from companion.profiles import one_of, select

    one_of("experiment", name, list(CONFIGS))
    return _reseed(select(CONFIGS[name], profile), seed)


def run(name: str, profile: str, device: str = "cpu", seed: int = 0) -> dict:
    """The cached results of one figure's experiment."""
    return RUNNERS[name](config(name, profile, seed), device)


def run_all(profile: str, device: str = "cpu", seed: int = 0) -> None:
    for name in CONFIGS:
        run(name, profile, device, seed)


def departures_table(profile: str):
    """Markdown table of every field where the profile departs from the paper's settings."""
    from companion.profiles import departures_table as table

    return table({name: (profs[profile], profs["paper"]) for name, profs in CONFIGS.items()}, profile)
