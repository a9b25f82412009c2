"""``companion run``: a chapter's experiments without Jupyter, planned, probed and run in slices.

* :func:`plan` lists a chapter's top-level experiments (what its ``run_all`` would compute) as
  :class:`Task` objects, without running any of them.
* :func:`dry_run` probes each task (:mod:`companion.store.slices`: every training loop is timed for a
  few steps and extrapolated) and returns estimates on the chosen device; nothing is cached. On the CPU it
  also models each task's time on a GPU from its counted FLOPs and operator calls (:mod:`.gpu_cost`).
* :func:`execute` runs the tasks, in this process or in ``jobs`` worker processes that share
  the device (small models leave a GPU mostly idle, so several runs fit on it at once), up to a
  deadline: a task still running at the deadline checkpoints and stops; the next call resumes it.
  With ``keep`` every finished experiment is also written to the kept results
  (:mod:`companion.store.kept`) and kept results count as done.
"""

from __future__ import annotations

import json
import math
import os
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion import profiles, runmode
from companion.experiments import chapter_module
from companion.pipeline import gpu_cost
from companion.profiles import ParameterError
from companion.store import cache, entries, slices
from companion.store.entries import cache_dir
from companion.store.kept import results_root
from companion.store.tasks import Task


def plan(chapter: str, profile: str, device: str, seed: int = 0) -> list[Task]:
    """The top-level experiments of ``chapter`` at ``profile``, in ``run_all`` order, without duplicates."""
    module = chapter_module(chapter)
    cache.PLAN[:] = []
    with runmode.using(planning=True):
        module.run_all(profile, device, seed)
    tasks, seen = [], set()
    for fn, config, dev in cache.PLAN:
        k = entries.key(fn.experiment_name, config, dev)
        if k not in seen:
            seen.add(k)
            tasks.append(Task(chapter, fn.experiment_name, config, dev, k))
    cache.PLAN[:] = []
    return tasks


def select(tasks: list[Task], only=(), skip=()) -> list[Task]:
    """Tasks whose ``"name config"`` matches any ``only`` regex (all if none) and no ``skip`` regex."""
    import re

    try:
        only_re, skip_re = [re.compile(r) for r in only], [re.compile(r) for r in skip]
    except re.error as exc:
        raise ParameterError(f"bad --only/--skip pattern: {exc}") from None

    def text(t: Task) -> str:
        return f"{t.name} {t.config!r}"

    return [t for t in tasks if (not only_re or any(r.search(text(t)) for r in only_re))
            and not any(r.search(text(t)) for r in skip_re)]


def short_config(config: Any, width: int = 110) -> str:
    text = repr(config)
    return text if len(text) <= width else text[: width - 1] + "…"


# --------------------------------------------------------------------------- estimates
def estimates_path() -> Path:
    return cache_dir() / "estimates.json"


def load_estimates() -> dict:
    try:
        return json.loads(estimates_path().read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def save_estimates(new: dict) -> None:
    est = load_estimates()
    est.update(new)
    path = estimates_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(est, indent=1))
    os.replace(tmp, path)


def dry_run(tasks: list[Task], verbose: bool = True, check: bool = False, deadline: float | None = None,
            count_only: bool = False) -> list[dict]:
    """Probe every task in this process; one row per task with its estimate in seconds, each estimate saved as
    soon as it is measured (a dry run cut short keeps what it probed). Past ``deadline`` (a ``time.time()``) no
    further task is probed.

    With ``check`` each loop runs two steps only and never fast-forwards: the point is that every
    config builds its data and model and steps at its shapes, not the estimate. With ``count_only`` (on the CPU)
    each loop ends once one plain and one evaluation iteration are counted: the GPU model of every task at a
    fraction of a timed dry run's cost, and no CPU estimate.
    """
    count = bool(tasks) and tasks[0].device == "cpu"  # a GPU's probe is timed, not counted
    if count_only and not count:
        raise ParameterError("--count models a GPU from counts taken on the CPU: give --device cpu")
    if check:
        slices.configure(probe=True, probe_max_steps=2, probe_seconds=0.0, probe_min_steps=0, probe_ff_seconds=0.0)
    else:
        slices.configure(probe=True, count=count, count_only=count_only)
    cal = gpu_cost.calibration() if count and not check else None
    rows = []
    try:
        for t in tasks:
            if deadline is not None and time.time() > deadline:
                print(f"[dry run] time limit: {len(tasks) - len(rows)} experiment(s) not probed", flush=True)
                break
            cache.PROBES[:] = []
            slices.SESSION.truncated = False
            t0 = time.perf_counter()
            error = None
            try:
                t.function()(t.config, t.device)
            except Exception as exc:  # a probe that breaks still reports what it timed
                error = f"{type(exc).__name__}: {exc}"
            top = [p for p in cache.PROBES if p["key"] == t.key]
            rec = top[-1] if top else {"status": "probe failed", "estimate": math.nan}
            nested = [p for p in cache.PROBES if p["depth"] > 0]
            row = {"chapter": t.chapter, "experiment": t.name, "key": t.key, "config": short_config(t.config),
                   "status": rec["status"], "estimate_s": rec["estimate"], "probe_s": time.perf_counter() - t0,
                   "loops": rec.get("loops", []), "nested": [(p["name"], p["status"], p["estimate"]) for p in nested],
                   "nested_loops": [p.get("loops", []) for p in nested], "overhead": rec.get("overhead", 0.0),
                   "error": error or rec.get("error")}
            row["gpu"] = gpu_cost.experiment_seconds(row, cal) if cal is not None else None
            if count_only:
                row["estimate_s"] = math.nan  # its loops were not timed
            rows.append(row)
            if verbose:
                print(format_row(row), flush=True)
            if not (check or count_only) and row["status"] in ("probed", "partial"):
                save_estimates({row["key"]: row["estimate_s"]})
    finally:
        slices.configure()
    return rows


