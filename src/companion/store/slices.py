"""Running experiments in slices: timed probes, time limits and checkpoints.

GPU time comes in slices (a shell command of ~10 minutes, a lent machine for well under an hour,
a preemptible cloud GPU), so every training loop of the library iterates with :func:`steps`,
a drop-in for ``range`` that knows three things the loop itself does not:

* **Probes** (``companion run --dry-run``): each loop runs only long enough to time a plain
  step and an evaluation step, then ends early; the estimate of the whole loop is
  ``n_plain · t_step + n_eval · t_eval`` (the evaluation steps of a log-spaced schedule are
  counted exactly). Nothing computed in a probe is cached. A probe on the CPU also counts the FLOPs and
  operator calls of one plain and one evaluation iteration (:mod:`companion.store.opcount`), the inputs of the
  GPU cost model (:mod:`companion.pipeline.gpu_cost`); those two iterations are not timed.
* **A deadline** (``companion run --time-limit``): at the top of each iteration the loop checks
  the clock; when the deadline has passed it saves a checkpoint of its state and raises
  :class:`TimeUp`, which ends the run cleanly with every finished experiment cached.
* **Checkpoints**: a loop that gives ``save``/``load`` callables (model, optimizer, history,
  random generators) is resumed from its checkpoint by the next run, bit for bit: the state is
  saved at the top of an iteration, before its body runs, and the resumed loop runs that
  iteration again. Loops of the same experiment that had already ended are saved with it
  (their final state, copied when the loop ended: the caller may reshape its history afterwards),
  so a resumed experiment skips them.

Checkpoints live in ``<cache>/checkpoints`` and are keyed by the running experiment's cache
key and the loop's ordinal within it (the loops of one experiment always start in the same
order); they are deleted when the experiment's result is stored. A loop run outside any
experiment (a test, a benchmark) is never checkpointed.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Container, Iterator

from companion.store import opcount
from companion.store.entries import entries_dir, write_atomic


class TimeUp(Exception):
    """The run's time limit came before this experiment finished (its state is checkpointed)."""


# --------------------------------------------------------------------------- session state
@dataclass
class Session:
    """Process-wide settings of a run; :func:`configure` sets them."""

    deadline: float | None = None  # time.time() at which loops stop (None: no limit)
    probe: bool = False  # dry run: loops stop after their probe
    probe_seconds: float = 0.3  # a loop is timed at least this long...
    probe_min_steps: int = 3  # ...and over at least this many plain steps...
    probe_max_seconds: float = 20.0  # ...but never longer than this (a huge step ends it sooner)
    probe_max_steps: int = 400
    probe_ff_seconds: float = 1.0  # after timing, run the remaining evaluation steps if this cheap
    truncated: bool = False  # a probed loop ended without its evaluation steps (histories are short)
    count: bool = False  # probes also count one plain and one evaluation iteration's FLOPs and operator calls
    count_only: bool = False  # ...and end a loop as soon as both are counted (its time is not estimated)
    checkpoints: bool = False  # save ended loops too (set when a deadline is set)


SESSION = Session()

#: a count-only probe's iterations at most once something was counted (a log-spaced schedule evaluates its first
#: ≈ 20 steps; a loop that evaluates every step has no plain iteration)
COUNT_ONLY_MAX_ITERATIONS = 40


def configure(deadline: float | None = None, probe: bool = False, **kw) -> Session:
    """Set the process's deadline and probe mode (``companion run`` calls this)."""
    global SESSION
    SESSION = Session(deadline=deadline, probe=probe, checkpoints=deadline is not None, **kw)
    return SESSION


def time_left() -> float:
    return math.inf if SESSION.deadline is None else SESSION.deadline - time.time()


# --------------------------------------------------------------------------- experiment frames
@dataclass
class LoopRecord:
    """A loop's probe timing: seconds per plain step and per evaluation step, and the counts."""

    n_steps: int
    n_evals: int
    t_step: float
    t_eval: float
    seconds_in_probe: float
    step: opcount.Count | None = None  # what one plain iteration computes (``SESSION.count``)...
    eval: opcount.Count | None = None  # ...and one evaluation iteration (its evaluation and its step)

    @property
    def estimate(self) -> float:
        return (self.n_steps - self.n_evals) * self.t_step + self.n_evals * self.t_eval

    def total(self, what: str) -> int | None:
        """The loop's whole ``"flops"`` or ``"ops"``, from the counted iterations (None when none was)."""
        step, ev = self.step or self.eval, self.eval or self.step
        if step is None:
            return None
        return (self.n_steps - self.n_evals) * getattr(step, what) + self.n_evals * getattr(ev, what)


