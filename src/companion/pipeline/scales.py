"""Two scales on one page: a chapter built at the cpu profile, beside its kept paper-scale results.

A chapter with kept results (:mod:`companion.store.kept`) is executed twice by the build: once at the
build's profile, and once at the ``paper`` profile with ``COMPANION_KEPT_ONLY`` set, so every
experiment is read from the kept results and nothing is trained (a cell whose experiment has no
kept result stops with :class:`companion.store.kept.NotKept`; the other cells still run). The two
executed notebooks come from one source notebook, so their cells correspond one to one (by cell
id); :func:`merge` puts each cell's paper-scale outputs right after its own outputs, and a
provenance note (device, torch, commit, date, GPU time, what is still missing, and whether the
library changed since) near the top of the page.
"""

from __future__ import annotations

import copy
import json
import subprocess
from collections import Counter
from pathlib import Path

from companion.pipeline import runs
from companion.pipeline.runs import format_seconds
from companion.store import kept
from companion.store.entries import library_hash, repo_root
from companion.store.kept import results_root

SCALE = "paper"  # the profile of the kept results shown beside the build's own


def kept_dir(chapter: str) -> Path:
    return results_root() / SCALE / chapter


def has_kept(chapter: str) -> bool:
    d = kept_dir(chapter)
    return d.exists() and any(d.glob("*.npz"))


# --------------------------------------------------------------------------- provenance
def _changed_library_files(commit: str) -> list[str] | None:
    """Library files changed since ``commit`` (git), or None where git cannot tell."""
    try:
        out = subprocess.run(["git", "diff", "--name-only", commit, "--", "src/companion"], capture_output=True,
                             text=True, timeout=20, cwd=repo_root() or Path.cwd())
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.split() if out.returncode == 0 else None


def gpu_time(chapter: str) -> tuple[float, int]:
    """(wall seconds, invocations) of the ``companion run --keep`` calls that computed this
    chapter's kept results, from ``results/runs.jsonl``; a call that ran several chapters counts
    in each."""
    path = results_root() / "runs.jsonl"
    if not path.exists():
        return 0.0, 0
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    mine = [r for r in runs if chapter in r.get("chapters", []) and r.get("profile") == SCALE]
    return sum(r.get("wall_s", 0.0) for r in mine), len(mine)


def missing(chapter: str) -> tuple[int, Counter, Counter, set]:
    """(number of the chapter's paper experiments, Counter by name of those without a kept result, Counter
    by name of those whose page reads a kept result of fewer seeds, the kept files the page reads)."""
    tasks = runs.plan(chapter, SCALE, "cpu")
    found = [(t, *kept.find_for_page(t.experiment, t.config)) for t in tasks]
    gone = Counter(t.name for t, f, _ in found if f is None)
    one = Counter(t.name for t, f, first in found if f is not None and first)
    return len(tasks), gone, one, {str(f) for _, f, _ in found if f is not None}


def provenance_markdown(chapter: str) -> str:
    """The note at the top of a chapter's page about its kept paper-scale results."""
    metas = [m for m in kept.index() if m.get("chapter") == chapter and m.get("profile") == SCALE]
    if not metas:
        return ""
    n_all, gone, one, read = missing(chapter)
    metas = [m for m in metas if m["path"] in read] or metas  # the ones this page reads
    devices = sorted({m["device"] for m in metas})
    torches = sorted({m["torch"] for m in metas})
    commits = sorted({m["commit"][:10] for m in metas})
    dates = sorted(m["date"][:10] for m in metas)
    wall, calls = gpu_time(chapter)
    lines = [f"**Paper scale.** Below each output of this page computed here, the same cell's output at the "
             f"paper's own settings (profile `paper`), read from {len(read)} kept result(s) of this chapter: "
             f"computed on {', '.join(devices)} with torch {', '.join(torches)} at commit {', '.join(commits)}, "
             f"{dates[0]}{' to ' + dates[-1] if dates[-1] != dates[0] else ''}"
             + (f", in {calls} call(s) of `companion run --keep` taking {format_seconds(wall)} of wall time "
                f"in all." if calls else ".")]
    if one:
        lines.append(f"{sum(one.values())} of them were computed before their figure ran more seeds, and hold its "
                     f"first seed(s) only, the first being the paper's run "
                     f"({', '.join(f'{k} ×{v}' for k, v in sorted(one.items()))}): their claims at the paper's scale "
                     "are read on the seeds they have (the claims table gives the count).")
    if gone:
        lines.append(f"{sum(gone.values())} of this chapter's {n_all} paper-scale experiments have no kept "
                     f"result yet ({', '.join(f'{k} ×{v}' for k, v in sorted(gone.items()))}); where a cell "
                     "needs one, it says so.")
    stale = [m for m in metas if m.get("library") != library_hash()]
    if stale:
        commit = stale[0]["commit"]
        files = _changed_library_files(commit)
        what = (f": {', '.join(f'`{f}`' for f in files[:8])}{' …' if len(files) > 8 else ''}" if files else "")
        lines.append(f"The library has changed since {len(stale)} of these results were computed (commit "
                     f"{commit[:10]}){what}. They are shown as computed then; `companion run {chapter} --profile "
                     f"paper --keep --fresh` on a GPU recomputes them.")
    return "\n\n".join(lines)


