import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("MPLBACKEND", "agg")


@pytest.fixture()
def isolated(tmp_path, monkeypatch):
    """A private cache and claims folder for one test."""
    monkeypatch.setenv("COMPANION_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPANION_CLAIMS_DIR", str(tmp_path / "claims"))
    monkeypatch.delenv("COMPANION_FRESH_BEFORE", raising=False)
    return tmp_path


def companion(*args, cwd=ROOT, env=None, timeout=900):
    """Run the companion command as a user would; returns the CompletedProcess."""
    import subprocess

    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def planned(call, *args) -> list:
    """The (experiment, config, device) calls ``call(*args)`` would compute, in order, without
    computing any (the run mode's ``planning``, as ``companion run`` lists a chapter's experiments)."""
    from companion import runmode
    from companion.store import cache
    from companion.store.entries import canonical

    cache.PLAN[:] = []
    try:
        with runmode.using(planning=True):
            call(*args)
        return [(fn.experiment_name, canonical(config), device) for fn, config, device in cache.PLAN]
    finally:
        cache.PLAN[:] = []
