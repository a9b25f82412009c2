"""Gu et al., "Beyond Progress Measures: Theoretical Insights into the Mechanism of Grokking".

The paper's transformer runs (Table 1, Figs. 2–5, 9–20) are one-layer transformers on
f(i, j) mod p with full-batch AdamW (lr 1e-3, weight decay 1, β = (0.9, 0.98), 10-step warm-up,
30 000 epochs; the hyper-parameters the paper leaves out are the authors' code's), the image run
(Figs. 6–7) a ResNet-18 on the polygon dataset, and the theory a coverage bound (Thm 3.12) and an
ODE (App. C, Fig. 8). Every config's defaults are the paper's; the reduced profiles are
``replace`` lines below.

One transformer run is :func:`modular_run` (cached); figures assemble runs, so that a run two
figures share (e.g. the 1-layer baseline of Fig. 2 and the small-width arm of Fig. 9) is trained once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from companion.cache import experiment
from companion.kept import partial
from companion.measures.embedding import fourier_gini, med, restricted_excluded_loss, weight_norm_sq  # noqa: F401
from companion.models.gu import EmbedMLP, gu_config, gu_transformer
from companion.profiles import departures, select
from companion.data.modular import hole_mask, modular_split
from companion.events import first_crossing
from companion.train import TrainConfig, log_steps, train

TITLE = "Beyond Progress Measures"

PAPER_TRAIN = TrainConfig(steps=30_000, lr=1e-3, weight_decay=1.0, betas=(0.9, 0.98), warmup=10,
                          n_evals=40, loss_dtype="float32")
CPU_TRAIN = replace(PAPER_TRAIN, steps=1_200, lr=3e-3)  # 3× the paper's lr: groks in ~500 steps at p = 47
SMOKE_TRAIN = replace(PAPER_TRAIN, steps=30, lr=3e-3, n_evals=10)


@dataclass(frozen=True)
class Run:
    """One transformer run (§4, App. D): p = 97, f = i + j, offset k = 0, random 30 % split."""

    p: int = 97  # modulus
    op: str = "add"  # f(i, j): add, sub, mul, x2+xy+y2, x2+y2, x3+y3, x3+xy+y3
    offset: int = 0  # operand offset k (App. D)
    shape: str = "random"  # random | square | strip (Fig. 3)
    hole: int = 0  # square side index k / strip rows t (Table 1)
    train_frac: float = 0.3  # α
    d_model: int = 128
    n_layers: int = 1
    init: str = "random"  # random | toeplitz (App. E)
    model: str = "transformer"  # transformer | mlp (Fig. 4's DNN)
    train: TrainConfig = PAPER_TRAIN
    eval_every: int = 50  # a linear evaluation grid on top of log-spaced steps
    breakdown: bool = False  # log test accuracy split by mirror-in-train and by hole
    nanda: bool = True  # log restricted / excluded loss (one-layer transformer, f = i + j, k = 0 only)
    seed: int = 0  # split and initialisation


def eval_grid(run: Run) -> np.ndarray:
    return np.union1d(log_steps(run.train.steps, run.train.n_evals), np.arange(0, run.train.steps + 1, run.eval_every))


def _subset_acc(x: torch.Tensor, y: torch.Tensor):
    @torch.no_grad()
    def acc(m) -> float:
        return float((m(x).argmax(-1) == y).float().mean()) if len(y) else float("nan")
    return acc


def _setup(run: Run, device: str):
    """The data, model and measures of one run (shared by :func:`modular_run` and the batches)."""
    data = modular_split(run.p, run.op, run.offset, run.shape, run.hole, run.train_frac, run.seed).to(device)
    if run.model == "mlp":
        model = EmbedMLP(run.p, run.d_model, run.p + run.offset + 1, run.seed).to(device)
    else:
        model = gu_transformer(gu_config(run.p, run.d_model, run.n_layers, run.offset), run.seed, run.init).to(device)
    p, k = run.p, run.offset
    measures = {"med": lambda m: med(m.W_E, p, k), "med_sum": lambda m: med(m.W_E, p, k, "sum"),
                "wnorm2": weight_norm_sq, "gini": lambda m: fourier_gini(m.W_E, p)}
    a, b = data.test_x[:, 0], data.test_x[:, 1] - k
    extra = {}
    if run.breakdown:
        train_pairs = set(map(tuple, torch.stack([data.train_x[:, 0], data.train_x[:, 1] - k], 1).tolist()))
        mirror = torch.tensor([(bb, aa) in train_pairs for aa, bb in zip(a.tolist(), b.tolist())],
                              dtype=torch.bool, device=a.device)
        held = hole_mask(a, b, run.shape, run.hole)
        for name, mask in (("acc_mirror_in", mirror), ("acc_mirror_out", ~mirror), ("acc_hole", held),
                           ("acc_rest", ~held)):
            measures[name] = _subset_acc(data.test_x[mask], data.test_y[mask])
        extra = {"mirror_in_share": float(mirror.float().mean()), "hole_share": float(held.float().mean())}
    if run.nanda and run.op == "add" and run.offset == 0 and run.n_layers == 1 and run.model == "transformer":
        m_train = torch.zeros(p * p, dtype=torch.bool)
        m_train[(data.train_x[:, 0] * p + data.train_x[:, 1]).cpu()] = True
        cache: dict = {}

        def rl(m, which):
            version = m.W_E._version  # bumped by every optimizer step: recompute once per evaluation
            if cache.get("v") != version:
                cache["v"], cache["val"] = version, restricted_excluded_loss(m, p, m_train)
            return cache["val"][which]
        measures["restricted"] = lambda m: rl(m, 0)
        measures["excluded"] = lambda m: rl(m, 1)
    return data, model, measures, extra


def _finish(hist: dict, data, extra: dict) -> dict:
    hist["n_train"], hist["n_test"] = data.n_train, len(data.test_y)
    hist.update(extra)
    return hist


@experiment
def modular_run(run: Run, device: str = "cpu") -> dict:
    """Train one model; history of losses, accuracies, MED (mean and sum), W(θ) = Σ‖θ‖² and the
    Fourier Gini of W_E at the evaluation steps, plus the optional breakdowns."""
    data, model, measures, extra = _setup(run, device)
    return _finish(train(model, data, run.train, measures=measures, eval_at=eval_grid(run)), data, extra)


def batch_signature(run: Run) -> tuple:
    """Runs with one signature have tensors of one shape and one schedule: they can train as
    one batch (:func:`modular_runs`). Operation, split shape, hole, init and seed may differ."""
    n_train = modular_split(run.p, "add", run.offset, run.shape, run.hole, run.train_frac, run.seed).n_train
    return (run.p, run.offset, run.d_model, run.n_layers, run.model, run.train, run.eval_every, n_train)


def modular_runs(runs: list[Run], device: str = "cpu") -> list[dict]:
    """:func:`modular_run` for runs of one :func:`batch_signature`, trained as one batch
    (:func:`companion.train.train_batched`); each result is cached (and kept) under
    :func:`modular_run`'s own key, so figures read it exactly as a single run's."""
    from companion import cache
    from companion.train import train_batched

    from companion import kept

    if kept.viewing():  # a page of kept results never trains: each one is kept or NotKept
        return [modular_run(x, device) for x in runs]
    todo = [r for r in runs if not cache.done(modular_run, r, device)]
    if len({batch_signature(r) for r in todo}) > 1:
        raise ValueError("modular_runs needs runs of one batch signature")
    if not todo:
        return [modular_run(r, device) for r in runs]
    setups = [_setup(r, device) for r in todo]
    with cache.batch_frame(modular_run, todo, device) as frame:
        hists = train_batched([s[1] for s in setups], [s[0] for s in setups], todo[0].train,
                              measures=[s[2] for s in setups], eval_at=eval_grid(todo[0]))
        seconds = frame.seconds
    for r, (data, _, _, extra), h in zip(todo, setups, hists):
        cache.put(modular_run, r, device, _finish(h, data, extra), seconds / len(todo),
                  note=f"trained in a batch of {len(todo)} runs")
    return [modular_run(r, device) for r in runs]


def _runs_batch(runs: tuple, device: str = "cpu") -> list[dict]:
    return modular_runs(list(runs), device)


_runs_batch.experiment_name = f"{__name__}._runs_batch"  # a runner task, not a cached experiment


def batch_tasks(tasks: list, max_size: int = 24) -> list:
    """For ``companion run``: the ``modular_run`` tasks grouped by :func:`batch_signature` into
    batch tasks of at most ``max_size`` runs (each one tensor program); other tasks unchanged."""
    import hashlib

    from companion.runs import Task

    groups: dict = {}
    out = []
    for t in tasks:
        if t.experiment == modular_run.experiment_name:
            groups.setdefault(batch_signature(t.config), []).append(t)
        else:
            out.append(t)
    batched = []
    for members in groups.values():
        for i in range(0, len(members), max_size):
            chunk = members[i:i + max_size]
            if len(chunk) == 1:
                batched.append(chunk[0])
                continue
            key = hashlib.sha256("".join(sorted(m.key for m in chunk)).encode()).hexdigest()
            batched.append(Task(chunk[0].chapter, _runs_batch.experiment_name, tuple(m.config for m in chunk),
                                chunk[0].device, key, tuple(m.key for m in chunk)))
    return batched + out


# ------------------------------------------------------------------------------- summaries
def window(hist: dict, train_thr: float = 0.99, test_thr: float = 0.95) -> tuple[float, float]:
    """From the first step with train acc ≥ ``train_thr`` to the first with test acc ≥
    ``test_thr`` (or the last step when test accuracy never gets there)."""
    t0 = first_crossing(hist["step"], hist["train_acc"], train_thr, never=math.inf)
    t1 = first_crossing(hist["step"], hist["test_acc"], test_thr, never=math.inf)
    return t0, min(t1, float(hist["step"][-1]))


def window_r(hist: dict, key: str, against: str = "test_loss") -> float:
    """Pearson r of ``key`` with ``against`` over :func:`window` (nan with < 3 points)."""
    t0, t1 = window(hist)
    s = hist["step"]
    m = (s >= t0) & (s <= t1)
    if m.sum() < 3:
        return float("nan")
    return float(np.corrcoef(hist[key][m], hist[against][m])[0, 1])


def full_r(hist: dict, key: str, against: str = "test_loss") -> float:
    """Pearson r from the first step with train acc ≥ 0.99 to the end."""
    t0 = first_crossing(hist["step"], hist["train_acc"], 0.99, never=math.inf)
    m = hist["step"] >= t0
    return float(np.corrcoef(hist[key][m], hist[against][m])[0, 1]) if m.sum() >= 3 else float("nan")


def grok_step(hist: dict, thr: float = 0.95) -> float:
    return first_crossing(hist["step"], hist["test_acc"], thr, never=math.inf)


def fluctuation(hist: dict, every: int, thr: float = 0.9) -> float:
    """mean |Δ test acc| between consecutive linear-grid evaluations after test acc first ≥ ``thr``."""
    s = hist["step"]
    g = (s % every == 0) & (s >= grok_step(hist, thr))
    d = np.abs(np.diff(hist["test_acc"][g]))
    return float(d.mean()) if len(d) else float("nan")


def u_l_go(hist: dict) -> dict:
    """Table 1's U-Acc (highest test acc), L-Acc (lowest after it) and GO-Epoch (first step past
    the midpoint between the memorisation plateau and U-Acc; the paper does not define it)."""
    acc = hist["test_acc"]
    iu = int(np.argmax(acc))
    plateau = float(np.interp(first_crossing(hist["step"], hist["train_acc"], 0.99, never=math.inf), hist["step"], acc))
    return {"u_acc": float(acc[iu]), "l_acc": float(acc[iu:].min()),
            "go": first_crossing(hist["step"], acc, (plateau + acc[iu]) / 2, never=math.inf)}


# ------------------------------------------------------------------------------- figures' configs
CPU_RUN = Run(p=47, train_frac=0.5, d_model=64, train=CPU_TRAIN, eval_every=10)
SMOKE_RUN = Run(p=11, train_frac=0.5, d_model=32, train=SMOKE_TRAIN, eval_every=5)


@dataclass(frozen=True)
class Depth:
    """Fig. 2: depths 1–3 at the code's base.py setting (p = 97, α = 0.5)."""
    base: Run = Run(train_frac=0.5)
    layers: tuple = (1, 2, 3)


