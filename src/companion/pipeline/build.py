"""The book's build: py:percent chapter → jupytext → papermill → Jupyter Book 1.x → HTML.

::

    book/<chapter>.py ──jupytext──▶ <build>/notebooks/<chapter>.ipynb     (<build> = <out>/builds/<id>)
        ──papermill (profile, device, seed)──▶ <build>/executed/<chapter>.ipynb + <build>/claims/<chapter>.json
        ──stage (+ generated Reproduction report, vendored MathJax)──▶ <build>/stage
        ──jupyter-book build, execution "off"──▶ <build>/html ──publish──▶ <out>/current → <build>

Chapters execute in separate processes (``jobs`` at a time, one torch thread each: on the
2-core build machine two single-threaded chapters finish sooner than one chapter on two
threads; a build of one chapter gives it every core, as worker processes of one thread that
compute its experiments first (:func:`companion.pipeline.runs.precompute`), and runs its kept
paper-scale view after it), so a chapter that raises, kills its kernel or overruns its time
limit is reported by name while the others execute and render.

What a build guarantees (:func:`build`):

* **Nothing changes before everything is checked.** Profile, device (a GPU asked for is there),
  chapters, parameters, writable output and cache folders and the vendored MathJax are checked
  first; a bad command exits 2 with one line and leaves the previous book byte for byte.
* **Stage, then swap.** Everything a build writes goes to ``<out>/builds/<id>/``; the book is
  published by replacing the link ``<out>/current`` in one rename (``<out>/html``, ``claims``,
  ``build.json``, ``executed`` … are links through it). An interrupted build leaves the previous
  book as it was, and the results cache holds every experiment that finished.
* **A failing chapter keeps its last good page**, under a banner naming the failure and the
  time of the good build; it is counted as failed and the exit status is non-zero.
* **One build per output folder** (a lock; ``--wait`` queues), and **no chapter hangs the book**
  (``--chapter-timeout``).

The book never executes notebooks itself: Jupyter Book's ``auto`` mode would re-run
papermill's (empty) parameter cells and its ``cache`` mode hashes only cell sources, not this
library (see ``_config.yml``). The pieces: :mod:`companion.pipeline.execute` (a process per chapter),
:mod:`companion.pipeline.report` (the Reproduction report), :mod:`companion.pipeline.publish` (staging folders,
the swap, last good pages).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

from companion import numerics, runmode
from companion.claims import load_claims
from companion.claims.text import text_table
from companion.pipeline import scales
from companion.pipeline.execute import ChapterResult, check_parameters, kernel_dir, run_chapters
from companion.pipeline.publish import chapter_pages, discard_unfinished, new_build_dir, publish
from companion.pipeline.report import figure_thumbnails, report_markdown
from companion.profiles import DEVICES, PROFILES, ParameterError, check_seed, one_of, resolve_device
from companion.store.dirlock import DirLock
from companion.store.entries import cache_dir

#: each chapter's budget at the cpu profile on 2 cores (the whole book: under 30 minutes)
CPU_BUDGET_MINUTES = {"grokking": 3, "linear_estimators": 4, "progress_measures": 8, "lazy_rich": 6,
                      "groktransfer": 7, "synthesis": 8}
#: chapter -> the chapters whose cached runs it reuses (its budget assumes that reuse): it starts only once
#: they have ended. The synthesis chapter's critical-fraction sweep reuses the linear-estimators runs; the
#: GrokTransfer weak model it also reuses costs seconds, so it does not wait for that chapter.
REUSES = {"synthesis": ("linear_estimators",)}
#: default wall-clock limit per chapter: this multiple of its cpu budget (smoke: of one minute);
#: none at the paper profile (hours on a GPU are expected there)
CHAPTER_TIMEOUT_FACTOR = 4


# ----------------------------------------------------------------------------- table of contents
def read_toc(root: Path) -> list[str]:
    """Every ``file:`` entry of ``_toc.yml``, in order (root first)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for k in ("root", "file"):
                if k in node:
                    files.append(str(node[k]))
            for v in node.values():
                if isinstance(v, (list, dict)):
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    return files


