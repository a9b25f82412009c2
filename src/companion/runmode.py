"""How this process runs: where results are cached and claims written, which results are served
(fresh, cached, kept-only), whether experiments are only planned, and how many threads and
workers compute them — one :class:`RunMode`, and every environment variable the library reads.

The command line builds a mode from its arguments and runs under it (:func:`using`); a process it
starts (a chapter's kernel, a worker) inherits it through :func:`environment`, the only channel a
notebook kernel has. Without a mode set, :func:`current` reads the environment, so a chapter run by
papermill or JupyterLab behaves as its variables say and, with none, as the defaults below.

The variables (:data:`VARIABLES`) are documented overrides, read here and nowhere else
(``tests/test_architecture.py`` checks it). A leaf module: it imports nothing of the library but
:mod:`companion.settings`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from companion.settings import ParameterError, one_of

#: every environment variable the library reads, and what it overrides
VARIABLES = {
    "COMPANION_CACHE_DIR": "the results cache (default `<repo>/_build/cache`, else `~/.cache/companion`)",
    "COMPANION_CLAIMS_DIR": "where a chapter writes its claims (a build gives each build its own; default "
                            "`<repo>/_build/reruns/claims`, beside the published book)",
    "COMPANION_RESULTS_DIR": "the kept paper-scale results (default `<repo>/results`)",
    "COMPANION_FRESH_BEFORE": "a `--fresh` build's start (`time.time()`): older cache entries are ignored",
    "COMPANION_KEPT_ONLY": "`1`: a page of kept results — serve kept results only, never compute",
    "COMPANION_LOCKS": "`1`: an experiment takes a lock while it computes (parallel workers share nested ones)",
    "COMPANION_THREADS": "torch intra-op threads per process (default 1)",
    "COMPANION_WORKERS": "processes that compute a chapter's experiments before it reads them (default 1)",
    "COMPANION_NUMERICS": "the CPU kernels pinned: `avx2` (default), `compatible`, `native` (companion.numerics)",
    "COMPANION_COMMIT": "the commit recorded in kept results where there is no `.git` (a GPU machine)",
    "COMPANION_MNIST_DIR": "MNIST IDX files (default: scikit-learn's bundled 8×8 digits)",
    "COMPANION_PROGRESS_EVERY": "seconds between a build's progress lines (default 60)",
    "COMPANION_PAPER_VIEW": "`1`: show kept paper-scale results beside a build at a profile other than cpu",
    "COMPANION_CUDA_GRAPHS": "`0`: train eagerly on a GPU, never replaying a captured step (companion.train.graph)",
    "COMPANION_BATCHED_EVAL": "`1`: a batch of seeds evaluates all its members at once on a CPU too (the default "
                              "on a GPU); `0`: member by member on a GPU too (companion.train.trainer)",
    "COMPANION_PRECISION": "`tf32` or `bf16`: the runs eligible for a reduced precision train in it at the paper "
                           "profile, kept under their own keys (default `float32`; companion.train.precision)",
    "COMPANION_PRECISION_SCOPE": "`0`: on a GPU, train without setting the matmul and convolution precision "
                                 "(torch's defaults), a window's fallback when its precision tests fail; a reduced "
                                 "precision is then refused (companion.train.precision)",
}


def variable(name: str, default: str | None = None) -> str | None:
    """The value of environment variable ``name`` (one of :data:`VARIABLES`), or ``default`` when
    it is unset or empty."""
    one_of("environment variable", name, tuple(VARIABLES))
    return os.environ.get(name) or default


def count(name: str, default: int = 1) -> int:
    """The positive whole number in variable ``name`` (``default`` when unset); anything else is a
    :class:`ParameterError` that says what it must be."""
    raw = variable(name, str(default))
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        raise ParameterError(f"{name} must be a whole number of at least 1, got {raw!r}")
    return n


@dataclass(frozen=True)
class RunMode:
    """How this process runs. The first fields travel to the processes it starts
    (:func:`environment`); the last ones belong to one ``companion run`` and stay in it."""

    cache_dir: Path | None = None  # None: <repo>/_build/cache
    claims_dir: Path | None = None  # None: <repo>/_build/reruns/claims
    results_dir: Path | None = None  # None: <repo>/results
    fresh_before: float | None = None  # cache entries written before this time are ignored (--fresh)
    kept_only: bool = False  # serve kept results only, never compute (a page of kept results)
    locks: bool = False  # an experiment locks while it computes (parallel workers)
    threads: int = 1  # torch intra-op threads
    workers: int = 1  # processes that precompute a chapter's experiments
    # one `companion run` only
    planning: bool = False  # record top-level experiment calls instead of running them
    reuse_kept: bool = False  # a kept result counts as done (--keep)
    keep_chapter: str | None = None  # write every finished experiment to the kept results of this chapter
    keep_profile: str = "paper"  # ... under this profile


#: the fields of :class:`RunMode` that a process started from this one inherits, by variable
INHERITED = {"cache_dir": "COMPANION_CACHE_DIR", "claims_dir": "COMPANION_CLAIMS_DIR",
             "results_dir": "COMPANION_RESULTS_DIR", "fresh_before": "COMPANION_FRESH_BEFORE",
             "kept_only": "COMPANION_KEPT_ONLY", "locks": "COMPANION_LOCKS", "threads": "COMPANION_THREADS",
             "workers": "COMPANION_WORKERS"}


def from_environment() -> RunMode:
    """The mode the environment describes (unset variables: the defaults)."""
    path = {f: Path(v) if (v := variable(INHERITED[f])) else None for f in ("cache_dir", "claims_dir", "results_dir")}
    fresh = variable("COMPANION_FRESH_BEFORE")
    return RunMode(**path, fresh_before=float(fresh) if fresh else None,
                   kept_only=bool(variable("COMPANION_KEPT_ONLY")), locks=variable("COMPANION_LOCKS") == "1",
                   threads=count("COMPANION_THREADS"), workers=count("COMPANION_WORKERS"))


def environment(mode: RunMode) -> dict[str, str]:
    """The variables that give a process started from this one ``mode``'s inherited fields; a field
    at its default maps to ``""`` (unset)."""
    out = {}
    for field, name in INHERITED.items():
        value = getattr(mode, field)
        out[name] = ("1" if value else "") if isinstance(value, bool) else "" if value is None else str(value)
    return out


_MODE: RunMode | None = None


def current() -> RunMode:
    """The mode this process runs under: the one set by :func:`using`, else :func:`from_environment`."""
    return _MODE if _MODE is not None else from_environment()


@contextlib.contextmanager
def using(mode: RunMode | None = None, **changes) -> Iterator[RunMode]:
    """Run a block under ``mode`` (default: the current one) with ``changes``; the previous mode
    comes back after it."""
    global _MODE
    before = _MODE
    _MODE = dataclasses.replace(mode or current(), **changes)
    try:
        yield _MODE
    finally:
        _MODE = before


def set_mode(mode: RunMode) -> None:
    """Run the rest of this process under ``mode`` (a worker process, set up by its parent)."""
    global _MODE
    _MODE = mode