@dataclass(frozen=True)
class Holes:
    """Table 1 / Fig. 3: SQUARE k and STRIP t holes, p = 97, α = 0.3, k = 0."""
    base: Run = Run(breakdown=True)
    squares: tuple = (30, 35, 40, 45, 50, 55, 60)
    strips: tuple = (40, 50, 60, 67)


@dataclass(frozen=True)
class Commutativity:
    """Fig. 4: f = i² + ij + j², α ∈ {0.5, 0.6, 0.7}, and the DNN at α = 0.3 (MLP/base.py)."""
    base: Run = Run(op="x2+xy+y2", breakdown=True)
    fracs: tuple = (0.5, 0.6, 0.7)
    mlp_frac: float = 0.3


@dataclass(frozen=True)
class Primes:
    """Fig. 5: p ∈ {47, 97, 211, 379}, α = 0.3."""
    base: Run = Run()
    primes: tuple = (47, 97, 211, 379)


@dataclass(frozen=True)
class Widths:
    """Figs. 9–11: (figure, p, k, d_models). Fig. 11's p and k are unstated; α = 0.3 (near Thm 3.12)."""
    base: Run = Run()
    panels: tuple = (("Fig. 9 (left)", 97, 85, (128, 256)), ("Fig. 9 (right)", 47, 0, (64, 256)),
                     ("Fig. 10", 43, 0, (128, 512, 1024)), ("Fig. 11", 97, 85, (256, 512, 1024, 2048)))


