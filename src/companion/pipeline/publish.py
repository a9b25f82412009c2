"""The published book: staging folders, the swap in one rename, and last good pages.

A build writes everything into ``<out>/builds/<id>/`` (:func:`new_build_dir`, seeded with the
previous build's pages and claims so that chapters not built this time keep theirs) and
publishes it by replacing the link ``<out>/current`` (:func:`publish`); ``<out>/html``,
``claims``, ``build.json``, ``executed`` … are links through it. Each build folder's
``status.json`` records, per chapter, whether its last build was good and when, so a chapter
that fails shows its last good page under a banner (:func:`chapter_pages`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from companion.pipeline.execute import placeholder_notebook

#: what a build publishes: each ``<out>/<name>`` is a link to ``<out>/current/<name>``
PUBLISHED = ("html", "claims", "claims-paper", "build.json", "executed", "executed-paper", "merged",
             "jupyter-book.log")
#: finished builds kept under ``<out>/builds`` (the published one and the one before it)
KEEP_BUILDS = 2


def published_build(out: Path) -> Path | None:
    """The folder of the published book: ``<out>/current``'s target, or ``<out>`` itself for a
    book built before builds were staged (its ``executed/`` is a plain folder); None if none."""
    cur = out / "current"
    if cur.is_symlink() and cur.exists():
        return cur.resolve()
    if (out / "executed").is_dir() and not (out / "executed").is_symlink():
        return out
    return None


def new_build_dir(out: Path) -> Path:
    """A fresh staging folder ``<out>/builds/<time>-<pid>``, holding the previous build's
    chapter pages and claims so that chapters not built this time keep theirs."""
    bdir = out / "builds" / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    bdir.mkdir(parents=True)
    prev = published_build(out)
    for sub in ("executed", "claims", "pages", "lastgood"):
        (bdir / sub).mkdir()
        if prev is not None and (prev / sub).is_dir():
            for f in (prev / sub).iterdir():
                if f.is_file():
                    shutil.copy2(f, bdir / sub / f.name)
    status = {}
    if prev is not None and (prev / "status.json").exists():
        status = json.loads((prev / "status.json").read_text())
    (bdir / "status.json").write_text(json.dumps(status, indent=1))
    return bdir


def publish(out: Path, bdir: Path) -> None:
    """Make ``bdir`` the published book in one rename, then drop all but :data:`KEEP_BUILDS`."""
    for name in PUBLISHED:  # every published name resolves, even where this build made none
        if name.endswith((".json", ".log")):
            (bdir / name).touch()
        else:
            (bdir / name).mkdir(exist_ok=True)
    tmp = out / f".current-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    os.symlink(Path("builds") / bdir.name, tmp)
    os.replace(tmp, out / "current")  # the swap: atomic on POSIX
    for name in (*PUBLISHED, "stage", "notebooks"):
        p = out / name
        if p.is_symlink():
            continue
        if p.is_dir():  # a book built before builds were staged
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
        if name in PUBLISHED:
            os.symlink(Path("current") / name, p)
    finished = sorted((b for b in (out / "builds").iterdir() if (b / "published").exists()),
                      key=lambda b: b.stat().st_mtime)
    (bdir / "published").touch()
    keep = {bdir.name, *(b.name for b in finished[-(KEEP_BUILDS - 1):])} if KEEP_BUILDS > 1 else {bdir.name}
    for b in (out / "builds").iterdir():
        if b.name not in keep:
            shutil.rmtree(b, ignore_errors=True)


def discard_unfinished(out: Path) -> None:
    """Remove staging folders of builds that never published (killed, or failed to render)."""
    if (out / "builds").is_dir():
        current = published_build(out)
        for b in (out / "builds").iterdir():
            if not (b / "published").exists() and b != current:
                shutil.rmtree(b, ignore_errors=True)


def banner_cell(name: str, error: str, failed_at: str, good: dict):
    import nbformat

    return nbformat.v4.new_markdown_cell(
        f"```{{warning}}\n**This chapter failed in the latest build** ({failed_at}, profile "
        f"{good.get('failed_profile', '?')}): `{error}`\n\nBelow is its **last successful page**, built "
        f"{good['time']} at profile {good['profile']}. Its figures and numbers come from that build, "
        f"not from the code that failed.\n```")


def chapter_pages(bdir: Path, available: list[str], results: dict, views: list[str],
                  profile: str, now: str) -> dict[str, Path]:
    """The page each chapter shows, and ``status.json`` brought up to date.

    A chapter built now and ok shows its new page (merged with its paper-scale view, if any); one
    that failed shows its last good page under a banner when there is one (else the failed
    notebook, with its error); one not built now keeps the page of the build before.
    """
    import nbformat

    status = json.loads((bdir / "status.json").read_text())
    pages: dict[str, Path] = {}
    for ch in available:
        res = results.get(ch)
        if res is not None and res.ok:
            src = bdir / "merged" / f"{ch}.ipynb"
            src = src if (ch in views and src.exists()) else bdir / "executed" / f"{ch}.ipynb"
            shutil.copy2(src, bdir / "pages" / f"{ch}.ipynb")
            (bdir / "lastgood" / f"{ch}.ipynb").unlink(missing_ok=True)
            status[ch] = {"ok": True, "time": now, "profile": profile}
        elif res is not None:
            before = status.get(ch, {})
            good = ({"time": before["time"], "profile": before["profile"]} if before.get("ok")
                    else before.get("lastgood"))
            source = (bdir / "pages" / f"{ch}.ipynb") if before.get("ok") else (bdir / "lastgood" / f"{ch}.ipynb")
            if good and source.exists():
                nb = nbformat.read(source, as_version=4)
                if before.get("ok") is False:  # already under an older banner: replace it
                    nb.cells = nb.cells[1:]
                nb.cells.insert(0, banner_cell(ch, res.error or "failed", now, {**good, "failed_profile": profile}))
                nbformat.write(nb, bdir / "lastgood" / f"{ch}.ipynb")
                shutil.copy2(bdir / "lastgood" / f"{ch}.ipynb", bdir / "pages" / f"{ch}.ipynb")
                status[ch] = {"ok": False, "time": now, "profile": profile, "error": res.error, "lastgood": good}
            else:
                shutil.copy2(bdir / "executed" / f"{ch}.ipynb", bdir / "pages" / f"{ch}.ipynb")
                status[ch] = {"ok": False, "time": now, "profile": profile, "error": res.error}
        elif not (bdir / "pages" / f"{ch}.ipynb").exists():
            placeholder_notebook(bdir / "pages" / f"{ch}.ipynb", ch, "not executed in this build (build it with "
                                 f"`companion build --chapter {ch}`)")
        pages[ch] = bdir / "pages" / f"{ch}.ipynb"
    (bdir / "status.json").write_text(json.dumps(status, indent=1))
    return pages
