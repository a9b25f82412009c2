"""Event times and what is built from them (companion.events), checked against hand computations."""

import math

import numpy as np
import pytest

from companion.events import (
    NOT_OBSERVED,
    first_crossing,
    first_crossings,
    increasing,
    interpolated_fall,
    interpolated_rise,
    ratio,
    worst,
)


def test_first_crossings_of_many_runs_agree_with_one_run_at_a_time():
    steps = np.array([0, 10, 20, 30])
    acc = np.array([[[0.1, 0.5, 0.95, 1.0], [0.1, 0.2, 0.3, 0.4]], [[0.99, 1.0, 1.0, 1.0], [0.1, 0.9, 0.9, 0.9]]])
    got = first_crossings(steps, acc, 0.9)
    assert got.shape == (2, 2) and got[0, 0] == 20 and got[1, 0] == 0 and got[1, 1] == 10
    assert math.isnan(got[0, 1])  # never: NaN in an array, NOT_OBSERVED one run at a time
    assert first_crossing(steps, acc[0, 1], 0.9) is NOT_OBSERVED


def test_interpolated_crossings_are_linear_in_log_step_and_mirror_each_other():
    step = np.array([1, 10, 100])
    # from 1.0 at step 10 to 0.0 at step 100: half-way in log10 is 10^1.5
    assert interpolated_fall(step, [1.0, 1.0, 0.0], 0.5) == pytest.approx(10 ** 1.5)
    assert interpolated_rise(step, [0.0, 0.0, 1.0], 0.5) == pytest.approx(10 ** 1.5)
    assert interpolated_fall(step, [0.2, 0.1, 0.0], 0.5) == 0.0  # already there at the first point
    assert interpolated_rise(step, [0.0, 0.1, 0.2], 0.5) is NOT_OBSERVED


def test_ratio_floors_the_early_time_unless_asked_not_to():
    assert ratio(30.0, 10.0) == 3.0 and ratio(30.0, 0.0) == 30.0  # an event at step 0 counts as step 1
    assert ratio(3.0, 0.5, floor=None) == 6.0 and ratio(3.0, 0.0, floor=None) is NOT_OBSERVED
    assert ratio(NOT_OBSERVED, 10.0) is NOT_OBSERVED and ratio(10.0, NOT_OBSERVED, floor=None) is NOT_OBSERVED


def test_worst_and_increasing_count_every_run():
    assert worst([1.0, 4.0, 2.0]) == 4.0 and worst([1.0, NOT_OBSERVED]) is NOT_OBSERVED
    assert increasing([1, 2, 3]) is True and increasing([1, 1, 2]) is False and increasing([1, 1, 2], strict=False)
    assert increasing([1.0, float("nan")]) is NOT_OBSERVED
