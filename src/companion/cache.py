"""Content-addressed, atomic cache of finished experiment results.

An experiment is a function ``f(config, device) -> results`` decorated with
:func:`experiment`. Its results are stored under a key made of

* the experiment's qualified name,
* its full configuration (a frozen dataclass, serialised field by field),
* the device kind (CPU and GPU runs are not bit-identical),
* the CPU kernels pinned (:mod:`companion.numerics`: another pinning gives other bits), and
* a hash of the library's own source (every ``.py`` under ``src/companion`` that can change a result:
  not the modules that only decide and show verdicts, :data:`VERDICT_MODULES`),

so a change anywhere in the library recomputes everything, and nothing stale is ever shown.
Entries live in one folder per library version, ``<cache>/lib-<hash>/``, so the entries an older
library wrote are easy to find and remove (``companion cache prune``); ``companion cache verify``
checks every entry's checksum.
Entries are written to a temporary file and renamed into place (atomic on POSIX), with a
SHA-256 of the payload in the header: an interrupted build leaves either a whole entry or
none, and a corrupt entry is detected, reported and recomputed. The build's ``--fresh`` sets
``COMPANION_FRESH_BEFORE`` to its start time: entries written before it are ignored, entries
written by the fresh build itself are reused (so a fresh build that is interrupted still resumes).

Results must be picklable plain data: dicts of numpy arrays, floats, ints, strings, lists.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from companion import numerics

MAGIC = b"companion-cache-v1\n"
_source_hash: str | None = None
#: names of the experiments computed (not loaded) in this process, in order; the tests and the
#: build's progress report read it.
computed: list[str] = []


def repo_root(start: Path | None = None) -> Path | None:
    """The folder holding ``_toc.yml`` at or above ``start`` (default: the working directory)."""
    here = (start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if (p / "_toc.yml").exists():
            return p
    return None


def cache_dir() -> Path:
    """``COMPANION_CACHE_DIR``, else ``<repo>/_build/cache``, else ``~/.cache/companion``."""
    if os.environ.get("COMPANION_CACHE_DIR"):
        return Path(os.environ["COMPANION_CACHE_DIR"])
    root = repo_root() or repo_root(Path(__file__).parent)
    return root / "_build" / "cache" if root else Path.home() / ".cache" / "companion"


#: the library's modules that decide and show verdicts from results and never compute a cached result
#: (checked by ``tests/test_cache.py``: no module with an experiment imports them, directly or not). An
#: edit of them — a claim's rule, the report, the build — leaves every cached experiment valid.
VERDICT_MODULES = ("build.py", "chapters_format.py", "claims.py", "claims_tables.py", "claims_text.py", "cli.py",
                   "execute.py", "expectations.py", "hypotheses.py", "publish.py", "report.py", "figures/")


def library_hash() -> str:
    """SHA-256 over the library's source files that can change a result (path and bytes; every ``.py``
    under ``src/companion`` but :data:`VERDICT_MODULES`), computed once per process."""
    global _source_hash
    if _source_hash is None:
        h = hashlib.sha256()
        pkg = Path(__file__).parent
        for f in sorted(pkg.rglob("*.py")):
            if str(f.relative_to(pkg)).startswith(VERDICT_MODULES):
                continue
            h.update(str(f.relative_to(pkg)).encode())
            h.update(f.read_bytes())
        _source_hash = h.hexdigest()
    return _source_hash


def entries_dir() -> Path:
    """The folder of this library version's entries (and its checkpoints): ``<cache>/lib-<hash12>``."""
    return cache_dir() / f"lib-{library_hash()[:12]}"


def entry_path(name: str, k: str) -> Path:
    """Where the entry of experiment ``name`` (qualified) with key ``k`` is stored."""
    return entries_dir() / f"{name.rsplit('.', 1)[-1]}-{k[:24]}.pkl"


