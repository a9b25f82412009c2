"""The ``@experiment`` cache: a finished experiment's results, stored once and served after.

An experiment is a function ``f(config, device) -> results`` decorated with :func:`experiment`.
Its results are stored as a checksummed entry of :mod:`companion.store.entries` under a key of
its name, configuration, device kind, pinned kernels and library source, so a change anywhere in
the library recomputes everything, and nothing stale is ever shown. ``companion cache prune``
removes the entries an older library wrote and ``companion cache verify`` checks every entry's
checksum (:mod:`companion.store.upkeep`). The build's ``--fresh`` sets ``COMPANION_FRESH_BEFORE``
to its start time: entries written before it are ignored, entries written by the fresh build
itself are reused (so a fresh build that is interrupted still resumes).

Around the computation the decorator keeps a frame for :mod:`companion.store.slices` (probes,
deadline, checkpoints) and serves kept paper-scale results (:mod:`companion.store.kept`).

Results must be picklable plain data: dicts of numpy arrays, floats, ints, strings, lists.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from pathlib import Path
from typing import Any, Callable

from companion import runmode
from companion.store import kept, slices
from companion.store.dirlock import alive
from companion.store.entries import EXPERIMENTS, cache_dir, entry_path, key, load, save, stale

#: names of the experiments computed (not loaded) in this process, in order; the tests and the
#: build's progress report read it.
computed: list[str] = []

#: in the run mode's ``planning`` (``companion run`` listing a chapter's experiments), top-level
#: calls are recorded here as ``(experiment, config, device)`` and not run.
PLAN: list[tuple[Callable[..., Any], Any, str]] = []
#: probe mode (``--dry-run``): one record per experiment probed, see :func:`_probe_record`
PROBES: list[dict] = []
_PROBED: dict[str, Any] = {}


def _claim(lock: Path, entry: Path) -> bool:
    """Take the lock of an experiment for this process (parallel ``companion run --jobs``).

    Returns True when this process should compute it, False when another process has meanwhile
    stored it (the caller then loads it). Waits while a live process holds the lock; a lock
    whose process has died is taken over.
    """
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            with os.fdopen(fd, "w") as fh:
                fh.write(str(os.getpid()))
            return True
        except FileExistsError:
            try:
                pid = int(lock.read_text() or 0)
            except (FileNotFoundError, ValueError):
                continue
            if not alive(pid):
                lock.unlink(missing_ok=True)
                continue
        if entry.exists() and load(entry)[0]:
            return False
        time.sleep(0.5)


def experiment(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Cache ``fn(config, device="cpu")`` by (name, config, device kind, library source).

    The wrapped function gains ``fresh=False`` to force a recompute. Around the computation it
    keeps a frame for :mod:`companion.store.slices` (probes, deadline, checkpoints), and it serves
    kept results (:mod:`companion.store.kept`): only them in the run mode's ``kept_only`` (a page
    of kept results, which never computes), or before computing in its ``reuse_kept`` (``--keep``).
    """
    name = f"{fn.__module__}.{fn.__qualname__}"
    short = name.rsplit(".", 1)[-1]

    @functools.wraps(fn)
    def wrapper(config: Any, device: str = "cpu", *, fresh: bool = False) -> Any:
        mode = runmode.current()
        if mode.planning and not slices.FRAMES:
            PLAN.append((wrapper, config, device))
            return None
        if mode.kept_only:
            found, fewer_seeds = kept.find_for_page(name, config)
            if found is None:
                raise kept.NotKept(name, config)
            value, meta = kept.read(found)
            KEPT_LOADED.append({**meta, "fewer_seeds": fewer_seeds})
            return value
        k = key(name, config, device)
        path = entry_path(name, k)
        probing = slices.SESSION.probe
        if probing and k in _PROBED:  # probed already, inside an earlier task: its time is counted there
            value, truncated = _PROBED[k]
            slices.SESSION.truncated |= truncated  # a cut-short result makes later errors partial
            PROBES.append({"name": short, "key": k, "depth": len(slices.FRAMES), "status": "probed before",
                           "estimate": 0.0, "config": config})
            return value
        if not fresh and not stale(path):
            ok, value = load(path)
            if ok:
                if probing:
                    PROBES.append({"name": short, "key": k, "depth": len(slices.FRAMES), "status": "cached",
                                   "estimate": 0.0, "config": config})
                kept.keep(name, config, device, value, None)
                return value
        if mode.reuse_kept and not fresh and (found := kept.find(name, config)) is not None:
            value, _ = kept.read(found)
            if probing:
                PROBES.append({"name": short, "key": k, "depth": len(slices.FRAMES), "status": "kept",
                               "estimate": 0.0, "config": config})
            return value
        lock = cache_dir() / "locks" / f"{short}-{k[:24]}.lock"
        locked = not probing and mode.locks
        if locked and not _claim(lock, path):
            return load(path)[1]

        frame = slices.Frame(short, k)
        slices.FRAMES.append(frame)
        t0 = time.perf_counter()
        try:
            value = fn(config, device)
        except BaseException as exc:
            if probing:
                _probe_record(frame, config, time.perf_counter() - t0, error=exc)
            raise
        finally:
            slices.FRAMES.pop()
            if locked:
                lock.unlink(missing_ok=True)
        seconds = time.perf_counter() - t0 + frame.prior_seconds  # earlier slices included
        if probing:
            _PROBED[k] = (value, slices.SESSION.truncated)
            _probe_record(frame, config, seconds)
            return value
        save(path, value)
        slices.clear_checkpoints(k)
        computed.append(name)
        kept.keep(name, config, device, value, seconds)
        return value

    wrapper.experiment_name = name  # type: ignore[attr-defined]
    EXPERIMENTS[name] = wrapper
    return wrapper


