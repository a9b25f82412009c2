"""Upkeep of the results cache (``companion cache verify|prune``): find corrupt entries, and
the entries and checkpoints that no build will read again."""

from __future__ import annotations

from pathlib import Path

from companion.store.dirlock import alive
from companion.store.entries import cache_dir, check, entries_dir


def verify(root: Path | None = None) -> list[tuple[Path, int, str | None]]:
    """Every entry under the cache (all library versions): ``(path, bytes, problem or None)``.

    ``companion cache verify``. The build already detects and recomputes a corrupt entry when
    it reads one; this finds them all at once, and also those of configurations not built lately.
    """
    root = root or cache_dir()
    rows = []
    for path in sorted(root.rglob("*.pkl")) if root.exists() else []:
        try:
            data = path.read_bytes()
            check(data)
            problem = None
        except (OSError, ValueError) as exc:
            data, problem = b"", str(exc)
        rows.append((path, path.stat().st_size if path.exists() else len(data), problem))
    return rows


def prunable(root: Path | None = None) -> list[tuple[Path, int, str]]:
    """What ``companion cache prune`` removes, with sizes and why: the folders of other library
    versions (no current configuration can read them: the key includes the library's hash),
    entries from before per-version folders, corrupt entries, temporary files of interrupted
    writes, and locks of processes that have died. Checkpoints of this version are kept."""
    root = root or cache_dir()
    if not root.exists():
        return []
    current = entries_dir().name

    def size(p: Path) -> int:
        return sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size

    out = []
    for p in sorted(root.iterdir()):
        if p.is_dir() and p.name.startswith("lib-") and p.name != current:
            out.append((p, size(p), "written by another version of the library"))
        elif p.is_file() and p.suffix == ".pkl":
            out.append((p, size(p), "written before entries were kept per library version"))
        elif p.is_dir() and p.name == "checkpoints":
            out.append((p, size(p), "checkpoints from before entries were kept per library version"))
    for path, n, problem in verify(root / current):
        if problem:
            out.append((path, n, f"corrupt: {problem}"))
    for p in sorted(root.rglob("*.tmp")):
        out.append((p, size(p), "temporary file of an interrupted write"))
    for p in sorted((root / "locks").glob("*.lock")) if (root / "locks").exists() else []:
        try:
            pid = int(p.read_text() or 0)
        except (OSError, ValueError):
            pid = 0
        if not pid or not alive(pid):
            out.append((p, size(p), "lock of a process that has ended"))
    return out


def remove(paths: list[Path]) -> None:
    """Delete ``paths`` (files or folders)."""
    import shutil

    for p in paths:
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