def toc_chapters(root: Path) -> list[str]:
    """The executable chapters of the book: toc entries ``book/<name>`` with a ``book/<name>.py``."""
    return [Path(f).name for f in read_toc(root) if (root / f"{f}.py").exists()]


# ----------------------------------------------------------------------------- staging + render
def vendored_mathjax(root: Path) -> Path | None:
    """MathJax 3 installed from npm by ``make`` (``.vendor/node_modules/mathjax/es5``), if present."""
    p = root / ".vendor" / "node_modules" / "mathjax" / "es5"
    return p if (p / "tex-chtml.js").exists() else None


def stage(root: Path, out: Path, report: str, pages: dict[str, Path], thumbs: Path | None = None) -> Path:
    """The sources Jupyter Book renders: config, Markdown pages, each chapter's page, the report
    and its figure thumbnails (``thumbs``, into ``_static/thumbs``)."""
    st = out / "stage"
    shutil.rmtree(st, ignore_errors=True)
    (st / "book").mkdir(parents=True)
    for f in ("_config.yml", "_toc.yml"):
        shutil.copy(root / f, st / f)
    if (root / "_static").exists():
        shutil.copytree(root / "_static", st / "_static")
    for page in (root / "book").glob("*.md"):
        shutil.copy(page, st / "book" / page.name)
    for name, nb in pages.items():
        shutil.copy(nb, st / "book" / f"{name}.ipynb")
    (st / "book" / "report.md").write_text(report)
    if thumbs is not None and thumbs.exists():
        shutil.copytree(thumbs, st / "_static" / "thumbs", dirs_exist_ok=True)
    for entry in read_toc(root):  # a toc entry with no source yet gets a page that says so
        if not any((st / f"{entry}{ext}").exists() for ext in (".md", ".ipynb")):
            (st / f"{entry}.md").write_text(f"# {Path(entry).name}\n\nThis chapter is not written yet.\n")
    mj = vendored_mathjax(root)
    if mj is not None:  # the combined TeX→CHTML component, its fonts and lazily loaded parts
        dst = st / "_static" / "mathjax"
        dst.mkdir(parents=True)
        shutil.copy(mj / "tex-chtml.js", dst)
        for sub in ("output/chtml", "input/tex", "a11y", "ui", "adaptors"):
            if (mj / sub).exists():
                shutil.copytree(mj / sub, dst / sub)
    else:
        print("[build] MathJax is not vendored (run `make vendor`): math will load from a CDN", file=sys.stderr)
    return st


def merge_view(out: Path, name: str, dest: Path) -> list[str]:
    """Write the chapter's page with its paper-scale outputs merged in; returns the errors of
    the paper-scale page (cells that raised for a reason other than a missing kept result)."""
    import nbformat

    main, paper = out / "executed" / f"{name}.ipynb", out / "executed-paper" / f"{name}.ipynb"
    if not (main.exists() and paper.exists()):
        return []
    try:
        merged = scales.merge(nbformat.read(main, as_version=4), nbformat.read(paper, as_version=4),
                              scales.provenance_markdown(name))
    except Exception as exc:  # the cpu page alone is still a page
        print(f"[build] {name}: could not merge its paper-scale page ({type(exc).__name__}: {exc})",
              file=sys.stderr)
        return [f"merge failed: {exc}"]
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(merged, dest)
    return merged.metadata["companion"]["paper_scale_errors"]


def jupyter_book_warnings(log: str) -> list[str]:
    """The WARNING lines of a Jupyter Book log, without colour codes."""
    import re

    plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
    return [line.strip() for line in plain.splitlines() if "WARNING:" in line]


