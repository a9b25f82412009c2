"""Cache entries: where they live, their keys, and how they are written and read.

The bottom of :mod:`companion.store`: every other store module (the ``@experiment`` cache, kept
results, checkpoint slices, upkeep) builds on these primitives, and this module imports none of
them. An entry's key is made of

* the experiment's qualified name,
* its full configuration (a frozen dataclass, serialised field by field; a field marked
  :data:`KEY_OMITS_DEFAULT` only where it departs from its default, so that adding one keeps every
  key computed before it),
* the device kind (CPU and GPU runs are not bit-identical),
* the CPU kernels pinned (:mod:`companion.numerics`: another pinning gives other bits), and
* a hash of the library's own source (every ``.py`` under ``src/companion`` that can change a result:
  not the modules that only decide and show verdicts, :data:`VERDICT_MODULES`),

so a change anywhere in the library recomputes everything, and nothing stale is ever shown.
Entries live in one folder per library version, ``<cache>/lib-<hash>/``. They are written to a
temporary file and renamed into place (atomic on POSIX), with a SHA-256 of the payload in the
header: an interrupted build leaves either a whole entry or none, and a corrupt entry is detected,
reported and recomputed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from companion import numerics, runmode

MAGIC = b"companion-cache-v1\n"
_source_hash: str | None = None


def repo_root(start: Path | None = None) -> Path | None:
    """The folder holding ``_toc.yml`` at or above ``start`` (default: the working directory)."""
    here = (start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if (p / "_toc.yml").exists():
            return p
    return None


def cache_dir() -> Path:
    """The run mode's (:mod:`companion.runmode`), else ``<repo>/_build/cache``, else ``~/.cache/companion``."""
    if (given := runmode.current().cache_dir) is not None:
        return given
    root = repo_root() or repo_root(Path(__file__).parent)
    return root / "_build" / "cache" if root else Path.home() / ".cache" / "companion"


#: the library's modules that decide and show verdicts from results and never compute a cached result
#: (checked by ``tests/test_cache.py``: no module with an experiment imports them, directly or not). An
#: edit of them — a claim's rule, the report, the build — leaves every cached experiment valid.
VERDICT_MODULES = ("claims/", "cli.py", "figures/", "pipeline/build.py", "pipeline/campaign.py",
                   "pipeline/chapters_format.py", "pipeline/execute.py", "pipeline/publish.py", "pipeline/report.py")


def library_hash() -> str:
    """SHA-256 over the library's source files that can change a result (path and bytes; every ``.py``
    under ``src/companion`` but :data:`VERDICT_MODULES`), computed once per process."""
    global _source_hash
    if _source_hash is None:
        h = hashlib.sha256()
        pkg = Path(__file__).parents[1]
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


#: ``metadata`` of a config field that :func:`canonical` leaves out while it holds its default
#: (``dataclasses.field(default=..., metadata=KEY_OMITS_DEFAULT)``). A field added to a config after results were
#: computed and kept under it (say, the training precision) is declared so: at its default the configuration's
#: description, and so its cache key (:func:`key`) and kept-result key (``kept.kept_key``), are what they were
#: before the field existed; any other value enters them, so a result at that value never stands in for one at
#: the default.
KEY_OMITS_DEFAULT = {"key": "omit-default"}


def key_omits(f: dataclasses.Field, described: Any) -> bool:
    """Whether :func:`canonical` leaves field ``f`` out of its dataclass's description, its value described as
    ``described`` (:func:`canonical` of the value): a field marked :data:`KEY_OMITS_DEFAULT`, at its default."""
    if f.metadata.get("key") != KEY_OMITS_DEFAULT["key"]:
        return False
    if f.default is not dataclasses.MISSING:
        return described == canonical(f.default)
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return described == canonical(f.default_factory())  # type: ignore[misc]
    return False


def canonical(obj: Any) -> Any:
    """A JSON-able, order-stable description of a configuration: a dataclass as its class name and fields, but
    the fields :func:`key_omits` leaves out (marked :data:`KEY_OMITS_DEFAULT`, at their default)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = ((f, canonical(getattr(obj, f.name))) for f in dataclasses.fields(obj))
        return {"__class__": type(obj).__qualname__, **{f.name: v for f, v in fields if not key_omits(f, v)}}
    if isinstance(obj, dict):
        return {str(k): canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    if isinstance(obj, float):
        return repr(obj)  # exact, including inf and nan
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    raise TypeError(f"cannot use {type(obj).__name__} in an experiment configuration")


def key(name: str, config: Any, device: str) -> str:
    blob = json.dumps({"name": name, "config": canonical(config),
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


def save(path: Path, value: Any) -> None:
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


def stale(path: Path) -> bool:
    """Whether an entry was written before the run mode's ``fresh_before`` (a ``--fresh`` build's
    start): such entries are ignored, the ones the fresh build itself wrote are reused."""
    before = runmode.current().fresh_before
    try:
        return before is not None and path.stat().st_mtime < float(before)
    except FileNotFoundError:
        return False


#: every cached experiment function of the imported modules, by qualified name
EXPERIMENTS: dict[str, Callable[..., Any]] = {}
