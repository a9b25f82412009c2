"""Kept results: paper-scale results stored in the repository, with their provenance.

A paper-profile run on a GPU (``companion run CHAPTER --profile paper --keep``) writes every
experiment it finishes to ``results/<profile>/<chapter>/<experiment>-<key>.npz``. A book built
on a laptop then shows those results beside its own (see :mod:`companion.pipeline.build`).

* **Keyed by configuration, not by library source.** The results cache (:mod:`companion.store.cache`)
  is keyed by the library's source too, so any edit recomputes; a kept result took GPU time and
  is kept across edits. Its metadata records the library hash, commit, device, torch version and
  date it was computed with, and :func:`staleness` says whether the library has changed since.
* **Compact and plain.** One compressed ``.npz`` per result: its arrays, a JSON tree that
  rebuilds the nested dicts/lists/tuples around them, and the JSON metadata. No pickle: a kept
  file is data, never code.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

import companion
from companion import runmode
from companion.store.entries import EXPERIMENTS, canonical, key_omits, library_hash, repo_root, write_atomic


class NotKept(Exception):
    """A page showing kept results asked for an experiment that has no kept result."""

    def __init__(self, name: str, config: Any):
        self.name, self.config = name, config
        super().__init__(f"{name.rsplit('.', 1)[-1]} has no kept result for this configuration")

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"Not computed at this scale yet: {self}."]


def viewing() -> bool:
    """Whether this process shows kept results only (a page of kept results: it never computes)."""
    return runmode.current().kept_only


def partial(thunks: dict) -> dict:
    """``{key: thunk()}`` for the runs of one figure. On a page of kept results the runs without a
    kept result are left out, so the figure shows what was computed at that scale; :class:`NotKept`
    only if none was."""
    if not viewing():
        return {k: f() for k, f in thunks.items()}
    out, missing = {}, None
    for k, f in thunks.items():
        try:
            out[k] = f()
        except NotKept as exc:
            missing = exc
    if not out and missing is not None:
        raise missing
    return out


def results_root() -> Path:
    """The run mode's ``results_dir`` (:mod:`companion.runmode`), else ``<repo>/results``."""
    if (given := runmode.current().results_dir) is not None:
        return given
    root = repo_root() or repo_root(Path(__file__).parent) or Path.cwd()
    return root / "results"