@dataclass(frozen=True)
class Operations:
    """Figs. 12–19 (App. D.2): (figure, f, d_model, α, p)."""
    base: Run = Run()
    cases: tuple = (("Fig. 12", "sub", 128, 0.3, 97), ("Fig. 13", "mul", 128, 0.3, 97),
                    ("Fig. 14", "x2+y2", 256, 0.2, 97), ("Fig. 15", "x3+y3", 128, 0.2, 97),
                    ("Fig. 16", "x2+xy+y2", 128, 0.3, 97), ("Fig. 17", "x2+xy+y2", 256, 0.3, 97),
                    ("Fig. 18", "x2+xy+y2", 256, 0.4, 97), ("Fig. 19", "x3+xy+y3", 256, 0.5, 97))
    small_p_train: TrainConfig | None = None  # training of the cases run at a p other than base.p


@dataclass(frozen=True)
class Structured:
    """Fig. 20 (App. E): random vs Toeplitz W_E, α ∈ {0.3, 0.25, 0.2}, several seeds."""
    base: Run = Run()
    fracs: tuple = (0.3, 0.25, 0.2)
    seeds: tuple = (0, 1, 2)


@dataclass(frozen=True)
class ImageRun:
    """Fig. 7 (§5): ResNet-18 at 224², all 14 641 images, 25 % train, Adam lr 1e-3, L2 1e-4, batch 200."""
    size: int = 224
    n_images: int = 14_641  # a seeded subset in reduced profiles
    train_frac: float = 0.25
    width: int = 64
    stem: str = "imagenet"
    epochs: int = 20_000
    batch: int = 200
    lr: float = 1e-3
    weight_decay: float = 1e-4
    eval_every: int = 100
    faithful_quirk: bool = True
    seed: int = 0


