"""The paper's rule for each arm's (init, lr, wd) (Xu et al. 2025, A.3.1): the configuration that first reaches
90% test accuracy wins — here in the slower of its initialisations; checked on hand-made histories."""

import numpy as np

from companion.events import NOT_OBSERVED
from companion.experiments.groktransfer.common import Delays, Hyperparams, seeds_sooner
from companion.experiments.groktransfer.fair_arms import (
    GRIDS_REDUCED,
    MORE_DATA_FRACTION,
    choose,
    grid_batch,
    more_data_control,
    random_control,
)
from companion.experiments.groktransfer.modular import ADD_SCRATCH_CPU, MUL_SCRATCH_CPU, MUL_TRANSFER_CPU, TransferPair

GRID = (Hyperparams(1, 1e-3, 1), Hyperparams(1, 5e-3, 1), Hyperparams(1, 1e-2, 1))
EPOCH = np.array([0, 10, 20, 30, 40])


def batch(*rows, seeds=1):
    """A grid batch of ``seeds`` seeds: rows ordered seed-major, as fnn_targets trains them."""
    per = len(rows) // seeds
    return {"epoch": EPOCH, "test_acc": np.array(rows), "members": list(range(len(rows))),
            "seed_members": [s * per for s in range(seeds)]}


def test_the_first_configuration_to_reach_the_criterion_in_its_slower_seed_is_chosen():
    c = choose(batch([0, .2, .5, .95, .99], [0, .91, .99, .99, .99], [0, .1, .2, .3, .4],  # seed 0
                     [0, .2, .91, .95, .99], [0, .3, .4, .5, .95], [0, .1, .2, .3, .4], seeds=2), GRID, 0.9)
    assert c.first == [30, 40, NOT_OBSERVED]  # configuration 1 was first on seed 0 and last on seed 1
    assert c.chosen == GRID[0] and c.by_rule and c.seeds == 2


def test_a_configuration_that_misses_the_criterion_in_one_seed_does_not_qualify():
    c = choose(batch([0, .91, .99, .99, .99], [0, .2, .5, .95, .99],
                     [0, .1, .1, .1, .1], [0, .2, .5, .92, .99], seeds=2), GRID[:2], 0.9)
    assert c.first == [NOT_OBSERVED, 30] and c.chosen == GRID[1]


def test_without_a_configuration_at_the_criterion_the_rule_cannot_choose_and_says_so():
    c = choose(batch([0, .2, .5, .6, .61], [0, .3, .4, .5, .8], [0, .1, .2, .3, .4]), GRID, 0.9)
    assert c.chosen == GRID[1] and not c.by_rule  # the highest final test accuracy, flagged


def test_a_seed_whose_weak_model_missed_the_premise_reaches_nothing():
    b = batch([0, .91, .99, .99, .99], [0, .95, .99, .99, .99], seeds=2)
    b["selections"] = [{"in_band": True}, {"in_band": False}]
    c = choose(b, GRID[:1], 0.9)
    assert c.first == [NOT_OBSERVED] and not c.by_rule and c.premise == (True, False)


def test_a_tie_goes_to_grid_order():
    c = choose(batch([0, .2, .91, .95, .99], [0, .3, .93, .99, .99], [0, .3, .93, .99, .99]), GRID, 0.9)
    assert c.chosen == GRID[0]


def test_the_grid_batch_is_every_configuration_with_the_grid_seeds_for_the_whole_budget():
    b = grid_batch(ADD_SCRATCH_CPU, GRIDS_REDUCED.scratch, 2)
    assert (b.n_seeds, b.hypers, b.stop_at) == (2, GRIDS_REDUCED.scratch, None)
    assert b.epochs == ADD_SCRATCH_CPU.epochs  # the comparison's budget


def test_the_reduced_grids_hold_the_papers_own_picks():
    """A.3.1 / A.3.3: GrokTransfer (0.3, 5e-3, 3) and (0.3, 1e-3, 1); scratch (1, 0.05, 3) and (0.1, 0.1, 2)."""
    assert {Hyperparams(0.3, 5e-3, 3.0), Hyperparams(0.3, 1e-3, 1.0)} <= set(GRIDS_REDUCED.transfer)
    assert {Hyperparams(1.0, 5e-2, 3.0), Hyperparams(0.1, 0.1, 2.0)} <= set(GRIDS_REDUCED.scratch)


def test_sooner_per_seed_is_not_observed_unless_both_arrive():
    late = [Delays(10, 100, 10), Delays(10, 80, 8)]
    early = [Delays(10, 20, 2), Delays(10, NOT_OBSERVED, NOT_OBSERVED)]
    assert seeds_sooner(late, early) == [5.0, NOT_OBSERVED]


def test_the_controls_change_one_thing_each():
    """random A·B: the GrokTransfer arm with A drawn at random; more data: the scratch arm on half the pairs. Each
    keeps the arm's target, configuration and budget, so that only the effect's cause differs."""
    pair = TransferPair(MUL_TRANSFER_CPU, MUL_SCRATCH_CPU)
    rnd, more = random_control(pair), more_data_control(pair)
    assert (rnd.kind, rnd.n_seeds, rnd.hypers, rnd.epochs, rnd.weak) == ("random", 3, MUL_TRANSFER_CPU.hypers,
                                                                         MUL_TRANSFER_CPU.epochs, MUL_TRANSFER_CPU.weak)
    assert (more.kind, more.n_seeds, more.hypers, more.epochs) == ("scratch", 3, MUL_SCRATCH_CPU.hypers,
                                                                  MUL_SCRATCH_CPU.epochs)
    assert more.weak.train_frac == MORE_DATA_FRACTION == 2 * MUL_SCRATCH_CPU.weak.train_frac
    assert (more.weak.op, more.weak.p, more.d_embed, more.width) == (MUL_SCRATCH_CPU.weak.op, MUL_SCRATCH_CPU.weak.p,
                                                                    MUL_SCRATCH_CPU.d_embed, MUL_SCRATCH_CPU.width)