def format_seconds(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    if s < 90:
        return f"{s:.1f} s"
    if s < 5400:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


def format_row(r: dict) -> str:
    steps = sum(lp["n_steps"] for lp in r["loops"])
    extra = f" — {r['error']}" if r.get("error") else ""
    g = r.get("gpu")
    gpu = (f"  GPU {format_seconds(g['eager'])} / {format_seconds(g['captured'])} / {format_seconds(g['limit'])}"
           f" ({gpu_cost.format_flops(g['flops'])}FLOP)" if g else "")
    return (f"  {r['experiment']:<22} {r['status']:<13} {format_seconds(r['estimate_s']):>9}  "
            f"{steps:>9,} steps  [{r['probe_s']:.1f} s]{gpu}  {r['config']}{extra}")


def summary(rows: list[dict], jobs: int = 1) -> str:
    total = sum(r["estimate_s"] for r in rows if math.isfinite(r["estimate_s"]))
    longest = max([r["estimate_s"] for r in rows if math.isfinite(r["estimate_s"])] or [0.0])
    failed = sum(r["status"] == "probe failed" for r in rows)
    partial = sum(r["status"] == "partial" for r in rows)
    lines = [f"total: {len(rows)} experiment(s)" + (f", {format_seconds(total)} estimated one after another"
                                                     if any(math.isfinite(r["estimate_s"]) for r in rows) else "")]
    if jobs > 1:
        lines.append(f"with {jobs} workers at best {format_seconds(max(total / jobs, longest))} "
                     f"(the longest alone is {format_seconds(longest)}; workers share the device)")
    modelled = [r["gpu"] for r in rows if r.get("gpu")]
    if modelled:
        cal = gpu_cost.calibration()
        tot = {k: sum(g[k] for g in modelled) for k in ("eager", "captured", "limit", "flops")}
        cut = sum(bool(r.get("gpu")) and r["status"] == "partial" for r in rows)
        lines.append(f"on a GPU, modelled from the counts ({len(modelled)} of {len(rows)} experiment(s)"
                     + (f", {cut} of them partial: at least" if cut else "") + "; "
                     f"{cal.source if cal else 'no calibration'}): {format_seconds(tot['eager'])} eager, "
                     f"{format_seconds(tot['captured'])} with every step captured, {format_seconds(tot['limit'])} at "
                     f"the hardware limit; {gpu_cost.format_flops(tot['flops'])}FLOP in matrix products")
    if partial:
        lines.append(f"{partial} partial: code after a loop the probe cut short broke; its loops were timed")
    if failed:
        lines.append(f"{failed} probe(s) failed before any loop was cut short: a real error at these settings")
    return "\n".join(lines)


# --------------------------------------------------------------------------- execution
def _init_worker(mode: runmode.RunMode, profile: str, device: str, seed: int) -> None:
    """A worker process runs under its parent's mode, with locks."""
    runmode.set_mode(mode)
    profiles.setup(profile, device, seed)


#: how much longer than its one-process estimate a task takes among ``jobs`` workers on one GPU, per worker:
#: in the 2026-11-28 window 8 processes did 1.9× the work of one, and a finished task took 0.9–6.6× (median
#: 2.3×) its estimate (benchmarks/gpu_engine.md). A budget heuristic for what to start, not a measurement.
SHARED_GPU_SLOWDOWN_PER_JOB = 0.25


def run_task(task: Task, deadline: float | None, keep: str | None, need: float = 0.0) -> dict:
    """Compute one task (in this process); returns its status row. ``need``: the seconds it is expected to
    take; a task that would not finish before ``deadline`` is not started (its worker takes the next)."""
    slices.configure(deadline=deadline)
    row = {"chapter": task.chapter, "experiment": task.name, "key": task.key, "config": short_config(task.config)}
    if deadline is not None and time.time() + need >= deadline:
        error = (None if not need else "never probed on this device" if math.isinf(need)
                 else f"would not finish: about {format_seconds(need)} needed")
        return {**row, "status": "not started", "seconds": 0.0, "error": error}
    n0 = len(cache.computed)
    t0 = time.perf_counter()
    keeping = dict(keep_chapter=task.chapter, keep_profile=keep, reuse_kept=True) if keep else {}
    try:
        with runmode.using(**keeping):
            task.function()(task.config, task.device)
        new = cache.computed[n0:]
        status = "computed" if (task.experiment in new or (task.members and new)) else "done before"
        if task.members:
            row["experiment"] = f"{task.name}×{len(task.config)}"
        error = None
    except slices.TimeUp as exc:
        status, error = "stopped", str(exc)
    except Exception as exc:
        status, error = "failed", "".join(traceback.format_exception_only(type(exc), exc)).strip()
        traceback.print_exc()
    return {**row, "status": status, "seconds": time.perf_counter() - t0, "error": error}


def execute(tasks: list[Task], profile: str, device: str, seed: int, jobs: int = 1,
            deadline: float | None = None, keep: str | None = None, verbose: bool = True,
            batch: bool = True, ordered: bool = False) -> list[dict]:
    """Run ``tasks`` (longest first where an estimate is known, else in order; ``ordered``: in the order given,
    a batch where its first member stands) with ``jobs`` worker processes, stopping at ``deadline``; returns
    one status row per task."""
    est = load_estimates()
    position = {t.key: i for i, t in enumerate(tasks)}
    if batch:  # chapters that can train several experiments as one program group them
        grouped = []
        for ch in dict.fromkeys(t.chapter for t in tasks):
            mine = [t for t in tasks if t.chapter == ch]
            module = chapter_module(ch)
            grouped += module.batch_tasks(mine) if hasattr(module, "batch_tasks") else mine
        for t in grouped:
            if t.members and t.key not in est and all(k in est for k in t.members):
                member = [est[k] for k in t.members]
                est[t.key] = max(member, default=0.0) + 0.1 * sum(member)
        tasks = grouped
    # the chapters in the order asked for, longest first within each
    chapters = list(dict.fromkeys(t.chapter for t in tasks))
    if ordered:
        order = sorted(range(len(tasks)), key=lambda i: min(position.get(k, len(position))
                                                            for k in (tasks[i].key, *tasks[i].members)))
    else:
        order = sorted(range(len(tasks)), key=lambda i: (chapters.index(tasks[i].chapter),
                                                         -est.get(tasks[i].key, 0.0)))
    # in a campaign on a GPU a task that would not finish before the deadline, or was never probed there (the
    # window's dry run ran out first: a ResNet-18 of 380 000 steps, say), leaves its worker to the next
    if ordered and device != "cpu" and deadline is not None:
        slowdown = max(1.0, jobs * SHARED_GPU_SLOWDOWN_PER_JOB)
        need = [slowdown * est.get(t.key, math.inf) for t in tasks]
    else:
        need = [0.0] * len(tasks)
    rows: list[dict] = []

    def report(row: dict) -> None:
        rows.append(row)
        if verbose:
            err = f" — {row['error']}" if row.get("error") else ""
            print(f"  [{len(rows)}/{len(tasks)}] {row['chapter']}/{row['experiment']:<20} {row['status']:<11} "
                  f"{format_seconds(row['seconds']):>9}  {row['config'][:80]}{err}", flush=True)

    if jobs <= 1:
        for i in order:
            report(run_task(tasks[i], deadline, keep, need[i]))
        return rows
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    mode = replace(runmode.current(), locks=True)  # workers share nested experiments through locks
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_init_worker, initargs=(mode, profile, device, seed)) as pool:
        futures = [pool.submit(run_task, tasks[i], deadline, keep, need[i]) for i in order]
        for f in as_completed(futures):
            report(f.result())
    return rows