@dataclass(frozen=True)
class ODE:
    """Fig. 8: trajectories of eqs. (14)–(16) from random starts in (0, 1]³ (counts unstated)."""
    n_starts: int = 200
    t_max: float = 50.0
    n_t: int = 501
    seed: int = 0


@dataclass(frozen=True)
class Coverage:
    """Thm 3.12 at p = 97 with a Monte-Carlo check."""
    p: int = 97
    ks: tuple = (2, 3, 4, 5, 6)
    alphas: tuple = (0.2, 0.3)
    n_draws: int = 20
    seed: int = 0


def _cpu(**kw) -> Run:
    return replace(CPU_RUN, **kw)


CONFIGS = {
    "fig2": {"paper": Depth(),
             "cpu": Depth(base=CPU_RUN, layers=(1, 2)),
             "smoke": Depth(base=SMOKE_RUN, layers=(1, 2))},
    "table1": {"paper": Holes(),
               "cpu": Holes(base=_cpu(breakdown=True),
                            squares=(14, 29), strips=(22, 13)),
               "smoke": Holes(base=replace(SMOKE_RUN, breakdown=True), squares=(2, 4), strips=(3,))},
    "fig4": {"paper": Commutativity(),
             "cpu": Commutativity(base=_cpu(p=31, op="x2+xy+y2", breakdown=True,
                                            train=replace(CPU_TRAIN, steps=1_500)), fracs=(0.5, 0.6, 0.7)),
             "smoke": Commutativity(base=replace(SMOKE_RUN, p=13, op="x2+xy+y2", breakdown=True), fracs=(0.5, 0.7))},
    "fig5": {"paper": Primes(),
             "cpu": Primes(base=CPU_RUN, primes=(47, 59)),
             "smoke": Primes(base=SMOKE_RUN, primes=(11, 13))},
    "widths": {"paper": Widths(),
               "cpu": Widths(base=CPU_RUN, panels=(("Fig. 9 (right)", 47, 0, (64, 128)),)),
               "smoke": Widths(base=SMOKE_RUN, panels=(("Fig. 9 (right)", 11, 0, (16, 32)),))},
    "ops": {"paper": Operations(),
            # x−y and x·y at p = 47 like Fig. 5; the polynomial families at p = 31 (≡ 1 mod 3) with
            # Fig. 4's steps, so that Figs. 16–18 are Fig. 4's runs at α = 0.5, 0.6, 0.7
            # x − y groks later than x + y: up to 1 600 epochs, stopping 10 % after test acc 0.95
            "cpu": Operations(base=_cpu(d_model=128, train=replace(CPU_TRAIN, steps=1_600, stop_after_test_acc=0.95,
                                                                    stop_patience=0.1)),
                              small_p_train=replace(CPU_TRAIN, steps=1_500), cases=(
                ("Fig. 12", "sub", 128, 0.5, 47), ("Fig. 13", "mul", 128, 0.5, 47), ("Fig. 14", "x2+y2", 64, 0.5, 31),
                ("Fig. 15", "x3+y3", 64, 0.5, 31), ("Fig. 16", "x2+xy+y2", 64, 0.5, 31),
                ("Fig. 17", "x2+xy+y2", 64, 0.6, 31), ("Fig. 18", "x2+xy+y2", 64, 0.7, 31),
                ("Fig. 19", "x3+xy+y3", 64, 0.5, 31))),
            "smoke": Operations(base=SMOKE_RUN, cases=(("Fig. 12", "sub", 32, 0.5, 11),
                                                       ("Fig. 16", "x2+xy+y2", 32, 0.5, 13)))},
    "fig20": {"paper": Structured(),
              # stop once test accuracy has passed 0.5 and the run has grown by half again
              "cpu": Structured(base=_cpu(train=replace(CPU_TRAIN, stop_after_test_acc=0.5, stop_patience=0.5)),
                                fracs=(0.5,), seeds=(0, 1, 2)),
              "smoke": Structured(base=replace(SMOKE_RUN, d_model=32), fracs=(0.5,), seeds=(0, 1))},
    "fig7": {"paper": ImageRun(),
             "cpu": ImageRun(size=24, n_images=2_000, width=8, stem="cifar", epochs=40, eval_every=5),
             "smoke": ImageRun(size=16, n_images=200, width=4, stem="cifar", epochs=2, eval_every=1)},
    "fig8": {"paper": ODE(), "cpu": ODE(), "smoke": ODE(n_starts=20, n_t=101)},
    "coverage": {"paper": Coverage(), "cpu": Coverage(), "smoke": Coverage(n_draws=3)},
}


