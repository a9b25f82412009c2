"""Profiles, devices and the run context every chapter starts from.

A *profile* is a named set of experiment configurations:

* ``smoke`` -- every chapter in under a minute on 2 CPU cores; exercises every code path,
  shows no effect and fails no build on its claims.
* ``cpu`` -- the default: every figure shows the paper's effect; the whole book in under
  30 minutes on 2 cores.
* ``paper`` -- the paper's own settings, meant for a GPU.

Each experiment module keeps its configurations as frozen dataclasses whose *defaults are the
paper's values*; reduced profiles are ``dataclasses.replace(paper, ...)`` so that every
departure is one visible line, and :func:`departures` lists them for the chapter page. A field
whose value the paper does not state is declared with :func:`unstated`: its default is ours,
and the departures table says so ("not stated (ours: X)") at every profile, the paper's too.
"""

from __future__ import annotations

import dataclasses
import os
import random
from dataclasses import dataclass
from typing import Any, Mapping, TypeVar

from companion import runmode
from companion.settings import ParameterError, one_of, unstated  # noqa: F401  (re-exported)

PROFILES = ("smoke", "cpu", "paper")
DEVICES = ("auto", "cpu", "cuda")
DEFAULT_PROFILE = "cpu"

T = TypeVar("T")


def check_profile(profile: str) -> str:
    return one_of("profile", profile, PROFILES)


def check_seed(seed: Any) -> int:
    """A seed is a whole number ≥ 0 (the base of a chapter's seed set: seeds ``seed, seed + 1, …``);
    anything else is the one-line error."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ParameterError(f"seed must be a whole number ≥ 0, got {seed!r}")
    return seed


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when a GPU is visible, else ``cpu``; ``cuda`` without a GPU is an error."""
    one_of("device", device, DEVICES)
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ParameterError("device 'cuda' was asked for but torch sees no GPU; valid devices here: auto, cpu")
    return device


@dataclass(frozen=True)
class NotStated:
    """The paper column of a setting the paper does not state."""

    ours: Any

    def __str__(self) -> str:
        return f"not stated (ours: {self.ours})"