def render(st: Path, out: Path) -> tuple[bool, str]:
    """Run Jupyter Book 1.x on the stage; copy the HTML to ``<out>/html``."""
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb) if jb.exists() else "jupyter-book", "build", str(st), "--keep-going"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (out / "jupyter-book.log").write_text(log)
    html = st / "_build" / "html"
    if proc.returncode != 0 or not (html / "index.html").exists():
        return False, log[-3000:]
    shutil.rmtree(out / "html", ignore_errors=True)
    shutil.move(str(html), str(out / "html"))
    return True, log


# ----------------------------------------------------------------------------- the build
def longest_first(chapters: list[str], last_build: Path, profile: str) -> list[str]:
    """Chapters in the order they should start: longest path to the end of the build first.

    A chapter's path is its own time (in the last build of this profile, else its cpu budget) plus
    the longest path of the chapters that wait for it (:data:`REUSES`). With two workers, starting
    the long paths first keeps both busy to the end (critical-path list scheduling): the chapters
    the synthesis reuses start first, so it need not be left to run alone at the end. The order
    alone does not make a chapter wait: :func:`run_chapters` starts it once its :data:`REUSES` end.
    """
    seconds = {c: 60.0 * m for c, m in CPU_BUDGET_MINUTES.items()}
    try:
        last = json.loads(last_build.read_text())
        if last["profile"] == profile:
            seconds |= {k: v["seconds"] for k, v in last["chapters"].items()}
    except (OSError, ValueError, KeyError):
        pass

    def path(c: str) -> float:
        after = [d for d, before in REUSES.items() if c in before and d in chapters]
        return seconds.get(c, 0.0) + max((path(d) for d in after), default=0.0)

    return sorted(chapters, key=lambda c: -path(c))


def chapter_timeout(name: str, profile: str, given: float | None = None) -> float | None:
    """Seconds a chapter may run: ``given`` (0 or less: no limit), else
    :data:`CHAPTER_TIMEOUT_FACTOR` × its cpu budget at cpu, 10 minutes at smoke, none at paper."""
    if given is not None:
        return given if given > 0 else None
    if profile == "paper":
        return None
    if profile == "smoke":
        return 600.0
    return CHAPTER_TIMEOUT_FACTOR * 60.0 * CPU_BUDGET_MINUTES.get(name, 8)


def validate(root: Path, out: Path, profile: str, device: str, chapters: list[str] | None,
             parameters: dict, allow_cdn: bool = False) -> list[str]:
    """Every check a build can make before it changes anything; returns the chapters to build.

    Raises :class:`ParameterError` (one line; the command exits 2) for an unknown profile,
    device, chapter or parameter, a GPU asked for that torch cannot see, an output or cache
    folder that cannot be written, or MathJax not vendored (the book would need the network).
    """
    import tempfile

    one_of("profile", profile, PROFILES)
    one_of("device", device, DEVICES)
    check_seed(parameters.get("seed", 0))
    available = toc_chapters(root)
    for ch in chapters or []:
        one_of("chapter", ch, available)
    todo = list(dict.fromkeys(chapters or available))
    resolve_device(device)  # "cuda" without a GPU: the one-line error, before any kernel starts
    for folder, what in ((out, "output folder"), (cache_dir(), "cache folder")):
        probe = folder
        while not probe.exists():  # the nearest existing ancestor must be writable
            probe = probe.parent
        if not os.access(probe, os.W_OK | os.X_OK):
            raise ParameterError(f"the {what} {folder} cannot be written (permission denied on {probe})")
    with tempfile.TemporaryDirectory() as tmp:
        check_parameters(root, Path(tmp), todo, parameters)
    if vendored_mathjax(root) is None and not allow_cdn:
        raise ParameterError("MathJax is not vendored under .vendor/ (run `make vendor`, or `make setup`); "
                             "without it the book's math needs the network. Pass --allow-cdn to build anyway")
    return todo