def _reseed(cfg, seed: int):
    if isinstance(cfg, Structured):
        return replace(cfg, base=replace(cfg.base, seed=seed), seeds=tuple(seed + s for s in cfg.seeds))
    if hasattr(cfg, "base"):
        return replace(cfg, base=replace(cfg.base, seed=seed))
    return replace(cfg, seed=seed)


def config(name: str, profile: str, seed: int = 0):
    """The config of experiment ``name`` at ``profile``, with the chapter's seed."""
    return _reseed(select(CONFIGS[name], profile), seed)


def departures_table(profile: str) -> list[tuple[str, str, str, str]]:
    """(experiment, field, paper, here) for every departure of ``profile`` from the paper."""
    rows = []
    for name, cfgs in CONFIGS.items():
        for f, a, b in departures(cfgs[profile], cfgs["paper"]):
            rows.append((name, f, str(a), str(b)))
    return rows


def departures_markdown(profile: str):
    """The same departures as the book's shared (folded) Markdown table."""
    from companion.profiles import departures_table as table

    return table({name: (cfgs[profile], cfgs["paper"]) for name, cfgs in CONFIGS.items()}, profile)


# ------------------------------------------------------------------------------- figure runs
def depth_runs(cfg: Depth, device: str) -> dict:
    return partial({L: lambda L=L: modular_run(replace(cfg.base, n_layers=L), device) for L in cfg.layers})