def kept_key(name: str, config: Any) -> str:
    """SHA-256 of the experiment's name and full configuration (no device, no library hash)."""
    blob = json.dumps({"name": name, "config": canonical(config)}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def filename(name: str, config: Any) -> str:
    return f"{name.rsplit('.', 1)[-1]}-{kept_key(name, config)[:16]}.npz"


def find(name: str, config: Any) -> Path | None:
    """The kept file of (name, config) under any profile and chapter, or None."""
    root = results_root()
    if not root.exists():
        return None
    hits = sorted(root.glob(f"*/*/{filename(name, config)}"))
    return hits[0] if hits else None


#: the fields that list a batched experiment's seeds (one run of every setting per seed)
SEED_FIELDS = ("seeds", "init_seeds")


def first_seeds(config: Any, k: int) -> Any:
    """``config`` with every seed list (:data:`SEED_FIELDS`, nested configs too) cut to its first ``k`` seeds: the
    configuration of a run of those seeds alone. A paper-scale result kept before a figure ran more seeds is
    such a run (its first seed is the paper's run); a page of kept results shows it with the seeds it has
    (:func:`find_for_page`)."""
    import dataclasses

    if not dataclasses.is_dataclass(config):
        return config
    change = {}
    for f in dataclasses.fields(config):
        v = getattr(config, f.name)
        if f.name in SEED_FIELDS and isinstance(v, tuple) and len(v) > k:
            change[f.name] = v[:k]
        elif dataclasses.is_dataclass(v):
            change[f.name] = first_seeds(v, k)
    return dataclasses.replace(config, **change) if change else config


def find_for_page(name: str, config: Any) -> tuple[Path | None, bool]:
    """(the kept file a page of kept results reads for (name, config), whether it holds fewer seeds): the result
    at every seed of ``config``, else at its longest kept prefix of seeds (:func:`first_seeds`), else (None, False)."""
    found = find(name, config)
    if found is not None:
        return found, False
    for k in range(most_seeds(config) - 1, 0, -1):  # the longest prefix first
        fewer = first_seeds(config, k)
        found = find(name, fewer) if fewer != config else None
        if found is not None:
            return found, True
    return None, False


def most_seeds(config: Any) -> int:
    """The longest seed list in ``config`` (nested configs too)."""
    import dataclasses

    fields = dataclasses.fields(config) if dataclasses.is_dataclass(config) else ()
    return max([len(v) if f.name in SEED_FIELDS and isinstance(v, tuple) else most_seeds(v)
                for f in fields for v in [getattr(config, f.name)]] + [0])


# --------------------------------------------------------------------------- encoding
def _encode(obj: Any, arrays: dict) -> Any:
    import torch

    def arr(a: np.ndarray, kind: str) -> dict:
        if a.dtype == object:
            raise TypeError("object arrays cannot be kept")
        name = f"a{len(arrays)}"
        arrays[name] = a
        return {kind: name}

    if isinstance(obj, torch.Tensor):
        return arr(obj.detach().cpu().numpy(), "tensor")
    if isinstance(obj, np.ndarray):
        return arr(obj, "array")
    if isinstance(obj, np.generic):
        return arr(np.asarray(obj), "scalar")
    if isinstance(obj, dict):
        return {"dict": [[_encode(k, arrays), _encode(v, arrays)] for k, v in obj.items()]}
    if isinstance(obj, tuple):
        return {"tuple": [_encode(v, arrays) for v in obj]}
    if isinstance(obj, list):
        return {"list": [_encode(v, arrays) for v in obj]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"cannot keep a {type(obj).__name__}")


def _decode(tree: Any, arrays) -> Any:
    if not isinstance(tree, dict):
        return tree
    (kind, v), = tree.items()
    if kind == "dict":
        return {_decode(k, arrays): _decode(x, arrays) for k, x in v}
    if kind == "tuple":
        return tuple(_decode(x, arrays) for x in v)
    if kind == "list":
        return [_decode(x, arrays) for x in v]
    a = arrays[v]
    if kind == "tensor":
        import torch

        return torch.from_numpy(np.array(a))
    if kind == "scalar":
        return a[()]
    return np.array(a)


def _json_bytes(obj: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(obj, sort_keys=True).encode(), dtype=np.uint8)


def dumps(value: Any, meta: dict) -> bytes:
    arrays: dict[str, np.ndarray] = {}
    tree = _encode(value, arrays)
    buf = io.BytesIO()
    np.savez_compressed(buf, __tree__=_json_bytes(tree), __meta__=_json_bytes(meta), **arrays)
    return buf.getvalue()


def read(path: Path) -> tuple[Any, dict]:
    """(value, metadata) of a kept file."""
    with np.load(path, allow_pickle=False) as z:
        tree = json.loads(z["__tree__"].tobytes())
        meta = json.loads(z["__meta__"].tobytes())
        return _decode(tree, z), meta


def read_meta(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as z:
        return json.loads(z["__meta__"].tobytes())


def write(path: Path, value: Any, meta: dict) -> None:
    """Atomically (:func:`companion.store.entries.write_atomic`)."""
    write_atomic(path, dumps(value, meta))


# --------------------------------------------------------------------------- provenance
def device_name(device: str) -> str:
    import torch

    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name()
    return f"CPU ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"


def commit() -> str:
    """``COMPANION_COMMIT`` (a GPU machine has no .git), else ``git rev-parse HEAD``, else unknown."""
    if given := runmode.variable("COMPANION_COMMIT"):
        return given
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
                             cwd=repo_root() or Path(__file__).parent)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def keep(name: str, config: Any, device: str, value: Any, seconds: float | None,
         note: str | None = None) -> Path | None:
    """Write ``value`` as a kept result of the run mode's ``keep_chapter`` (a ``--keep`` run), if it
    is not already."""
    mode = runmode.current()
    if mode.keep_chapter is None:
        return None
    path = results_root() / mode.keep_profile / mode.keep_chapter / filename(name, config)
    if path.exists():
        return path
    import torch

    meta = {"experiment": name, "config": canonical(config), "key": kept_key(name, config),
            "device": device_name(device), "device_kind": device.split(":")[0],
            "torch": torch.__version__, "commit": commit(), "library": library_hash(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "seconds": seconds, "chapter": mode.keep_chapter, "profile": mode.keep_profile, "note": note}
    write(path, value, meta)
    return path


def staleness(meta: dict) -> str | None:
    """None if the kept result was computed with today's library; else a sentence saying so."""
    if meta.get("library") == library_hash():
        return None
    return (f"the library has changed since this result was computed (commit {meta.get('commit', '?')[:10]}, "
            f"{meta.get('date', '?')[:10]})")


def index(root: Path | None = None) -> list[dict]:
    """The metadata of every kept result (with its ``path`` and ``bytes``)."""
    root = root or results_root()
    out = []
    for f in sorted(root.glob("*/*/*.npz")) if root.exists() else []:
        m = read_meta(f)
        out.append({**m, "path": str(f), "bytes": f.stat().st_size})
    return out


# --------------------------------------------------------------------------- re-keying
def _config_classes() -> dict[str, list[type]]:
    """Every dataclass of the library by ``__qualname__`` (importing every module)."""
    import dataclasses
    import importlib
    import pkgutil
    import sys

    for m in pkgutil.walk_packages(companion.__path__, "companion."):
        if not m.name.endswith("__main__"):
            importlib.import_module(m.name)
    out: dict[str, list[type]] = {}
    seen: set[int] = set()
    for name, mod in list(sys.modules.items()):
        if not name.startswith("companion"):
            continue
        for obj in vars(mod).values():
            if isinstance(obj, type) and dataclasses.is_dataclass(obj) and id(obj) not in seen:
                seen.add(id(obj))
                out.setdefault(obj.__qualname__, []).append(obj)
    return out


def _experiments() -> dict[str, list[str]]:
    """Every cached experiment function's qualified name, by its short name."""
    _config_classes()  # imports every module, which registers every experiment
    out: dict[str, list[str]] = {}
    for n in EXPERIMENTS:
        out.setdefault(n.rsplit(".", 1)[-1], []).append(n)
    return out


def _migrate(tree: Any, classes: dict, class_renames: dict, field_renames: dict) -> Any:
    """An old canonical configuration in today's classes: classes renamed, fields renamed, new
    fields at their defaults (a field the key omits at its default left out, as :func:`canonical` does).
    Raises ``KeyError`` when no class of today's library fits."""
    import dataclasses

    if isinstance(tree, list):
        return [_migrate(v, classes, class_renames, field_renames) for v in tree]
    if not isinstance(tree, dict) or "__class__" not in tree:
        return tree
    old = tree["__class__"]
    new = class_renames.get(old, old)
    fields = {field_renames.get(f"{old}.{k}", k): _migrate(v, classes, class_renames, field_renames)
              for k, v in tree.items() if k != "__class__"}
    fits = [c for c in classes.get(new, []) if set(fields) <= {f.name for f in dataclasses.fields(c)}]
    if len(fits) != 1:
        raise KeyError(f"{len(fits)} dataclasses named {new} hold the fields {sorted(fields)}")
    out = {"__class__": new}
    for f in dataclasses.fields(fits[0]):
        if f.name in fields:
            value = fields[f.name]
        elif f.default is not dataclasses.MISSING:
            value = canonical(f.default)
        elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            value = canonical(f.default_factory())  # type: ignore[misc]
        else:
            raise KeyError(f"{new}.{f.name} has no default")
        if not key_omits(f, value):  # as canonical() describes today's configuration
            out[f.name] = value
    return out


def rekey(experiment_renames: dict | None = None, class_renames: dict | None = None,
          field_renames: dict | None = None, reshape: dict | None = None, dry_run: bool = False,
          root: Path | None = None) -> list[str]:
    """Re-key every kept result after a refactor, so that today's library finds it.

    Kept files are keyed by the experiment's qualified name and its configuration's canonical
    form (:func:`kept_key`). After experiments move between modules, config classes or fields are
    renamed, or fields are added (at a default that keeps the old behaviour), each file's stored
    configuration is migrated (:func:`_migrate`), its experiment found by short name (or through
    ``experiment_renames``: old short name -> new short name; of several experiments with one
    short name, the one in the file's chapter), and the file renamed with its metadata updated
    (the old name and key are kept under ``rekeyed_from``). ``reshape`` maps an experiment's
    short name to a function of its old canonical configuration, for a configuration whose
    structure changed (say, wrapped in a new class). Returns one line per file that changed;
    raises if a file cannot be placed.
    """
    experiment_renames, class_renames = experiment_renames or {}, class_renames or {}
    field_renames = field_renames or {}
    classes, names = _config_classes(), _experiments()
    lines = []
    for f in sorted((root or results_root()).glob("*/*/*.npz")):
        value, meta = read(f)
        short = experiment_renames.get(meta["experiment"].rsplit(".", 1)[-1], meta["experiment"].rsplit(".", 1)[-1])
        candidates = names[short]
        mine = [n for n in candidates if n.startswith(f"companion.experiments.{meta['chapter']}")]
        if len(mine if len(candidates) > 1 else candidates) != 1:
            raise KeyError(f"{f.name}: no single experiment {short} in chapter {meta['chapter']}: {candidates}")
        name = (mine if len(candidates) > 1 else candidates)[0]
        old = (reshape or {}).get(short, lambda c: c)(meta["config"])
        config = _migrate(old, classes, class_renames, field_renames)
        key = hashlib.sha256(json.dumps({"name": name, "config": config}, sort_keys=True).encode()).hexdigest()
        if key == meta["key"] and name == meta["experiment"]:
            continue
        target = f.with_name(f"{name.rsplit('.', 1)[-1]}-{key[:16]}.npz")
        lines.append(f"{f.relative_to(f.parents[2])} -> {target.name}")
        if dry_run:
            continue
        new_meta = {**meta, "experiment": name, "config": config, "key": key,
                    "rekeyed_from": {"experiment": meta["experiment"], "key": meta["key"],
                                     **({"rekeyed_from": meta["rekeyed_from"]} if "rekeyed_from" in meta else {})}}
        write(target, value, new_meta)
        if target != f:
            f.unlink()
    return lines
