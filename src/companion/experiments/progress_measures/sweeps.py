"""The transformer figures of Gu et al. as sweeps of :class:`~.runs.Run`: each config names the
runs of one figure group (its defaults are the paper's), each ``*_runs`` function trains or reads
them (:func:`~.runs.modular_run`, cached) and returns them keyed by what varies."""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.events import observed
from companion.settings import unstated
from companion.store import kept
from companion.store.kept import partial
from companion.train import TrainConfig

from .runs import INITS, Run, modular_run
from .seeded import seeded


@dataclass(frozen=True)
class Depth:
    """Fig. 2: depths 1–3 at the code's base.py setting (p = 97, α = 0.5)."""

    base: Run = Run(train_frac=0.5)  # the run every depth shares
    layers: tuple = (1, 2, 3)  # transformer blocks
    seeds: tuple = unstated((0, 1, 2))  # seed offsets (the paper shows one run)


@dataclass(frozen=True)
class Holes:
    """Table 1 / Fig. 3: SQUARE k and STRIP t holes, p = 97, α = 0.3, k = 0."""

    base: Run = Run(breakdown=True)  # the run every hole shares
    squares: tuple = (30, 35, 40, 45, 50, 55, 60)  # square hole sides k
    strips: tuple = (40, 50, 60, 67)  # strip hole rows t
    seeds: tuple = unstated((0, 1, 2))  # seed offsets (the paper shows one run)


@dataclass(frozen=True)
class Commutativity:
    """Fig. 4: f = i² + ij + j², α ∈ {0.5, 0.6, 0.7}, and the DNN at α = 0.3 (MLP/base.py)."""

    base: Run = Run(op="x2+xy+y2", breakdown=True)  # the transformer runs
    fracs: tuple = (0.5, 0.6, 0.7)  # training fractions α of the transformer
    mlp_frac: float = 0.3  # training fraction of the 2-layer DNN
    seeds: tuple = unstated((0, 1, 2))  # seed offsets (the paper shows one run)


@dataclass(frozen=True)
class Primes:
    """Fig. 5: p ∈ {47, 97, 211, 379}, α = 0.3."""

    base: Run = Run()  # the run every prime shares
    primes: tuple = (47, 97, 211, 379)  # moduli p
    seeds: tuple = unstated((0, 1, 2))  # seed offsets (the paper shows one run)


@dataclass(frozen=True)
class Widths:
    """Figs. 9–11: (figure, p, k, d_models). Fig. 11's p and k are unstated; α = 0.3 (near Thm 3.12)."""

    base: Run = Run()  # the run every panel shares
    panels: tuple = (("Fig. 9 (left)", 97, 85, (128, 256)), ("Fig. 9 (right)", 47, 0, (64, 256)),
                     ("Fig. 10", 43, 0, (128, 512, 1024)),
                     ("Fig. 11", 97, 85, (256, 512, 1024, 2048)))  # (figure, p, offset k, d_models)
    seeds: tuple = unstated((0, 1, 2))  # seed offsets (the paper shows one run)


@dataclass(frozen=True)
class Operations:
    """Figs. 12–19 (App. D.2): (figure, f, d_model, α, p)."""

    base: Run = Run()  # the run every case shares
    cases: tuple = (("Fig. 12", "sub", 128, 0.3, 97), ("Fig. 13", "mul", 128, 0.3, 97),
                    ("Fig. 14", "x2+y2", 256, 0.2, 97), ("Fig. 15", "x3+y3", 128, 0.2, 97),
                    ("Fig. 16", "x2+xy+y2", 128, 0.3, 97), ("Fig. 17", "x2+xy+y2", 256, 0.3, 97),
                    ("Fig. 18", "x2+xy+y2", 256, 0.4, 97),
                    ("Fig. 19", "x3+xy+y3", 256, 0.5, 97))  # (figure, f, d_model, α, p)
    small_p_train: TrainConfig | None = None  # training of the cases run at a p other than base.p
    seeds: tuple = unstated((0, 1, 2))  # seed offsets (the paper shows one run)


@dataclass(frozen=True)
class Structured:
    """Fig. 20 (App. E): random vs Toeplitz W_E, α ∈ {0.3, 0.25, 0.2}, several seeds."""

    base: Run = Run()  # the run every case shares
    fracs: tuple = (0.3, 0.25, 0.2)  # training fractions α
    seeds: tuple = unstated((0, 1, 2))  # seed offsets from the chapter's seed (the paper's count is not stated)