def hole_runs(cfg: Holes, device: str) -> dict:
    runs = {("square", k): replace(cfg.base, shape="square", hole=k) for k in cfg.squares}
    runs.update({("strip", t): replace(cfg.base, shape="strip", hole=t) for t in cfg.strips})
    return partial({key: lambda r=r: modular_run(r, device) for key, r in runs.items()})


def commutativity_runs(cfg: Commutativity, device: str) -> dict:
    runs = {f: replace(cfg.base, train_frac=f) for f in cfg.fracs}
    runs["mlp"] = replace(cfg.base, model="mlp", train_frac=cfg.mlp_frac)
    return partial({key: lambda r=r: modular_run(r, device) for key, r in runs.items()})


def prime_runs(cfg: Primes, device: str) -> dict:
    return partial({p: lambda p=p: modular_run(replace(cfg.base, p=p), device) for p in cfg.primes})


def width_runs(cfg: Widths, device: str) -> dict:
    return partial({(fig, d): lambda p=p, k=k, d=d: modular_run(replace(cfg.base, p=p, offset=k, d_model=d), device)
                    for fig, p, k, ds in cfg.panels for d in ds})


def operation_runs(cfg: Operations, device: str) -> dict:
    out = {}
    for fig, op, d, a, p in cfg.cases:
        run = replace(cfg.base, op=op, d_model=d, train_frac=a, p=p)
        if op == "x2+xy+y2":  # the same runs as Fig. 4 (which logs the commutativity split)
            run = replace(run, breakdown=True)
        if p != cfg.base.p and cfg.small_p_train is not None:
            run = replace(run, train=cfg.small_p_train)
        out[fig] = lambda run=run: modular_run(run, device)
    return partial(out)


def structured_runs(cfg: Structured, device: str) -> dict:
    return partial({(init, a, s): lambda init=init, a=a, s=s: modular_run(replace(cfg.base, init=init, train_frac=a,
                                                                                   seed=s), device)
                    for a in cfg.fracs for s in cfg.seeds for init in ("random", "toeplitz")})