def unstated_fields(config: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every field of ``config`` (nested dataclasses included, dotted names) declared with
    :func:`unstated`, with its value in ``config``."""
    out = []
    for f in dataclasses.fields(config):
        v = getattr(config, f.name)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            out += unstated_fields(v, f"{prefix}{f.name}.")
        elif f.metadata.get("stated") is False:
            out.append((prefix + f.name, v))
    return out


def select(configs: Mapping[str, T], profile: str) -> T:
    """Pick ``configs[profile]`` with a clear error for an unknown profile."""
    check_profile(profile)
    return configs[profile]


def departures(config: Any, paper: Any) -> list[tuple[str, Any, Any]]:
    """Fields where ``config`` departs from the paper's ``paper`` config: (name, paper, here).

    Nested dataclasses are compared field by field and reported with dotted names.
    """
    out: list[tuple[str, Any, Any]] = []
    for f in dataclasses.fields(paper):
        a, b = getattr(paper, f.name), getattr(config, f.name)
        if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
            out += [(f"{f.name}.{n}", x, y) for n, x, y in departures(b, a)]
        elif a != b:
            out.append((f.name, a, b))
    return out


def threads() -> int:
    """Torch intra-op threads: the run mode's (:mod:`companion.runmode`; ``COMPANION_THREADS``), default 1.

    Measured on the 2-core build machine: the small models of this book ran several times
    slower with 2 threads than with 1 when the other core was busy (the build runs two
    chapters at once), so one thread per process is the default.
    """
    return runmode.current().threads


def workers() -> int:
    """Processes that compute a chapter's experiments before it reads them
    (:func:`companion.pipeline.runs.precompute`): the run mode's (``COMPANION_WORKERS``), default 1.

    Each runs one experiment at a time on :func:`threads` threads, exactly as the chapter would
    in its own process, so more workers change the wall time and not the numbers. Measured on
    the 2-core build machine: two one-thread processes beat one two-thread process (1.30–1.43×
    for this book's small models against 2×). ``companion build`` sets it to the cores per
    chapter: all of them when one chapter is built, one each when two run at once.
    """
    return runmode.current().workers


@dataclass(frozen=True)
class RunContext:
    """What a chapter was run with; printed at the top of each chapter page."""

    profile: str
    device: str
    seed: int
    threads: int
    torch_version: str
    precomputed: str = ""  # what companion.pipeline.runs.precompute did, if anything

    def describe(self) -> str:
        if runmode.current().kept_only:
            return (f"profile **{self.profile}** from **kept results** only (computed earlier; where and when "
                    "is given below); nothing was trained for this page")
        return (f"profile **{self.profile}**, device **{self.device}**, seed **{self.seed}**, "
                f"{self.threads} torch thread(s), torch {self.torch_version}"
                + (f"; {self.precomputed}" if self.precomputed else ""))


def keep_freed_memory() -> None:
    """Keep freed memory in the process (glibc ``mallopt``) instead of returning it to the OS.

    Measured on the 2-core build machine: allocating a fresh 11 MB tensor cost ~20 ms of page
    faults versus ~1 ms once freed blocks are reused, and a training step allocates several.
    Process wide and harmless (memory is reused, not leaked); a no-op where glibc is absent.
    """
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 30)  # M_MMAP_THRESHOLD: no mmap per large block
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: do not give the heap back
    except (OSError, AttributeError):
        pass


def setup(profile: str = DEFAULT_PROFILE, device: str = "auto", seed: int = 0) -> RunContext:
    """Validate a chapter's parameters and prepare a deterministic, headless run.

    Seeds Python's and torch's global generators (library code still takes explicit
    generators), asks torch for deterministic algorithms, sets the thread count, keeps freed
    memory in the process (:func:`keep_freed_memory`) and sets the house plotting style.
    """
    check_profile(profile)
    check_seed(seed)
    if device in ("cuda", "auto"):  # deterministic cuBLAS needs this before CUDA starts
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    dev = resolve_device(device)
    import torch

    torch.set_num_threads(threads())
    torch.use_deterministic_algorithms(True, warn_only=True)
    keep_freed_memory()
    torch.manual_seed(seed)
    random.seed(seed)
    from companion import plotting  # matplotlib only where a chapter sets up: the CLI imports this module

    plotting.use_style()
    return RunContext(profile, dev, seed, threads(), torch.__version__)


def _dotted(config: Any, name: str) -> Any:
    for part in name.split("."):
        config = getattr(config, part)
    return config


def departures_table(pairs: Mapping[str, tuple[Any, Any]], profile: str,
                     substitutions: Mapping[str, list[tuple[str, str, str]]] | None = None,
                     not_stated: Mapping[str, tuple[str, ...]] | None = None):
    """A Markdown table of every departure from the paper, for the top of a chapter, and of
    every setting the paper does not state (its "paper" value is ours, and says so).

    ``pairs`` maps an experiment's name to ``(config at this profile, the paper's config)``.
    ``substitutions`` maps an experiment's name to ``(setting, the paper's, ours)`` rows for
    what no config field holds: a dataset or a pretrained model replaced by another (a
    departure at every profile, the paper's included). ``not_stated`` maps an experiment's name to
    (dotted) fields the paper does not state *for that experiment*, where the config class is
    shared with experiments whose paper does state them (so :func:`unstated` cannot mark it).
    """
    from IPython.display import Markdown

    rows = []
    for name, (cfg, paper) in pairs.items():
        extra = [(f, _dotted(cfg, f)) for f in (not_stated or {}).get(name, ())]
        ours = dict(unstated_fields(paper)) | {f: _dotted(paper, f) for f, _ in extra}
        rows += [(name, f, NotStated(a) if f in ours else a, b) for f, a, b in departures(cfg, paper)]
        moved = {f for f, _, _ in departures(cfg, paper)}
        rows += [(name, f, NotStated(v), v) for f, v in unstated_fields(cfg) + extra if f not in moved]
    rows += [(name, f"{setting} (substituted)", paper, ours)
             for name, subs in (substitutions or {}).items() for setting, paper, ours in subs]
    n_dep = sum(not isinstance(a, NotStated) for _, _, a, _ in rows)
    n_ours = sum(isinstance(a, NotStated) for _, _, a, _ in rows)
    if not rows:
        return Markdown(f"At profile **{profile}** every setting is the paper's.")
    what = f"{n_dep} setting(s) depart from the paper's" + (f" and {n_ours} are not stated in the paper (ours)"
                                                             if n_ours else "")
    # folded (a sphinx-design dropdown) so that a long table does not bury the chapter's opening
    lines = [f"At profile **{profile}**, {what}:", "",
             f":::{{dropdown}} Settings at profile {profile} that are not the paper's", "",
             "| experiment | setting | paper | here |", "|---|---|---|---|"]
    def short(v) -> str:
        return str(v) if len(str(v)) < 60 else str(v)[:57] + "…"

    lines += [f"| {n} | `{f}` | {short(a)} | {short(b)} |" for n, f, a, b in rows]
    lines.append(":::")
    return Markdown("\n".join(lines))