# --------------------------------------------------------------------------- merging
ERROR_TAG = "papermill-error-cell-tag"


def _visible(outputs: list) -> list:
    return [o for o in outputs if o.get("output_type") in ("display_data", "execute_result", "stream", "error")]


def _same(a: list, b: list) -> bool:
    def strip(outs: list) -> list:
        return [{k: v for k, v in o.items() if k not in ("execution_count", "metadata")} for o in outs]

    return strip(a) == strip(b)


def _note(text: str):
    import nbformat

    return nbformat.v4.new_output("display_data", data={"text/markdown": text, "text/plain": text})


def merge(main_nb, paper_nb, provenance: str):
    """``main_nb`` with each code cell's paper-scale outputs (from ``paper_nb``) after it.

    Errors at the paper scale become one-line notes: a missing kept result says which; a cell
    that failed because an earlier one had no kept result says that; any other error is shown
    as an error (a defect of the page at that scale).
    """
    import nbformat

    paper = {c.get("id"): c for c in paper_nb.cells if ERROR_TAG not in c.metadata.get("tags", [])}
    out = copy.deepcopy(main_nb)
    cells, placed, errors, lacking = [], False, [], []  # lacking: experiments without a kept result, so far
    for cell in out.cells:
        cells.append(cell)
        if cell.cell_type != "code":
            continue
        p = paper.get(cell.get("id"))
        if not placed and cell.get("outputs") and provenance:
            cells.append(nbformat.v4.new_markdown_cell(provenance, metadata={"tags": ["paper-scale"]}))
            placed = True
        if p is None or "parameters" in cell.metadata.get("tags", []) \
                or "injected-parameters" in cell.metadata.get("tags", []):
            continue
        outs = _visible(p.get("outputs", []))
        if not outs or _same(outs, _visible(cell.get("outputs", []))):
            continue
        # a figure cell's outputs become one labelled figure, its caption saying the scale (a
        # note among them would be a second figure with the same label)
        fig = cell.metadata.get("mystnb", {}).get("figure")
        err = next((o for o in outs if o["output_type"] == "error"), None)
        if err is not None:
            if err["ename"] == "NotKept":
                shown = [_note(f"*At the paper's scale: {err['evalue']} yet.*")]
                lacking += [w for w in err["evalue"].split()[:1] if w not in lacking]
            elif lacking:
                shown = [_note(f"*At the paper's scale: needs a result not computed at that scale yet (this page "
                               f"lacks {', '.join(f'`{w}`' for w in lacking)}).*")]
            else:
                errors.append(f"{err['ename']}: {err['evalue']}")
                shown = [_note("**At the paper's scale this cell raised:**"), err]
        else:
            shown = outs if fig else [_note("*At the paper's scale:*")] + outs
        tags = [t for t in cell.metadata.get("tags", []) if t not in ("remove-output", "hide-output")]
        meta = {"tags": sorted(set(tags) | {"remove-input", "paper-scale"})}
        if fig:  # a figure of its own: its label must differ from the cpu figure's
            meta["mystnb"] = {"figure": {**fig, "name": f"{fig.get('name', 'fig')}-paper",
                                         "caption": "At the paper's scale: " + fig.get("caption", "")}}
        twin = nbformat.v4.new_code_cell(cell.source, metadata=meta)
        twin.outputs = shown
        cells.append(twin)
    out.cells = cells
    out.metadata.setdefault("companion", {})["paper_scale_errors"] = errors
    return out