@experiment
def image_run(cfg: ImageRun, device: str = "cpu") -> dict:
    """Render the polygon dataset, split it (seeded), train the ResNet-18 from scratch."""
    from companion.data import polygons
    from companion.models.resnet import ResNet18, ResNet18Config, train_classifier

    rng = np.random.default_rng(cfg.seed)
    combos = polygons.combinations()
    if cfg.n_images < len(combos):
        combos = combos[np.sort(rng.choice(len(combos), cfg.n_images, replace=False))]
    y = torch.as_tensor(polygons.labels(combos)).to(device)
    img = torch.as_tensor(polygons.render(combos, cfg.size, cfg.faithful_quirk)).to(device)
    perm = torch.as_tensor(rng.permutation(len(y))).to(device)
    n_tr = int(round(cfg.train_frac * len(y)))
    tr, te = perm[:n_tr], perm[n_tr:]
    model = ResNet18(ResNet18Config(width=cfg.width, stem=cfg.stem, n_classes=polygons.N_CLASSES), cfg.seed).to(device)
    hist = train_classifier(model, img[tr], y[tr], img[te], y[te], cfg.epochs, cfg.batch, cfg.lr,
                            cfg.weight_decay, cfg.eval_every, cfg.seed)
    hist["n_train"], hist["n_test"] = int(n_tr), int(len(y) - n_tr)
    hist["chance"] = float(np.bincount(polygons.labels(combos)).max() / len(combos))
    return hist


@experiment
def ode_run(cfg: ODE, device: str = "cpu") -> dict:
    from companion.theory.progress_measures import ode_trajectories

    return ode_trajectories(cfg.n_starts, cfg.t_max, cfg.n_t, cfg.seed)


@experiment
def coverage_run(cfg: Coverage, device: str = "cpu") -> dict:
    from companion.theory import progress_measures as th

    rows = []
    for k in cfg.ks:
        for a in cfg.alphas:
            mc = th.monte_carlo_coverage(cfg.p, k, a, cfg.n_draws, cfg.seed)
            mc_box = th.monte_carlo_coverage(cfg.p, k, a, cfg.n_draws, cfg.seed, torus=False)
            rows.append({"k": k, "alpha": a, "C": th.cover_count(k), "alpha_min": th.alpha_threshold(cfg.p, k),
                         "union_bound": th.union_bound(cfg.p, k, a), **mc,
                         "covered_test_frac_box": mc_box["covered_test_frac"]})
    # just above the threshold at k = 4: how often is every point covered?
    a4 = 1.05 * th.alpha_threshold(cfg.p, 4)
    above = th.monte_carlo_coverage(cfg.p, 4, a4, cfg.n_draws, cfg.seed + 1)
    return {"rows": rows, "alpha_above": a4, "above": above}


def run_all(profile: str, device: str, seed: int = 0) -> None:
    depth_runs(config("fig2", profile, seed), device)
    hole_runs(config("table1", profile, seed), device)
    commutativity_runs(config("fig4", profile, seed), device)
    prime_runs(config("fig5", profile, seed), device)
    width_runs(config("widths", profile, seed), device)
    operation_runs(config("ops", profile, seed), device)
    structured_runs(config("fig20", profile, seed), device)
    image_run(config("fig7", profile, seed), device)
    ode_run(config("fig8", profile, seed), device)
    coverage_run(config("coverage", profile, seed), device)


# ------------------------------------------------------------------------------- data-only items
PAPER_TABLE1 = {  # Table 1 (p = 97, α = 0.3): U-Acc %, L-Acc %, GO-Epoch
    ("square", 30): (99.04, 91.27, "1500±100"), ("square", 35): (91.07, 80.73, "1500±100"),
    ("square", 40): (84.50, 81.68, "1700±100"), ("square", 45): (79.03, 76.07, "1900±100"),
    ("square", 50): (77.39, 66.02, "3400±200"), ("square", 55): (62.09, 57.69, "2600±100"),
    ("square", 60): (57.31, 55.18, "2200±100"), ("strip", 67): (7.56, 3.58, "disappear"),
    ("strip", 60): (33.25, 17.05, "900±100"), ("strip", 50): (80.10, 73.61, "1600±100"),
    ("strip", 40): (89.89, 84.80, "1300±100"),
}