def _canonical(obj: Any) -> Any:
    """A JSON-able, order-stable description of a configuration."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"__class__": type(obj).__qualname__,
                **{f.name: _canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, dict):
        return {str(k): _canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, float):
        return repr(obj)  # exact, including inf and nan
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    raise TypeError(f"cannot use {type(obj).__name__} in an experiment configuration")


def key(name: str, config: Any, device: str) -> str:
    blob = json.dumps({"name": name, "config": _canonical(config),
                       "device": device.split(":")[0], "library": library_hash(),
                       "numerics": numerics.in_force()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def check(data: bytes) -> bytes:
    """The payload of an entry's bytes; ``ValueError`` when they are not a whole, intact entry."""
    parts = data.split(b"\n", 2)
    if len(parts) != 3 or parts[0] + b"\n" != MAGIC:
        raise ValueError("not a cache entry (bad header)")
    if hashlib.sha256(parts[2]).hexdigest().encode() != parts[1]:
        raise ValueError("checksum mismatch (truncated or corrupt)")
    return parts[2]


def load(path: Path) -> tuple[bool, Any]:
    """(True, value) for a whole, uncorrupted entry; (False, None) otherwise."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False, None
    try:
        return True, pickle.loads(check(data))
    except Exception as exc:  # corrupt or truncated: report and recompute
        print(f"[cache] corrupt entry {path.name} ({exc}); recomputing", file=sys.stderr)
        return False, None


def store(path: Path, value: Any) -> None:
    """Write an entry atomically (:func:`write_atomic`), its payload checksummed."""
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    write_atomic(path, MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, fsync, then
    rename (atomic on POSIX), so a reader sees the old file or the new one, never a torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _stale(path: Path) -> bool:
    before = os.environ.get("COMPANION_FRESH_BEFORE")
    try:
        return before is not None and path.stat().st_mtime < float(before)
    except FileNotFoundError:
        return False


#: ``plan`` mode (``companion run`` listing a chapter's experiments): top-level calls are
#: recorded in :data:`PLAN` as ``(experiment, config, device)`` and not run.
PLANNING = False
PLAN: list[tuple[Callable[..., Any], Any, str]] = []
#: probe mode (``--dry-run``): one record per experiment probed, see :func:`_probe_record`
PROBES: list[dict] = []
_PROBED: dict[str, Any] = {}
#: reuse kept results (``companion run --keep``): a kept result counts as done
REUSE_KEPT = False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _claim(lock: Path, entry: Path) -> bool:
    """Take the lock of an experiment for this process (parallel ``companion run --jobs``).

    Returns True when this process should compute it, False when another process has meanwhile
    stored it (the caller then loads it). Waits while a live process holds the lock; a lock
    whose process has died is taken over.
    """
    import time

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
            if not _alive(pid):
                lock.unlink(missing_ok=True)
                continue
        if entry.exists() and load(entry)[0]:
            return False
        time.sleep(0.5)


#: every cached experiment function of the imported modules, by qualified name
EXPERIMENTS: dict[str, Callable[..., Any]] = {}


def experiment(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Cache ``fn(config, device="cpu")`` by (name, config, device kind, library source).

    The wrapped function gains ``fresh=False`` to force a recompute. Around the computation it
    keeps a frame for :mod:`companion.slices` (probes, deadline, checkpoints), and it serves
    kept results (:mod:`companion.kept`): only them when ``COMPANION_KEPT_ONLY`` is set (a page
    of kept results, which never computes), or before computing in a ``--keep`` run.
    """
    name = f"{fn.__module__}.{fn.__qualname__}"
    short = name.rsplit(".", 1)[-1]

    @functools.wraps(fn)
    def wrapper(config: Any, device: str = "cpu", *, fresh: bool = False) -> Any:
        from companion import kept, slices

        if PLANNING and not slices.FRAMES:
            PLAN.append((wrapper, config, device))
            return None
        if os.environ.get("COMPANION_KEPT_ONLY"):
            found, fewer_seeds = kept.find_for_page(name, config)
            if found is None:
                raise kept.NotKept(name, config)
            value, meta = kept.read(found)
            KEPT_LOADED.append({**meta, "fewer_seeds": fewer_seeds})
            return value
        k = key(name, config, device)
        path = entry_path(name, k)
        probing = slices.SESSION.probe
        if probing and k in _PROBED:
            value, truncated = _PROBED[k]
            slices.SESSION.truncated |= truncated  # a cut-short result makes later errors partial
            return value
        if not fresh and not _stale(path):
            ok, value = load(path)
            if ok:
                if probing:
                    PROBES.append({"name": short, "key": k, "depth": len(slices.FRAMES), "status": "cached",
                                   "estimate": 0.0, "config": config})
                kept.keep(name, config, device, value, None)
                return value
        if REUSE_KEPT and not fresh and (found := kept.find(name, config)) is not None:
            value, _ = kept.read(found)
            if probing:
                PROBES.append({"name": short, "key": k, "depth": len(slices.FRAMES), "status": "kept",
                               "estimate": 0.0, "config": config})
            return value
        lock = cache_dir() / "locks" / f"{short}-{k[:24]}.lock"
        locked = not probing and os.environ.get("COMPANION_LOCKS") == "1"
        if locked and not _claim(lock, path):
            return load(path)[1]
        import time

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
        store(path, value)
        slices.clear_checkpoints(k)
        computed.append(name)
        kept.keep(name, config, device, value, seconds)
        return value

    wrapper.experiment_name = name  # type: ignore[attr-defined]
    EXPERIMENTS[name] = wrapper
    return wrapper


