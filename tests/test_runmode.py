"""The run mode (companion.runmode): one object for how a process runs, inherited by the
processes it starts through their environment, and the only reader of COMPANION_* variables."""

from pathlib import Path

import pytest

from companion import runmode
from companion.runmode import RunMode
from companion.settings import ParameterError


def test_a_mode_reaches_a_child_process_through_its_environment_unchanged(monkeypatch):
    mode = RunMode(cache_dir=Path("/c"), claims_dir=Path("/cl"), results_dir=Path("/r"), fresh_before=12.5,
                   kept_only=True, locks=True, threads=3, workers=2)
    for name, value in runmode.environment(mode).items():
        monkeypatch.setenv(name, value)
    assert runmode.from_environment() == mode
    # a mode at its defaults unsets every variable, so a child does not inherit a stale one
    for name, value in runmode.environment(RunMode()).items():
        monkeypatch.setenv(name, value)
    assert runmode.from_environment() == RunMode()


def test_using_sets_a_mode_for_a_block_and_gives_the_previous_one_back(monkeypatch):
    monkeypatch.delenv("COMPANION_KEPT_ONLY", raising=False)
    assert not runmode.current().kept_only
    with runmode.using(kept_only=True, keep_chapter="demo") as outer:
        assert runmode.current() is outer and outer.kept_only
        with runmode.using(keep_chapter=None):
            assert runmode.current().kept_only and runmode.current().keep_chapter is None
        assert runmode.current().keep_chapter == "demo"
    assert not runmode.current().kept_only  # back to the environment


def test_only_documented_variables_are_read_and_counts_must_be_whole(monkeypatch):
    with pytest.raises(ParameterError, match="valid environment variables"):
        runmode.variable("COMPANION_TYPO")
    monkeypatch.setenv("COMPANION_WORKERS", "2.5")
    with pytest.raises(ParameterError, match="COMPANION_WORKERS must be a whole number"):
        runmode.from_environment()
    monkeypatch.delenv("COMPANION_WORKERS")
    assert runmode.count("COMPANION_WORKERS", 4) == 4