def split_layouts(p: int = 97, train_frac: float = 0.3, square: int = 40, strip: int = 50, seed: int = 0) -> dict:
    """Fig. 3's three layouts as p × p grids: 0 test, 1 train, 2 held-out hole (k = 40, t = 50:
    the figure does not state them). Also returns the counts for the check."""
    out = {}
    for name, shape, hole in (("random", "random", 0), (f"square k = {square}", "square", square),
                              (f"strip t = {strip}", "strip", strip)):
        d = modular_split(p, "add", 0, shape, hole, train_frac, seed)
        g = np.zeros((p, p), dtype=int)
        g[d.train_x[:, 0].numpy(), d.train_x[:, 1].numpy()] = 1
        a, b = d.test_x[:, 0], d.test_x[:, 1]
        held = hole_mask(a, b, shape, hole).numpy()
        g[a.numpy()[held], b.numpy()[held]] = 2
        out[name] = g
    return out


def dataset_overview(size: int = 112, n_samples: int = 6, seed: int = 0) -> dict:
    """Fig. 6: the dictionary (top-left quadrant), a few samples, and the label statistics."""
    from companion.data import polygons

    rng = np.random.default_rng(seed)
    combos = polygons.combinations()
    pick = combos[rng.choice(len(combos), n_samples, replace=False)]
    lab = polygons.labels(combos)
    return {"tiles": polygons.tiles(size)[0], "sides": polygons.SIDES, "samples": polygons.render(pick, size),
            "sample_labels": polygons.labels(pick), "n_images": len(combos), "n_classes": len(np.unique(lab)),
            "max_label": int(lab.max()), "largest_class": float(np.bincount(lab).max() / len(lab))}


NOTATION = [  # Table 2 (App. A)
    ("mod", "the remainder when an integer is divided by p"), ("ℤ_p", "the field of the prime p, {0, 1, …, p−1}"),
    ("ℤ₊", "the positive integers"), ("f(i, j)", "a two-variable polynomial"),
    ("r(i, j)", "the remainder of f(i, j) modulo p"), ("I_d", "identity operator, I_d(x) = x"),
    ("l, l_O, l_V, l₁, l₂", "linear operators"), ("n", "normalisation operator"),
    ("r", "truncation operator: sets the components in a subspace to 0"), ("β_QK", "bilinear operator"),
    ("X", "input token collection"), ("φ", "the embedding function (word + position embedding)"),
    ("φ⁽ⁿ⁾", "the embedding function after n epochs"), ("×", "Cartesian product"),
    ("I × J", "the whole data set"), ("∼", "an equivalence relation"),
    ("S/∼", "the quotient of S by ∼ (its elements are subsets of S)"), ("I′ × J′", "the training set"),
    ("I″ × J″", "the test set"), ("c_i", "the vector of an optimisation direction"),
    ("ε_i", "the acceptable error distance of the model"), ("‖·‖", "operator norm"), ("‖·‖_F", "Frobenius norm"),
    ("W", "the weight-decay term"), ("E", "the critical value of weight decay"),
    ("Ω", "the set of parameters with W < E"), ("P(·)", "probability"), ("α, frac", "training-set ratio"),
]


def benchmark_result():
    """The measured rows of ``benchmarks/progress_measures_step.py`` (its JSON files: the CPU and,
    where one was measured, a GPU), or a note; and the GPU's K-seed ensemble rows."""
    import json
    from pathlib import Path

    here = Path(__file__).resolve().parents[3] / "benchmarks"
    rows, ensemble = [], []
    for f in ("progress_measures_step.json", "progress_measures_step_cuda.json"):
        if not (here / f).exists():
            continue
        data = json.loads((here / f).read_text())
        where = data.get("device", "cpu")
        where += f" (torch {data['torch']}, {data.get('date', 'undated')})" if "torch" in data else ""
        for r in data["rows"]:
            speed = r.get("speed-up (wall)", r.get("speed-up (CPU)"))
            rows.append({"device": where, "loop": r["loop"], "wall s/epoch": r["wall s/epoch"],
                         "speed-up over the first row of its device": speed})
        ensemble += [{"device": where, **r} for r in data.get("ensemble", [])]
    if not rows:
        return "*benchmark not run on this checkout: `python benchmarks/progress_measures_step.py`*", []
    return rows, ensemble