#: metadata of the kept results a page of kept results loaded (in order)
KEPT_LOADED: list[dict] = []


def _loop_row(r: slices.LoopRecord) -> dict:
    """A probed loop as a plain dict: counts, times, and what one plain and one evaluation iteration computed."""
    row = dict(n_steps=r.n_steps, n_evals=r.n_evals, t_step=r.t_step, t_eval=r.t_eval)
    for kind, c in (("step", r.step or r.eval), ("eval", r.eval or r.step)):
        if c is not None:
            row.update({f"{kind}_flops": c.flops, f"{kind}_ops": c.ops})
    return row


def _probe_record(frame, config: Any, seconds: float, error: BaseException | None = None) -> None:
    """Estimate a probed experiment: its own time outside loops and nested experiments (setup,
    measures), plus each loop's extrapolated time, plus its nested experiments' estimates."""
    in_loops = sum(r.seconds_in_probe for r in frame.loops)
    overhead = max(seconds - in_loops - frame.child_seconds, 0.0)
    estimate = overhead + sum(r.estimate for r in frame.loops) + frame.child_estimate
    rec = {"name": frame.name, "key": frame.key, "depth": len(slices.FRAMES), "config": config,
           "status": ("probed" if error is None else "partial" if slices.SESSION.truncated else "probe failed"),
           "estimate": estimate,
           "overhead": overhead, "loops": [_loop_row(r) for r in frame.loops],
           "error": None if error is None else f"{type(error).__name__}: {error}"}
    PROBES.append(rec)
    if slices.FRAMES:  # account for it in the parent experiment
        slices.FRAMES[-1].child_seconds += seconds
        slices.FRAMES[-1].child_estimate += estimate


# --------------------------------------------------------------------------- batches
def done(fn: Callable[..., Any], config: Any, device: str) -> bool:
    """Whether ``fn(config, device)`` would be served without computing (cache or kept result)."""
    path = entry_path(fn.experiment_name, key(fn.experiment_name, config, device))
    if path.exists() and not stale(path) and load(path)[0]:
        return True
    return runmode.current().reuse_kept and kept.find(fn.experiment_name, config) is not None


def put(fn: Callable[..., Any], config: Any, device: str, value: Any, seconds: float | None,
        note: str | None = None) -> None:
    """Store ``value`` as the result of ``fn(config, device)``, as if ``fn`` had computed it
    (a batch of runs computes several experiments' results at once)."""
    name = fn.experiment_name
    save(entry_path(name, key(name, config, device)), value)
    computed.append(name)
    kept.keep(name, config, device, value, seconds, note)


class batch_frame:
    """The :mod:`companion.store.slices` frame of a batch of runs of ``fn``: its loops checkpoint
    under a key made of the members' keys, and the checkpoints go when the batch finishes."""

    def __init__(self, fn: Callable[..., Any], configs: list, device: str):
        keys = sorted(key(fn.experiment_name, c, device) for c in configs)
        self.key = hashlib.sha256("".join(keys).encode()).hexdigest()
        self.name = fn.experiment_name.rsplit(".", 1)[-1] + "-batch"

    def __enter__(self):
        self.frame = slices.Frame(self.name, self.key)
        slices.FRAMES.append(self.frame)
        return self

    @property
    def seconds(self) -> float:
        """Wall seconds of the batch so far, earlier slices included."""
        return slices.elapsed(self.frame)

    def __exit__(self, exc_type, exc, tb):
        slices.FRAMES.pop()
        if exc_type is None:
            slices.clear_checkpoints(self.key)
        return False
