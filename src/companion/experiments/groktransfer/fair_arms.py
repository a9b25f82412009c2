"""Each arm's (init, lr, wd) by the paper's own rule (Xu et al. 2025, A.3.1): "We select the configuration
that first achieves 90% accuracy on the validation set", over a grid, separately for GrokTransfer and for
training from scratch.

At the reduced profiles the paper's picks for its (128, 512) targets do not train a (32, 128) target (its
scratch (lr, wd) = (0.05, 3) and Fig. 6a's (0.1, 0.1, 2) stay below test 0.7 in 900 epochs), so the rule
is applied again at the reduced size, on a small grid that contains the paper's picks and the paper's own
grid point next to them, two initialisations on a fixed selection seed apart from the claims' seeds (the paper
selects on its one run), with the same budget as the comparison. The choice is cached with its grid and shown; the
arms are then trained on every seed with it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from companion.events import NOT_OBSERVED, first_crossing, observed
from companion.experiments.groktransfer.common import Hyperparams, premise_met, seeded
from companion.experiments.groktransfer.modular import TargetBatch, TransferPair, fnn_targets
from companion.store.cache import experiment


@dataclass(frozen=True)
class ArmGrids:
    """The two grids of one comparison (A.3.1): GrokTransfer's (init, lr, wd) and scratch's; ``criterion``
    the test accuracy whose first crossing ranks a configuration (the paper's 90%); ``seeds`` the
    initialisations each configuration is tried with (the rule ranks a configuration by its slower seed)."""

    transfer: tuple  # Hyperparams of the GrokTransfer arm's grid
    scratch: tuple  # Hyperparams of the scratch arm's grid
    criterion: float = 0.9  # "first achieves 90% accuracy on the validation set" (A.3.1)
    seeds: int = 2  # [the paper: one run -> ours: a configuration must reach the criterion in both of 2 seeds]


#: the reduced profiles' grids: the paper's two GrokTransfer picks, (0.3, 5e-3, 3) (Fig. 1b) and (0.3, 1e-3, 1)
#: (Fig. 6a); its two scratch picks, (1, 0.05, 3) (Fig. 1b) and (0.1, 0.1, 2) (Fig. 6a), with the next learning
#: rate of its own scratch grid below, 1e-2, at Fig. 1b's (init, wd). Two seeds per configuration: with one, an
#: unstable configuration wins on a lucky seed (a probe: scratch lr 0.05 reached 90% test at epoch 380 on one
#: seed and fitted the training set in none of five others within 900 epochs).
GRIDS_REDUCED = ArmGrids(
    transfer=(Hyperparams(0.3, 1e-3, 1.0), Hyperparams(0.3, 5e-3, 3.0)),
    scratch=(Hyperparams(1.0, 1e-2, 3.0), Hyperparams(1.0, 5e-2, 3.0), Hyperparams(0.1, 0.1, 2.0)),
)


@dataclass(frozen=True)
class GridChoice:
    """One arm's grid on the selection seeds: per configuration the first epoch at ``criterion`` test
    accuracy in its slower seed (not observed unless every seed got there) and its mean final test
    accuracy; the chosen configuration and whether the paper's rule chose it (``by_rule``: some
    configuration reached the criterion in every seed; otherwise the one with the highest mean final test
    accuracy, and the claims say so)."""

    grid: tuple
    first: list
    final: list
    chosen: Hyperparams
    by_rule: bool
    epochs: int  # the grid's budget
    seeds: int = 1  # initialisations per configuration
    premise: tuple = ()  # per initialisation: did its weak model meet the transfer premise (True for scratch)


def grid_batch(arm: TargetBatch, grid: tuple, seeds: int) -> TargetBatch:
    """The batch that applies the rule: every configuration of ``grid`` with ``seeds`` initialisations on the
    arm's data, for the arm's whole budget."""
    return replace(arm, hypers=tuple(grid), n_seeds=seeds, checkpoints=(-1,), stop_at=None)


def choose(batch: dict, grid: tuple, criterion: float) -> GridChoice:
    """:class:`GridChoice` of a :func:`grid_batch` result (members ordered seed-major, as
    :func:`~.modular.fnn_targets` trains them): the configuration whose slower seed reaches ``criterion``
    first (ties: grid order). A seed whose weak model missed the transfer premise (:func:`.common.premise_met`)
    reaches nothing: the method was not applied there."""
    ep, te = batch["epoch"], batch["test_acc"]
    seeds = len(batch["members"]) // len(grid)
    met = premise_met(batch)
    first, final = [], []
    for h in range(len(grid)):
        rows = [s * len(grid) + h for s in range(seeds)]
        crossings = [first_crossing(ep, te[i], criterion) if met[s] else NOT_OBSERVED for s, i in enumerate(rows)]
        first.append(max(crossings) if all(observed(c) for c in crossings) else NOT_OBSERVED)
        final.append(float(np.mean([te[i, -1] for i in rows])))
    hit = [i for i, f in enumerate(first) if observed(f)]
    k = min(hit, key=lambda i: (first[i], i)) if hit else int(np.argmax(final))
    return GridChoice(tuple(grid), first, final, grid[k], bool(hit), int(ep[-1]), seeds, tuple(met))


@dataclass(frozen=True)
class FairPair:
    """A comparison whose arms each took their (init, lr, wd) by the paper's rule: the two choices (None at
    the paper profile, whose configurations are the paper's own picks) and the arms' target batches (every
    seed, the same budget)."""

    transfer_choice: GridChoice | None
    scratch_choice: GridChoice | None
    transfer: dict
    scratch: dict
    configs: TransferPair  # the arms as trained


#: the grids per profile (the paper profile trains the paper's picks: its grids were searched at that size)
GRIDS = {"paper": None, "cpu": GRIDS_REDUCED, "smoke": GRIDS_REDUCED}


def seeded_pair(pair: TransferPair, seed: int) -> TransferPair:
    """Both arms of ``pair`` with their seed set to ``seed`` (:func:`.common.seeded`)."""
    return TransferPair(seeded(pair.transfer, seed), seeded(pair.scratch, seed))


@dataclass(frozen=True)
class Comparison:
    """One comparison of the two arms: the arms (their ``hypers`` replaced by the grids' choices) and the
    grids (None: the arms as given); the random-embedding control is trained with ``control_seeds``."""

    pair: TransferPair
    grids: ArmGrids | None
    control_seeds: int = 3  # seeds of the control (:func:`random_control`)
    #: the grids' seed (data split, inits, weak model), fixed and apart from every claim seed set: the choice is
    #: part of the setting, so ``--seed`` shifts the seeds the claims read and not the configurations compared.
    #: [unspecified -> ours: an arbitrary seed no probe of this book had used]
    selection_seed: int = 100


@experiment
def comparison(cfg: Comparison, device: str = "cpu") -> dict:
    """Apply the rule to each arm (:func:`grid_batch`, :func:`choose`), then train both arms on every seed
    with their choice, and the control (:func:`random_control`); each batch is its own cached
    :func:`~.modular.fnn_targets` result. Returns the choices and the arms as trained."""
    pair, choices = cfg.pair, [None, None]
    if cfg.grids is not None:
        g = cfg.grids
        choices = [choose(fnn_targets(grid_batch(seeded(arm, cfg.selection_seed), grid, g.seeds), device), grid,
                          g.criterion) for arm, grid in ((pair.transfer, g.transfer), (pair.scratch, g.scratch))]
        pair = TransferPair(replace(pair.transfer, hypers=(choices[0].chosen,)),
                            replace(pair.scratch, hypers=(choices[1].chosen,)))
    fnn_targets(pair.transfer, device)
    fnn_targets(pair.scratch, device)
    fnn_targets(random_control(pair, cfg.control_seeds), device)
    return {"transfer_choice": choices[0], "scratch_choice": choices[1], "configs": pair}


def fair_pair(pair: TransferPair, grids: ArmGrids | None, device: str = "cpu") -> FairPair | None:
    """:class:`FairPair` of :func:`comparison` (None while the runner only plans experiments)."""
    r = comparison(Comparison(pair, grids), device)
    if r is None:
        return None
    arms = r["configs"]
    return FairPair(r["transfer_choice"], r["scratch_choice"], fnn_targets(arms.transfer, device),
                    fnn_targets(arms.scratch, device), arms)


def random_control(pair: TransferPair, n_seeds: int = 3) -> TargetBatch:
    """The control the paper's ablation implies (Fig. 15a): the GrokTransfer arm of ``pair`` as trained, with A
    drawn at random instead of taken from the weak model — the same A·B shape, budget and (init, lr, wd), no
    information from a weak model."""
    return replace(pair.transfer, kind="random", n_seeds=n_seeds)


#: the training fraction of :func:`more_data_control`: half the pairs, twice the paper's 25% [ours]
MORE_DATA_FRACTION = 0.5


def more_data_control(pair: TransferPair, n_seeds: int = 3) -> TargetBatch:
    """The control of a delay claim on the scratch arm: the scratch arm of ``pair`` as trained — the same target,
    (init, lr, wd) and budget — on :data:`MORE_DATA_FRACTION` of the pairs instead of the arm's. More training data
    shortens the delay until train and test rise together, so the same clock must read no delay there. It ends a
    quarter past reaching 95% test accuracy (only its 90% crossings are read, and no crossing below 95% moves)."""
    arm = pair.scratch
    return replace(arm, weak=replace(arm.weak, train_frac=MORE_DATA_FRACTION), n_seeds=n_seeds, stop_at=0.95)
