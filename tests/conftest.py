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