# ----------------------------------------------------------------------------- the build
def build(root: Path, profile: str = "cpu", device: str = "auto", chapters: list[str] | None = None,
          seed: int = 0, params: dict | None = None, out: Path | None = None, fresh: bool = False,
          jobs: int | None = None, chapter_timeout_s: float | None = None, wait: bool = False,
          allow_cdn: bool = False) -> int:
    """Build the book; return the exit code (0: every chapter ran and, at cpu/paper, no claim
    failed). See the module docstring for what survives a bad command, a failure or an interrupt."""
    out = (out or root / "_build").resolve()
    parameters = {"profile": profile, "device": device, "seed": seed, **(params or {})}
    todo = validate(root, out, profile, device, chapters, parameters, allow_cdn)
    with DirLock(out, "the output folder", wait=wait), DirLock(cache_dir(), "the results cache", shared=True,
                                                               wait=wait):
        import signal

        try:  # `kill` interrupts like Ctrl-C: chapters stopped, the published book kept
            signal.signal(signal.SIGTERM, signal.default_int_handler)
        except ValueError:  # not the main thread: leave signals alone
            pass
        discard_unfinished(out)
        bdir = new_build_dir(out)
        try:
            return _build(root, out, bdir, profile, device, todo, seed, parameters, fresh, jobs,
                          chapter_timeout_s)
        except KeyboardInterrupt:
            shutil.rmtree(bdir, ignore_errors=True)
            print("[build] interrupted: the published book is unchanged; finished experiments are cached",
                  file=sys.stderr)
            return 130


