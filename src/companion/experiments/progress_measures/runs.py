"""One transformer (or DNN) run of Gu et al. on f(i, j) mod p (§4, App. D–E): :class:`Run`,
:func:`modular_run` (cached), and the batching that trains runs of one shape as one program.

Every figure of the chapter's transformer part (Figs. 2–5, 9–20, Table 1) assembles runs, so
that a run two figures share (e.g. the 1-layer baseline of Fig. 2 and the small-width arm of
Fig. 9) is trained once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from companion.data.modular import OPERATIONS, SPLIT_SHAPES, hole_mask, modular_split
from companion.measures.embedding import fourier_gini, med, pair_class_spreads, restricted_excluded_loss, weight_norm_sq
from companion.models.gu import INITS, EmbedMLP, gu_config, gu_transformer
from companion.settings import one_of
from companion.store import cache, kept
from companion.store.cache import experiment
from companion.store.tasks import Task
from companion.theory.progress_measures import same_class_distance
from companion.train import TrainConfig, log_steps, train, train_batched

MODELS = ("transformer", "mlp")  # the one-layer transformer, or Fig. 4's 2-layer DNN
#: the operations with f(i, j) = f(j, i): with a shared vocabulary a test pair whose mirror (j, i)
#: was trained can be answered by memorised commutativity, so their test accuracy is split by that
COMMUTATIVE = ("add", "mul", "x2+xy+y2", "x2+y2", "x3+y3", "x3+xy+y3")
#: Thm 3.10's distance bins (name, lowest, highest): the torus Manhattan distance from a mirror-untrained test pair
#: of a hole run to the nearest training pair of its class (even for f = i + j: the class is an anti-diagonal)
NEAR_BINS = (("2", 2, 2), ("4", 4, 4), ("6-8", 6, 8), ("10+", 10, np.inf))

# full-batch AdamW, lr 1e-3, weight decay 1, β = (0.9, 0.98), 10-step warm-up, 30 000 epochs
# (the authors' code; the paper states only the epochs), float32 cross-entropy as their code
PAPER_TRAIN = TrainConfig(steps=30_000, lr=1e-3, weight_decay=1.0, betas=(0.9, 0.98), warmup=10,
                          n_evals=40, loss_dtype="float32")


@dataclass(frozen=True)
class Run:
    """One transformer run (§4, App. D): p = 97, f = i + j, offset k = 0, random 30 % split."""

    p: int = 97  # modulus
    op: str = "add"  # f(i, j): add, sub, mul, x2+xy+y2, x2+y2, x3+y3, x3+xy+y3
    offset: int = 0  # operand offset k (App. D)
    shape: str = "random"  # random | square | strip (Fig. 3)
    hole: int = 0  # square side index k / strip rows t (Table 1)
    train_frac: float = 0.3  # α
    d_model: int = 128  # embedding dimension
    n_layers: int = 1  # transformer blocks
    init: str = "random"  # random | toeplitz (App. E)
    toeplitz_seed_offset: int = 10_007  # the Toeplitz W_E is drawn with seed + this (apart from the model's init)
    model: str = "transformer"  # transformer | mlp (Fig. 4's DNN)
    train: TrainConfig = PAPER_TRAIN  # optimizer and schedule
    eval_every: int = 50  # a linear evaluation grid on top of log-spaced steps
    breakdown: bool = False  # log test accuracy split by mirror-in-train and by hole
    nanda: bool = True  # log restricted / excluded loss (one-layer transformer, f = i + j, k = 0 only)
    seed: int = 0  # split and initialisation

    def __post_init__(self):
        one_of("operation", self.op, list(OPERATIONS))
        one_of("split shape", self.shape, SPLIT_SHAPES)
        one_of("init", self.init, INITS)
        one_of("model", self.model, MODELS)


def eval_grid(run: Run) -> np.ndarray:
    """The evaluation steps: log-spaced (``train.n_evals``) and every ``eval_every`` epochs."""
    return np.union1d(log_steps(run.train.steps, run.train.n_evals), np.arange(0, run.train.steps + 1, run.eval_every))


def _subset_acc(x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor, cache: dict):
    """Accuracy on the test pairs of ``mask``, from one forward over the test set per evaluation
    (``cache``, shared by the subsets of a run; recomputed when the weights have changed, unless
    :func:`_share_test_forward` has filled it from the evaluation's own test forward)."""
    @torch.no_grad()
    def acc(m) -> float:
        version = (id(m), m.W_E._version)  # bumped by every optimizer step
        if cache.get("v") != version:
            cache["v"], cache["hit"] = version, m(x).argmax(-1) == y
        return float(cache["hit"][mask].float().mean()) if bool(mask.any()) else float("nan")
    return acc


def _share_test_forward(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, cache: dict) -> None:
    """Fill ``cache`` (:func:`_subset_acc`'s) from the forward over the test set that every
    evaluation already makes for test loss and accuracy (a no-grad call on ``x`` itself), so the
    subset accuracies cost no second forward: at cpu this was a fifth of each evaluation. Training
    forwards (grad enabled, or on other inputs) pass through untouched."""
    def hook(m, args, out):
        if not torch.is_grad_enabled() and args and args[0] is x:
            cache["v"], cache["hit"] = (id(m), m.W_E._version), out.argmax(-1) == y
    model.register_forward_hook(hook)


def mirror_split(run: Run, data) -> torch.Tensor | None:
    """The commutativity split of the test set (the one definition every figure uses): a bool mask
    over ``data.test_x``, true where the mirror (j, i) of test pair (i, j) is a training pair. None
    where the split means nothing: f not commutative, or an operand offset k > 0 (the mirror of
    tokens (i, j + k) is not a pair of the task)."""
    if run.op not in COMMUTATIVE or run.offset != 0:
        return None
    train_pairs = set(map(tuple, data.train_x[:, :2].tolist()))
    return torch.tensor([(b, a) in train_pairs for a, b in data.test_x[:, :2].tolist()], dtype=torch.bool,
                        device=data.test_x.device)


def setup_run(run: Run, device: str):
    """The data, model and measures of one run (shared by :func:`modular_run` and the batches)."""
    data = modular_split(run.p, run.op, run.offset, run.shape, run.hole, run.train_frac, run.seed).to(device)
    if run.model == "mlp":
        model = EmbedMLP(run.p, run.d_model, run.p + run.offset + 1, run.seed).to(device)
    else:
        model = gu_transformer(gu_config(run.p, run.d_model, run.n_layers, run.offset), run.seed, run.init,
                               run.toeplitz_seed_offset, tabulated=True).to(device)
    p, k = run.p, run.offset
    measures = {"med": lambda m: med(m.W_E, p, k), "med_sum": lambda m: med(m.W_E, p, k, "sum"),
                "wnorm2": weight_norm_sq, "gini": lambda m: fourier_gini(m.W_E, p)}
    a, b = data.test_x[:, 0], data.test_x[:, 1] - k
    extra, forward = {}, {}
    mirror = mirror_split(run, data)
    if mirror is not None:  # every commutative run: accuracy on mirror-trained and mirror-untrained test pairs
        for name, mask in (("acc_mirror_in", mirror), ("acc_mirror_out", ~mirror)):
            measures[name] = _subset_acc(data.test_x, data.test_y, mask, forward)
        extra["mirror_in_share"] = float(mirror.float().mean())
    if mirror is not None or run.breakdown:
        _share_test_forward(model, data.test_x, data.test_y, forward)
    if run.breakdown:
        held = hole_mask(a, b, run.shape, run.hole)
        for name, mask in (("acc_hole", held), ("acc_rest", ~held)):
            measures[name] = _subset_acc(data.test_x, data.test_y, mask, forward)
        extra["hole_share"] = float(held.float().mean())
        if mirror is not None:  # Table 1: how much of each hole a trained mirror can answer
            extra["hole_mirror_in_share"] = float(mirror[held].float().mean()) if held.any() else float("nan")
            measures["acc_rest_out"] = _subset_acc(data.test_x, data.test_y, ~held & ~mirror, forward)
        if mirror is not None and run.shape != "random":  # Thm 3.10: accuracy by distance to a same-class pair
            dist = torch.as_tensor(same_class_distance(p, data.train_x.cpu().numpy(), data.train_y.cpu().numpy(),
                                                       data.test_x.cpu().numpy(), data.test_y.cpu().numpy()),
                                   device=data.test_x.device)
            for name, lo, hi in NEAR_BINS:
                mask = ~mirror & (dist >= lo) & (dist <= hi)
                measures[f"acc_near_{name}"] = _subset_acc(data.test_x, data.test_y, mask, forward)
                extra[f"n_near_{name}"] = int(mask.sum())
    if run.op == "add" and run.offset == 0 and run.n_layers == 1 and run.model == "transformer" \
            and run.shape == "random" and run.init == "random" and run.train.stop_after_test_acc is None:
        # Thm 3.5's class consistency of the pair's representation at the last position, over all p² pairs, after
        # and before the MLP (one forward of them per evaluation): only on the runs whose trajectories Figs. 2, 5,
        # 9 and 10 read, not on Table 1's hole runs nor on Fig. 20's Toeplitz or early-stopped runs
        a_all, b_all = torch.arange(p).repeat_interleave(p), torch.arange(p).repeat(p)
        pairs = torch.stack([a_all, b_all, torch.full_like(a_all, p)], 1).to(device)
        classes = ((a_all + b_all) % p).to(device)
        spreads: dict = {}

        def spread(m, which):  # both depths from one forward per evaluation
            if spreads.get("v") != m.W_E._version:
                spreads["v"], spreads["val"] = m.W_E._version, pair_class_spreads(m, pairs, classes)
            return spreads["val"][which]
        measures["class_spread"] = lambda m: spread(m, 1)  # after the MLP (Thm 3.5, App. B.3)
        measures["class_spread_attn"] = lambda m: spread(m, 0)  # before the MLP: the control
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
    """Figs. 2–5, 9–20 and Table 1: train one model; history of losses, accuracies, MED (mean and
    sum), W(θ) = Σ‖θ‖² and the Fourier Gini of W_E at the evaluation steps, plus the optional breakdowns.

    A full-batch run trains as a batch of one (:func:`companion.train.train_batched`), the program
    :func:`modular_runs` runs for several: a member's numbers are then the same bits whether it was
    trained alone or beside others, so a build's values do not depend on which runs its cache already
    held or on how many workers computed them (trained by :func:`companion.train.train` instead, the
    cpu profile's Fig. 4 DNN seed 1 reached best test accuracy 0.04606 alone and 0.04458 in a batch)."""
    data, model, measures, extra = setup_run(run, device)
    if run.train.batch_size is None:
        hist = train_batched([model], [data], run.train, measures=[measures], eval_at=eval_grid(run))[0]
    else:
        hist = train(model, data, run.train, measures=measures, eval_at=eval_grid(run))
    return _finish(hist, data, extra)


def batch_signature(run: Run) -> tuple:
    """Runs with one signature have tensors of one shape and one schedule: they can train as
    one batch (:func:`modular_runs`). Operation, split shape, hole, init and seed may differ."""
    n_train = modular_split(run.p, "add", run.offset, run.shape, run.hole, run.train_frac, run.seed).n_train
    return (run.p, run.offset, run.d_model, run.n_layers, run.model, run.train, run.eval_every, n_train)


def modular_runs(runs: list[Run], device: str = "cpu") -> list[dict]:
    """:func:`modular_run` for runs of one :func:`batch_signature`, trained as one batch
    (:func:`companion.train.train_batched`); each result is cached (and kept) under
    :func:`modular_run`'s own key, so figures read it exactly as a single run's."""
    if kept.viewing():  # a page of kept results never trains: each one is kept or NotKept
        return [modular_run(x, device) for x in runs]
    todo = [r for r in runs if not cache.done(modular_run, r, device)]
    if len({batch_signature(r) for r in todo}) > 1:
        raise ValueError("modular_runs needs runs of one batch signature")
    if not todo:
        return [modular_run(r, device) for r in runs]
    setups = [setup_run(r, device) for r in todo]
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
