"""The results cache: keys, atomic writes, corruption, resuming an interrupted build."""

import os
import time
from dataclasses import dataclass

import pytest

from companion.store import cache, entries


@dataclass(frozen=True)
class Cfg:
    n: int = 3
    x: float = 0.5
    name: str = "a"


calls = []


@cache.experiment
def square(cfg: Cfg, device: str = "cpu") -> dict:
    calls.append(cfg)
    return {"y": [cfg.n ** 2, cfg.x]}


@cache.experiment
def explode(cfg: Cfg, device: str = "cpu") -> dict:
    raise RuntimeError("killed midway")


def test_second_call_is_served_from_the_cache(isolated):
    calls.clear()
    assert square(Cfg()) == {"y": [9, 0.5]}
    assert square(Cfg()) == {"y": [9, 0.5]}
    assert len(calls) == 1


def test_key_covers_every_config_field_and_the_device(isolated):
    base = entries.key("f", Cfg(), "cpu")
    assert entries.key("f", Cfg(x=0.5000001), "cpu") != base
    assert entries.key("f", Cfg(name="b"), "cpu") != base
    assert entries.key("f", Cfg(), "cuda:0") != base
    assert entries.key("g", Cfg(), "cpu") != base
    assert entries.key("f", Cfg(), "cpu") == base


def test_key_covers_the_library_source(isolated, monkeypatch):
    base = entries.key("f", Cfg(), "cpu")
    monkeypatch.setattr(entries, "_source_hash", "another library")
    assert entries.key("f", Cfg(), "cpu") != base


def test_interrupted_build_resumes_without_recomputing(isolated):
    """Experiment 1 finishes, experiment 2 dies; the rerun recomputes only experiment 2."""
    calls.clear()
    square(Cfg(n=4))
    with pytest.raises(RuntimeError):
        explode(Cfg())
    cache.computed.clear()
    square(Cfg(n=4))
    assert len(calls) == 1 and cache.computed == []


def test_corrupt_entry_is_detected_and_recomputed(isolated, capsys):
    calls.clear()
    square(Cfg(n=5))
    (entry,) = list((isolated / "cache").rglob("square-*.pkl"))
    data = entry.read_bytes()
    entry.write_bytes(data[:-3] + b"xyz")  # flipped payload bytes
    assert square(Cfg(n=5)) == {"y": [25, 0.5]}
    assert len(calls) == 2
    assert "corrupt" in capsys.readouterr().err
    entry.write_bytes(data[: len(data) // 2])  # truncated write
    assert square(Cfg(n=5)) == {"y": [25, 0.5]} and len(calls) == 3


def test_store_is_atomic_and_leaves_no_temporary_files(isolated, monkeypatch):
    path = isolated / "cache" / "x.pkl"
    entries.save(path, {"a": 1})

    def fail(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        entries.save(path, {"a": 2})
    monkeypatch.undo()
    assert entries.load(path) == (True, {"a": 1})  # the old entry is intact
    assert [p.name for p in path.parent.iterdir()] == ["x.pkl"]


def test_fresh_ignores_entries_written_before_the_build_started(isolated, monkeypatch):
    calls.clear()
    square(Cfg(n=6))
    time.sleep(0.05)
    monkeypatch.setenv("COMPANION_FRESH_BEFORE", str(time.time()))
    square(Cfg(n=6))
    square(Cfg(n=6))  # written by the fresh build itself: reused
    assert len(calls) == 2


def test_unsupported_config_values_are_refused():
    with pytest.raises(TypeError):
        entries.key("f", {"fn": print}, "cpu")


def test_verify_finds_a_truncated_entry_and_prune_removes_it(isolated):
    from conftest import companion

    env = {"COMPANION_CACHE_DIR": str(isolated / "cache")}
    square(Cfg(n=7))
    square(Cfg(n=8))
    entry = sorted((isolated / "cache").rglob("square-*.pkl"))[0]
    entry.write_bytes(entry.read_bytes()[:40])  # a torn write
    old = isolated / "cache" / "lib-0123456789ab"  # what an older library wrote
    old.mkdir()
    (old / "x-1.pkl").write_bytes(b"old")
    proc = companion("cache", "verify", env=env)
    assert proc.returncode == 1 and "DAMAGED" in proc.stdout and entry.name in proc.stdout
    assert "1 intact, 2 damaged" in proc.stdout  # the old version's entry is not a cache entry either
    dry = companion("cache", "prune", "--dry-run", env=env)
    assert dry.returncode == 0 and "would remove 2 item(s)" in dry.stdout and entry.exists()
    proc = companion("cache", "prune", env=env)
    assert proc.returncode == 0 and not entry.exists() and not old.exists()
    assert companion("cache", "verify", env=env).returncode == 0  # the intact entry stays


def test_no_experiment_depends_on_a_module_left_out_of_the_library_hash():
    """The cache key leaves out the modules that decide and show verdicts (``entries.VERDICT_MODULES``):
    no module that defines an experiment may import one of them, directly or through another module."""
    import ast
    from pathlib import Path

    from companion.store.entries import VERDICT_MODULES

    pkg = Path(cache.__file__).parents[1]

    def name(path: Path) -> str:
        rel = path.relative_to(pkg).with_suffix("")
        return ".".join(("companion", *rel.parts)).removesuffix(".__init__")

    files = {name(p): p for p in pkg.rglob("*.py")}
    imports: dict[str, set[str]] = {}
    for mod, path in files.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("companion"):
                found |= {m for m in (node.module, *(f"{node.module}.{a.name}" for a in node.names)) if m in files}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in files}
        imports[mod] = found

    def excluded(mod: str) -> bool:
        return str(files[mod].relative_to(pkg)).startswith(VERDICT_MODULES)

    bad = {}
    for mod, path in files.items():
        if "@experiment" not in path.read_text() or excluded(mod):
            continue
        seen, todo = set(), [mod]
        while todo:
            for dep in imports[todo.pop()] - seen:
                seen.add(dep)
                todo.append(dep)
        if hit := sorted(d for d in seen if excluded(d)):
            bad[mod] = hit
    assert not bad, f"experiment modules that depend on modules left out of the cache key: {bad}"