def depth_runs(cfg: Depth, device: str) -> dict:
    """Fig. 2: one run per depth, keyed by the number of layers."""
    return partial({L: lambda L=L: modular_run(replace(cfg.base, n_layers=L), device) for L in cfg.layers})


def hole_runs(cfg: Holes, device: str) -> dict:
    """Table 1: one run per hole, keyed ("square", k) and ("strip", t)."""
    runs = {("square", k): replace(cfg.base, shape="square", hole=k) for k in cfg.squares}
    runs.update({("strip", t): replace(cfg.base, shape="strip", hole=t) for t in cfg.strips})
    return partial({key: lambda r=r: modular_run(r, device) for key, r in runs.items()})


def commutativity_runs(cfg: Commutativity, device: str) -> dict:
    """Fig. 4: one transformer run per α (keyed α) and the DNN (keyed "mlp")."""
    runs = {f: replace(cfg.base, train_frac=f) for f in cfg.fracs}
    runs["mlp"] = replace(cfg.base, model="mlp", train_frac=cfg.mlp_frac)
    return partial({key: lambda r=r: modular_run(r, device) for key, r in runs.items()})


def prime_runs(cfg: Primes, device: str) -> dict:
    """Fig. 5: one run per prime, keyed p."""
    return partial({p: lambda p=p: modular_run(replace(cfg.base, p=p), device) for p in cfg.primes})


def width_runs(cfg: Widths, device: str) -> dict:
    """Figs. 9–11: one run per (panel, d_model)."""
    return partial({(fig, d): lambda p=p, k=k, d=d: modular_run(replace(cfg.base, p=p, offset=k, d_model=d), device)
                    for fig, p, k, ds in cfg.panels for d in ds})


def operation_case(cfg: Operations, op: str, d_model: int, train_frac: float, p: int) -> Run:
    """The run of one case of Figs. 12–19: f = i² + ij + j² logs the commutativity split (the
    same runs as Fig. 4); a case at a p other than the base's trains with ``small_p_train``."""
    run = replace(cfg.base, op=op, d_model=d_model, train_frac=train_frac, p=p)
    if op == "x2+xy+y2":
        run = replace(run, breakdown=True)
    if p != cfg.base.p and cfg.small_p_train is not None:
        run = replace(run, train=cfg.small_p_train)
    return run


def operation_runs(cfg: Operations, device: str) -> dict:
    """Figs. 12–19: one run per case, keyed by its figure."""
    return partial({fig: lambda run=operation_case(cfg, op, d, a, p): modular_run(run, device)
                    for fig, op, d, a, p in cfg.cases})


def structured_runs(cfg: Structured, device: str) -> dict:
    """Fig. 20: one run per (init, α, seed)."""
    return partial({(init, a, s): lambda init=init, a=a, s=s: modular_run(replace(cfg.base, init=init, train_frac=a,
                                                                                   seed=cfg.base.seed + s), device)
                    for a in cfg.fracs for s in cfg.seeds for init in INITS})


# ------------------------------------------------------------------------------- over seeds
def first_seed(runs: dict) -> dict:
    """The first seed's history of each key of a :func:`~.seeded.seeded` dict (what figures draw)."""
    return {k: hs[0] for k, hs in runs.items()}


def first_grokking(runs: dict) -> tuple[dict, dict]:
    """(history, seed index) per key of a :func:`~.seeded.seeded` dict: the first seed whose run groks (reaches
    the onset), else the first seed — what a figure draws, so that it shows grokking wherever a seed has it."""
    from .seeded import onset

    idx = {k: next((i for i, h in enumerate(hs) if observed(onset(h))), 0) for k, hs in runs.items()}
    return {k: runs[k][i] for k, i in idx.items()}, idx


def depth_seeded(cfg: Depth, device: str) -> dict:
    """Fig. 2 over seeds: layers -> [history per seed]."""
    return seeded({L: replace(cfg.base, n_layers=L) for L in cfg.layers}, cfg.seeds, device)