def precompute(chapter: str, ctx, workers: int | None = None):
    """Compute the experiments of ``chapter`` that are not cached yet in ``workers`` processes
    (default :func:`companion.profiles.workers`) before the chapter reads them from the cache;
    returns ``ctx`` saying what was done (``RunContext.describe``).

    Every worker computes one experiment at a time with the chapter's thread count, as the
    chapter's own process would, so the results are the same numbers; only the wall time
    changes. Experiments nested in several (a weak model shared by targets) are computed once,
    under a lock. One that a worker cannot compute is left to the chapter, which raises where
    it reads it. Nothing is done with one worker, on a GPU (one device, one process) or at
    ``smoke`` (starting the workers costs more than the profile's runs).
    """
    workers = profiles.workers() if workers is None else workers
    if workers <= 1 or ctx.device != "cpu" or ctx.profile == "smoke" or runmode.current().kept_only:
        return ctx
    tasks = plan(chapter, ctx.profile, ctx.device, ctx.seed)
    todo = [t for t in tasks if not cache.done(t.function(), t.config, t.device)]
    if not todo:
        return ctx
    t0 = time.perf_counter()
    rows = execute(todo, ctx.profile, ctx.device, ctx.seed, jobs=min(workers, len(todo)), verbose=False,
                   batch=False)
    done, n = sum(r["status"] in ("computed", "done before") for r in rows), min(workers, len(todo))
    return replace(ctx, precomputed=(f"{done} of its {len(tasks)} experiments computed first by {n} worker "
                                     f"processes of one thread each, in {time.perf_counter() - t0:.0f} s"))


def log_run(record: dict) -> None:
    """Append one line to ``results/runs.jsonl`` (what ran, where, how long)."""
    path = results_root() / "runs.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
