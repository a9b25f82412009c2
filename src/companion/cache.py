"""Content-addressed, atomic cache of finished experiment results.

An experiment is a function ``f(config, device) -> results`` decorated with
:func:`experiment`. Its results are stored under a key made of

* the experiment's qualified name,
* its full configuration (a frozen dataclass, serialised field by field),
* the device kind (CPU and GPU runs are not bit-identical), and
* a hash of the library's own source (every ``.py`` under ``src/companion``),

so a change anywhere in the library recomputes everything, and nothing stale is ever shown.
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


def library_hash() -> str:
    """SHA-256 over the library's source files (path and bytes), computed once per process."""
    global _source_hash
    if _source_hash is None:
        h = hashlib.sha256()
        pkg = Path(__file__).parent
        for f in sorted(pkg.rglob("*.py")):
            h.update(str(f.relative_to(pkg)).encode())
            h.update(f.read_bytes())
        _source_hash = h.hexdigest()
    return _source_hash


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
                       "device": device.split(":")[0], "library": library_hash()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def load(path: Path) -> tuple[bool, Any]:
    """(True, value) for a whole, uncorrupted entry; (False, None) otherwise."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False, None
    try:
        head, digest, payload = data.split(b"\n", 2)
        if head + b"\n" != MAGIC or hashlib.sha256(payload).hexdigest().encode() != digest:
            raise ValueError("checksum mismatch")
        return True, pickle.loads(payload)
    except Exception as exc:  # corrupt or truncated: report and recompute
        print(f"[cache] corrupt entry {path.name} ({exc}); recomputing", file=sys.stderr)
        return False, None


def store(path: Path, value: Any) -> None:
    """Write atomically: a temporary file in the same folder, fsync, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    data = MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
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


def experiment(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Cache ``fn(config, device="cpu")`` by (name, config, device kind, library source).

    The wrapped function gains ``fresh=False`` to force a recompute.
    """
    name = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(config: Any, device: str = "cpu", *, fresh: bool = False) -> Any:
        path = cache_dir() / f"{name.rsplit('.', 1)[-1]}-{key(name, config, device)[:24]}.pkl"
        if not fresh and not _stale(path):
            ok, value = load(path)
            if ok:
                return value
        value = fn(config, device)
        store(path, value)
        computed.append(name)
        return value

    wrapper.experiment_name = name  # type: ignore[attr-defined]
    return wrapper