@dataclass
class Frame:
    """One running experiment (frames nest when an experiment calls another)."""

    name: str
    key: str
    n_loops: int = 0
    ended: list = field(default_factory=list)  # (ordinal, final state on the CPU) of loops that finished
    loops: list = field(default_factory=list)  # LoopRecord of each probed loop
    started: float = field(default_factory=time.perf_counter)
    prior_seconds: float = 0.0  # wall time earlier slices spent on this experiment (from its checkpoints)
    child_seconds: float = 0.0  # wall time spent in nested experiments (probe accounting)
    child_estimate: float = 0.0


FRAMES: list[Frame] = []


def elapsed(frame: Frame) -> float:
    """Wall seconds spent on ``frame``'s experiment so far, earlier slices included."""
    return frame.prior_seconds + time.perf_counter() - frame.started


def checkpoint_dir() -> Path:
    return entries_dir() / "checkpoints"


def checkpoint_path(key: str, name: str, ordinal: int) -> Path:
    return checkpoint_dir() / f"{name}-{key[:24]}-loop{ordinal}.ckpt"


def clear_checkpoints(key: str) -> None:
    """Delete every checkpoint of the experiment with cache key ``key`` (it has finished)."""
    d = checkpoint_dir()
    if d.exists():
        for f in d.glob(f"*-{key[:24]}-loop*.ckpt"):
            f.unlink(missing_ok=True)


def pending_checkpoints(key: str) -> list[Path]:
    d = checkpoint_dir()
    return sorted(d.glob(f"*-{key[:24]}-loop*.ckpt")) if d.exists() else []


def _save(path: Path, payload: dict) -> None:
    import io

    import torch

    buf = io.BytesIO()
    torch.save(payload, buf)
    write_atomic(path, buf.getvalue())


def _load(path: Path) -> dict | None:
    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except FileNotFoundError:
        return None
    except Exception as exc:  # a torn or corrupt checkpoint: start the loop afresh
        import sys

        print(f"[slices] unreadable checkpoint {path.name} ({exc}); starting that loop afresh", file=sys.stderr)
        return None


def _sync() -> None:
    """Wait for queued GPU work, so a probe times what the device did, not what was queued."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def to_cpu(obj: Any) -> Any:
    """A copy of ``obj`` (nested dicts/lists/tuples of tensors) with every tensor on the CPU."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu", copy=True)
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(v) for v in obj)
    return obj