def _build(root: Path, out: Path, bdir: Path, profile: str, device: str, todo: list[str], seed: int,
           parameters: dict, fresh: bool, jobs: int | None, chapter_timeout_s: float | None) -> int:
    available = toc_chapters(root)
    # one chapter asked for: alone on every core (two processes would leave it one core and the
    # other idle once its short kept-results view ends)
    jobs = jobs or min(2, os.cpu_count() or 1, len(todo))
    if device in ("cuda",):
        jobs = 1  # chapters on one GPU would race for its memory
    # each chapter's kernel runs under this mode (it reaches the kernel through its environment): the
    # build's claims folder, this cache, and the cores a chapter may use spent as processes of one
    # thread each (profiles.workers)
    base = runmode.current()
    mode = replace(base, claims_dir=bdir / "claims", cache_dir=base.cache_dir or root / "_build" / "cache",
                               workers=runmode.count("COMPANION_WORKERS", max(1, (os.cpu_count() or 1) // jobs)),
                               fresh_before=time.time() if fresh else base.fresh_before)
    # the kernel's inline backend turns figures into images (a user's MPLBACKEND=agg would not)
    env = {"MPLBACKEND": "module://matplotlib_inline.backend_inline", "PYTHONHASHSEED": "0",
           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
           "JUPYTER_PATH": os.pathsep.join([str(kernel_dir(out)),
                                          os.environ.get("JUPYTER_PATH", "")]).rstrip(os.pathsep),
           "PYDEVD_DISABLE_FILE_VALIDATION": "1", **runmode.environment(mode)}
    # at the cpu profile, chapters with kept paper-scale results also show those (scales.py)
    show_paper = profile == "cpu" or runmode.variable("COMPANION_PAPER_VIEW") == "1"
    views = [ch for ch in todo if show_paper and profile != scales.SCALE and scales.has_kept(ch)]
    view_env = {**env, **runmode.environment(replace(mode, kept_only=True,
                                                                 claims_dir=bdir / "claims-paper"))}
    view_params = {**parameters, "profile": scales.SCALE, "device": "cpu"}
    print(f"[build] profile={profile} device={device} seed={seed} chapters={', '.join(todo)} "
          f"jobs={jobs} out={out}" + (f"; paper-scale results kept for: {', '.join(views)}" if views else ""),
          flush=True)
    t0 = time.time()
    results: dict[str, ChapterResult] = {}
    view_results: dict[str, ChapterResult] = {}

    def on_result(ch: str, view: bool, res: ChapterResult) -> None:
        if view:
            view_results[ch] = res
            print(res.line().replace(f"[{ch}]", f"[{ch} @ paper scale, kept results]"), flush=True)
        else:
            results[ch] = res
            print(res.line(), flush=True)

    work = [(ch, False, parameters, env, chapter_timeout(ch, profile, chapter_timeout_s))
            for ch in longest_first(todo, out / "build.json", profile)]
    work += [(ch, True, view_params, view_env, chapter_timeout(ch, "cpu", chapter_timeout_s)) for ch in views]
    run_chapters(root, bdir, work, jobs, on_result, after={c: [d for d in REUSES.get(c, ()) if d in todo]
                                                           for c in todo})
    records = [r for r in load_claims(bdir / "claims") if r.chapter in available]
    paper_records = [r for r in load_claims(bdir / "claims-paper") if r.chapter in views]
    view_errors = {ch: merge_view(bdir, ch, bdir / "merged" / f"{ch}.ipynb") for ch in views}
    now = time.strftime("%Y-%m-%d %H:%M %Z")
    pages = chapter_pages(bdir, available, results, views, profile, now)
    thumbs = figure_thumbnails(pages, bdir / "thumbs-static")
    fingerprint = numerics.fingerprint()  # this process's kernels: the chapters' processes inherit them
    report = report_markdown(records, available, results, profile, paper_records, view_results, view_errors,
                             thumbs, fingerprint)
    ok_render, log = render(stage(root, bdir, report, pages, bdir / "thumbs-static" / "thumbs"), bdir)
    (bdir / "build.json").write_text(json.dumps({
        "profile": profile, "device": device, "seed": seed, "seconds": time.time() - t0, "finished": now,
        "numerics": fingerprint,
        "chapters": {k: asdict(v) for k, v in results.items()}, "rendered": ok_render,
        "paper_scale": {k: {**asdict(v), "page_errors": view_errors.get(k, [])} for k, v in view_results.items()}},
        indent=1))
    failures = [f"chapter {r.name} raised: {r.error}" for r in results.values() if not r.ok]
    if profile in ("cpu", "paper"):
        failures += [f"claim {r.chapter}/{r.id} ({r.paper_ref}) failed: measured {r.measured}, expected {r.expected}"
                     for r in records if r.verdict == "failed" and r.chapter in results]
    # a Jupyter Book warning is a defect of the book (a broken reference, a duplicate label):
    # the book is published, and the build fails naming it
    failures += [f"Jupyter Book warned: {w}" for w in (jupyter_book_warnings(log) if ok_render else [])]
    # a cell that raises on a paper-scale page is a defect of the code that reads the kept results (a page
    # published with a traceback where a figure should be), not a finding: it fails the build
    failures += [f"the paper-scale page of {ch} raised: {e}" for ch, errs in view_errors.items() for e in errs]
    if ok_render:
        shutil.rmtree(bdir / "stage", ignore_errors=True)
        shutil.rmtree(bdir / "jobs", ignore_errors=True)
        publish(out, bdir)
    else:
        failures.append(f"Jupyter Book failed to render (the published book is unchanged); see "
                        f"{bdir / 'jupyter-book.log'}\n{log}")
    print(f"[build] {len(results)} chapter(s) in {time.time() - t0:.0f} s; HTML: {out / 'html' / 'index.html'}")
    print(text_table([r for r in records if r.chapter in results]))
    for f in failures:
        print(f"[build] FAILED: {f}", file=sys.stderr)
    # the paper-scale pages show results computed earlier: their findings are reported, not gated
    for r in paper_records:
        if r.verdict == "failed":
            print(f"[build] paper scale: claim {r.chapter}/{r.id} ({r.paper_ref}) failed: measured "
                  f"{r.measured}, expected {r.expected}", file=sys.stderr)
    return 1 if failures else 0