def holes_seeded(cfg: Holes, device: str) -> dict:
    """Table 1 over seeds: (shape, size) -> [history per seed]."""
    runs = {("square", k): replace(cfg.base, shape="square", hole=k) for k in cfg.squares}
    runs.update({("strip", t): replace(cfg.base, shape="strip", hole=t) for t in cfg.strips})
    return seeded(runs, cfg.seeds, device)


def commutativity_seeded(cfg: Commutativity, device: str) -> dict:
    """Fig. 4 over seeds: α (and "mlp") -> [history per seed]."""
    runs = {f: replace(cfg.base, train_frac=f) for f in cfg.fracs}
    runs["mlp"] = replace(cfg.base, model="mlp", train_frac=cfg.mlp_frac)
    return seeded(runs, cfg.seeds, device)


def primes_seeded(cfg: Primes, device: str) -> dict:
    """Fig. 5 over seeds: p -> [history per seed]."""
    return seeded({p: replace(cfg.base, p=p) for p in cfg.primes}, cfg.seeds, device)


def widths_seeded(cfg: Widths, device: str) -> dict:
    """Figs. 9–11 over seeds: (panel, d_model) -> [history per seed]."""
    return seeded({(fig, d): replace(cfg.base, p=p, offset=k, d_model=d) for fig, p, k, ds in cfg.panels for d in ds},
                  cfg.seeds, device)


def operations_seeded(cfg: Operations, device: str) -> dict:
    """Figs. 12–19 over seeds: figure -> [history per seed]."""
    return seeded({fig: operation_case(cfg, op, d, a, p) for fig, op, d, a, p in cfg.cases}, cfg.seeds, device)


def structured_seeded(cfg: Structured, device: str) -> dict:
    """Fig. 20 over seeds: (init, α) -> [history per seed]."""
    return seeded({(init, a): replace(cfg.base, init=init, train_frac=a) for a in cfg.fracs for init in INITS},
                  cfg.seeds, device)


def nongrokking_at(p: int, cfg: dict, device: str) -> list:
    """Fig. 5's control: every run of the chapter at modulus ``p`` — Fig. 5's runs without weight decay
    (:func:`without_weight_decay`) and its seeds, the widths of Figs. 9–11, Fig. 20's random-init arm — whose
    mirror-untrained test accuracy never reaches the :func:`~.seeded.onset`: the same
    task in a run that does not generalise in its budget. A run two figures share is counted once; on a page of
    kept results a figure without kept runs adds none. ``cfg`` maps the chapter's config names to configs."""
    from .seeded import onset

    w, s = cfg["widths"], cfg["fig20"]
    f5 = cfg["fig5"]
    groups = [(lambda: {"no decay": without_weight_decay(f5.base, f5.seeds, device, p)}, lambda k: True),
              (lambda: primes_seeded(f5, device), lambda k: k == p),
              (lambda: widths_seeded(w, device), lambda k: any(f == k[0] and q == p for f, q, _, _ in w.panels)),
              (lambda: structured_seeded(s, device), lambda k: k[0] == "random" and s.base.p == p)]
    out, seen = [], set()
    for load, wanted in groups:
        try:
            runs = load()
        except kept.NotKept:
            continue
        for key, hists in runs.items():
            for h in hists if wanted(key) else ():
                sig = (len(h["step"]), float(h["test_loss"][0]), float(h["test_loss"][-1]), float(h["train_loss"][-1]))
                if sig not in seen and not observed(onset(h)):
                    seen.add(sig)
                    out.append(h)
    return out


def without_weight_decay(base: Run, seeds: tuple, device: str, p: int | None = None) -> list:
    """The control the paper's mechanism names (Thm 3.8: weight decay drives the embedding to uniformity): ``base``
    (at modulus ``p`` if given) with weight decay 0, one history per seed (none on a page of kept results that
    lacks them)."""
    run = replace(base, p=p or base.p, train=replace(base.train, weight_decay=0.0))
    try:
        return seeded({"no decay": run}, seeds, device)["no decay"]
    except (kept.NotKept, KeyError):
        return []


def most_seeded(runs: dict):
    """The key of ``runs`` (key -> [history per seed]) with the most seeds, the first of those tied: where a
    figure's claims are read when a page of kept results has fewer seeds for some keys."""
    return max(runs, key=lambda k: len(runs[k]))