#: metadata of the kept results a page of kept results loaded (in order)
KEPT_LOADED: list[dict] = []


def _probe_record(frame, config: Any, seconds: float, error: BaseException | None = None) -> None:
    """Estimate a probed experiment: its own time outside loops and nested experiments (setup,
    measures), plus each loop's extrapolated time, plus its nested experiments' estimates."""
    from companion import slices

    in_loops = sum(r.seconds_in_probe for r in frame.loops)
    overhead = max(seconds - in_loops - frame.child_seconds, 0.0)
    estimate = overhead + sum(r.estimate for r in frame.loops) + frame.child_estimate
    rec = {"name": frame.name, "key": frame.key, "depth": len(slices.FRAMES), "config": config,
           "status": ("probed" if error is None else "partial" if slices.SESSION.truncated else "probe failed"),
           "estimate": estimate,
           "overhead": overhead, "loops": [dict(n_steps=r.n_steps, n_evals=r.n_evals, t_step=r.t_step,
                                               t_eval=r.t_eval) for r in frame.loops],
           "error": None if error is None else f"{type(error).__name__}: {error}"}
    PROBES.append(rec)
    if slices.FRAMES:  # account for it in the parent experiment
        slices.FRAMES[-1].child_seconds += seconds
        slices.FRAMES[-1].child_estimate += estimate


# --------------------------------------------------------------------------- batches
def done(fn: Callable[..., Any], config: Any, device: str) -> bool:
    """Whether ``fn(config, device)`` would be served without computing (cache or kept result)."""
    from companion import kept

    path = entry_path(fn.experiment_name, key(fn.experiment_name, config, device))
    if path.exists() and not _stale(path) and load(path)[0]:
        return True
    return REUSE_KEPT and kept.find(fn.experiment_name, config) is not None


def put(fn: Callable[..., Any], config: Any, device: str, value: Any, seconds: float | None,
        note: str | None = None) -> None:
    """Store ``value`` as the result of ``fn(config, device)``, as if ``fn`` had computed it
    (a batch of runs computes several experiments' results at once)."""
    from companion import kept

    name = fn.experiment_name
    store(entry_path(name, key(name, config, device)), value)
    computed.append(name)
    kept.keep(name, config, device, value, seconds, note)


class batch_frame:
    """The :mod:`companion.slices` frame of a batch of runs of ``fn``: its loops checkpoint
    under a key made of the members' keys, and the checkpoints go when the batch finishes."""

    def __init__(self, fn: Callable[..., Any], configs: list, device: str):
        import hashlib as _h

        keys = sorted(key(fn.experiment_name, c, device) for c in configs)
        self.key = _h.sha256("".join(keys).encode()).hexdigest()
        self.name = fn.experiment_name.rsplit(".", 1)[-1] + "-batch"

    def __enter__(self):
        from companion import slices

        self.frame = slices.Frame(self.name, self.key)
        slices.FRAMES.append(self.frame)
        return self

    @property
    def seconds(self) -> float:
        """Wall seconds of the batch so far, earlier slices included."""
        from companion import slices

        return slices.elapsed(self.frame)

    def __exit__(self, exc_type, exc, tb):
        from companion import slices

        slices.FRAMES.pop()
        if exc_type is None:
            slices.clear_checkpoints(self.key)
        return False