def to_device(obj: Any, device) -> Any:
    """``obj`` (nested dicts/lists/tuples of tensors, as checkpointed) with every tensor on ``device``."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {k: to_device(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device) for v in obj)
    return obj


def inplace_state(tensors: dict, records: dict) -> tuple[Callable[[], dict], Callable[[dict], None]]:
    """``save``/``load`` for :func:`steps` of a loop whose state is ``tensors`` (updated in place,
    e.g. ``W -= lr * g``) and ``records`` (a dict of lists it appends to)."""
    def save() -> dict:
        return {"tensors": dict(tensors), "records": {k: list(v) for k, v in records.items()}}

    def load(s: dict) -> None:
        import torch

        with torch.no_grad():
            for k, t in tensors.items():
                t.copy_(s["tensors"][k])
        for k, v in s["records"].items():
            records[k][:] = v
    return save, load


# --------------------------------------------------------------------------- the loop
def steps(stop: int, start: int = 0, *, evals: Container[int] | Callable[[int], bool] | None = None,
          save: Callable[[], dict] | None = None, load: Callable[[dict], None] | None = None) -> Iterator[int]:
    """``range(start, stop)`` for a training loop, with probes, a deadline and checkpoints.

    ``evals``: the steps at which the loop evaluates (a set, a ``range``, or a predicate), so a
    probe can tell evaluation steps from plain ones. ``save()`` returns the loop's whole state
    at the top of an iteration (tensors are copied to the CPU); ``load(state)`` puts it back.
    Without them the loop still honours probes and the deadline, but restarts from ``start``.
    """
    is_eval = (evals if callable(evals) else (lambda t: t in evals)) if evals is not None else (lambda t: False)
    frame = FRAMES[-1] if FRAMES else None
    ordinal = None
    if frame is not None:
        ordinal = frame.n_loops
        frame.n_loops += 1
    path = checkpoint_path(frame.key, frame.name, ordinal) if frame is not None and save is not None else None

    first = start
    if path is not None:
        ck = _load(path)
        if ck is not None:
            load(ck["state"])  # type: ignore[misc]
            frame.prior_seconds = max(frame.prior_seconds, ck.get("elapsed", 0.0))  # type: ignore[union-attr]
            if ck["done"]:
                if frame is not None:
                    frame.ended.append((ordinal, ck["state"]))
                return
            first = ck["t"]
    if SESSION.probe:
        yield from _probe(first, stop, is_eval, frame)
        return

    def save_now(t: int, done: bool) -> None:
        if path is not None:
            _save(path, {"t": t, "done": done, "state": to_cpu(save()), "elapsed": elapsed(frame)})  # type: ignore

    deadline = SESSION.deadline
    timed_out = False
    try:
        for t in range(first, stop):
            if deadline is not None and time.time() >= deadline:
                timed_out = True
                save_now(t, False)
                _save_ended_loops()
                raise TimeUp(f"time limit reached at step {t} of {stop - 1}"
                             + (" (checkpointed)" if path is not None else " (this loop keeps no checkpoint)"))
            yield t
    finally:
        # the loop ran to its end or its consumer broke out of it: remember its final state now (its caller
        # may pop or reshape the history once the loop returns), so that a deadline in a later loop of the
        # same experiment saves this one's final state too
        if not timed_out and frame is not None and save is not None and SESSION.checkpoints:
            frame.ended.append((ordinal, to_cpu(save())))


def _save_ended_loops() -> None:
    for fr in FRAMES:
        for ordinal, state in fr.ended:
            # always written: an earlier slice may have left this loop's mid-run checkpoint
            _save(checkpoint_path(fr.key, fr.name, ordinal),
                  {"t": None, "done": True, "state": state, "elapsed": elapsed(fr)})


def _probe(first: int, stop: int, is_eval, frame: Frame | None) -> Iterator[int]:
    """Run iterations until plain and evaluation steps are timed, then end the loop early."""
    s = SESSION
    plain, evals = [], []
    t0 = time.perf_counter()
    n_eval_total = sum(1 for t in range(first, stop) if is_eval(t)) if stop - first < 5_000_000 else 0
    counts: dict[bool, opcount.Count] = {}  # is_eval → what one such iteration computes
    last = time.perf_counter()
    try:
        for i, t in enumerate(range(first, stop)):
            counting = s.count and is_eval(t) not in counts
            with opcount.Counter() if counting else contextlib.nullcontext() as counter:
                yield t
            if counting:
                counts[is_eval(t)] = counter.count
            _sync()
            now = time.perf_counter()
            if i > 0 and not counting:  # the first iteration carries one-off costs (allocations, kernel loading)
                (evals if is_eval(t) else plain).append(now - last)
            last = now
            spent = now - t0
            enough = (spent >= s.probe_seconds and len(plain) >= s.probe_min_steps
                      and (evals or n_eval_total == 0 or len(evals) + len(plain) >= 50))
            if s.count_only:  # both kinds counted and timed once (for the fast-forward), or no plain iteration
                enough = ((len(counts) == 2 and plain and (evals or n_eval_total == 0))
                          or (bool(counts) and i + 1 >= COUNT_ONLY_MAX_ITERATIONS))
            if enough or spent >= s.probe_max_seconds or i + 1 >= s.probe_max_steps:
                break
        else:
            return  # the whole loop ran
        # fast-forward: the remaining evaluation steps (and the last step) only, so that the
        # history has every evaluation point and code after the loop sees the shapes it expects
        t_eval = statistics.median(evals) if evals else (statistics.median(plain) if plain else math.inf)
        rest = [u for u in range(t + 1, stop) if is_eval(u) or u == stop - 1]
        if rest and len(rest) * t_eval > s.probe_ff_seconds:  # nothing timed: not known to be cheap
            s.truncated = True
            return
        yield from rest
    finally:  # also when the loop's own body breaks out first
        t_step = statistics.median(plain) if plain else (statistics.median(evals) if evals else last - t0)
        t_eval = max(statistics.median(evals), t_step) if evals else t_step
        rec = LoopRecord(stop - first, n_eval_total, t_step, t_eval, time.perf_counter() - t0,
                         counts.get(False), counts.get(True))
        if frame is not None:
            frame.loops.append(rec)
