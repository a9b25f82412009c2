"""The book's build: py:percent chapter → jupytext → papermill → Jupyter Book 1.x → HTML.

::

    book/<chapter>.py ──jupytext──▶ <out>/notebooks/<chapter>.ipynb
        ──papermill (profile, device, seed)──▶ <out>/executed/<chapter>.ipynb + <out>/claims/<chapter>.json
        ──stage (+ generated Reproduction report, vendored MathJax)──▶ <out>/stage
        ──jupyter-book build, execution "off"──▶ <out>/html

Chapters execute in separate worker processes (``jobs`` at a time, one torch thread each:
on the 2-core build machine two single-threaded chapters finish sooner than one chapter on two
threads), so a chapter that raises, or even kills its kernel, is reported by name while the
others execute and render. The book never executes notebooks itself: Jupyter Book's ``auto``
mode would re-run papermill's (empty) parameter cells and its ``cache`` mode hashes only cell
sources, not this library (see ``_config.yml``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path

from companion.profiles import DEVICES, PROFILES, ParameterError, one_of

#: parameters every chapter's ``parameters`` cell defines
CHAPTER_PARAMETERS = ("profile", "device", "seed")
#: each chapter's budget at the cpu profile on 2 cores (the whole book: under 30 minutes)
CPU_BUDGET_MINUTES = {"grokking": 3, "linear_estimators": 4, "progress_measures": 8, "lazy_rich": 6,
                      "groktransfer": 7}
#: wall-clock limit per cell, by profile (seconds); a hung chapter fails instead of hanging CI
CELL_TIMEOUT = {"smoke": 600, "cpu": 1800, "paper": None}


@dataclass
class ChapterResult:
    name: str
    ok: bool
    seconds: float
    claims: dict = field(default_factory=dict)
    error: str | None = None

    def line(self) -> str:
        c = self.claims
        counts = (f"claims: {c.get('held', 0)} held, {c.get('failed', 0)} failed, "
                  f"{c.get('known-deviation', 0)} known deviation") if c else "no claims"
        status = "ok" if self.ok else "FAILED"
        err = f" — {self.error}" if self.error else ""
        return f"[{self.name}] {status} in {self.seconds:.1f} s — {counts}{err}"


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


# ----------------------------------------------------------------------------- one chapter
def notebook_parameters(path: Path) -> dict:
    """The names and defaults declared in a notebook's ``parameters`` cell (papermill's view).

    Papermill only *warns* about a parameter the notebook does not declare; the build refuses it.
    """
    import papermill

    return {k: v["default"] for k, v in papermill.inspect_notebook(str(path)).items()}


def validate_parameters(name: str, declared: dict, given: dict) -> None:
    for k in given:
        if k not in declared:
            raise ParameterError(f"unknown parameter {k!r} for chapter {name!r}; valid parameters: "
                                 f"{', '.join(declared)}")
    missing = [k for k in CHAPTER_PARAMETERS if k not in declared]
    if missing:
        raise ParameterError(f"chapter {name!r} does not declare {', '.join(missing)} in its parameters cell")


def check_parameters(root: Path, out: Path, chapters: list[str], parameters: dict) -> None:
    """Refuse, before anything runs, a parameter some chapter does not declare."""
    import jupytext
    import nbformat

    for name in chapters:
        src = out / "notebooks" / f"{name}.ipynb"
        src.parent.mkdir(parents=True, exist_ok=True)
        try:
            nb = jupytext.read(root / "book" / f"{name}.py")
        except Exception:  # a chapter jupytext cannot read fails, by name, when it executes
            continue
        nbformat.write(nb, src)
        validate_parameters(name, notebook_parameters(src), parameters)


def kernel_dir(out: Path) -> Path:
    """A ``python3`` kernelspec running *this* interpreter, put first on ``JUPYTER_PATH``.

    A stale user-level ``python3`` kernelspec pointing at another environment would otherwise
    silently run the chapters without this project's packages.
    """
    d = out / "jupyter"
    spec = d / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (companion)", "language": "python"}))
    return d


def execute_chapter(root: str, out: str, name: str, parameters: dict, env: dict,
                    view: bool = False) -> ChapterResult:
    """Execute one chapter with papermill; never raises (errors are in the result).

    Runs in a worker process: ``env`` is applied to this process and so to its kernel. With
    ``view`` the chapter is the page of its kept paper-scale results (:mod:`companion.scales`):
    it goes to ``executed-paper/`` and ``claims-paper/``, reads kept results only, and runs every
    cell even after one fails (a cell whose result was not kept at that scale).
    """
    t0 = time.time()
    os.environ.update(env)
    rootp, outp = Path(root), Path(out)
    suffix = "-paper" if view else ""
    executed = outp / f"executed{suffix}" / f"{name}.ipynb"
    claims_file = outp / f"claims{suffix}" / f"{name}.json"
    claims_file.unlink(missing_ok=True)
    executed.parent.mkdir(parents=True, exist_ok=True)
    error = None
    try:
        import jupytext
        import nbformat
        import papermill

        nb = jupytext.read(rootp / "book" / f"{name}.py")
        for i, cell in enumerate(nb.cells):  # stable ids: the two scales' cells are matched by id
            cell["id"] = f"cell-{i}"
        src = outp / "notebooks" / f"{name}{suffix}.ipynb"
        src.parent.mkdir(parents=True, exist_ok=True)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, src)
        validate_parameters(name, notebook_parameters(src), parameters)
        try:
            papermill.execute_notebook(
                str(src), str(executed), parameters=parameters, kernel_name="python3",
                cwd=str(rootp / "book"), progress_bar=False, log_output=False,
                execution_timeout=CELL_TIMEOUT["cpu" if view else parameters["profile"]],
                request_save_on_cell_execute=False, autosave_cell_every=0, allow_errors=view)
        except papermill.PapermillExecutionError as exc:
            if not view:  # a page of kept results expects cells without a kept result to fail
                error = f"{exc.ename}: {exc.evalue}".splitlines()[0][:300]
        except Exception as exc:  # dead kernel, timeout: the notebook may be partial or absent
            error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        finalize_notebook(executed, name, error)
    except ParameterError as exc:
        error = str(exc)
        placeholder_notebook(executed, name, error)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        placeholder_notebook(executed, name, error + "\n\n" + traceback.format_exc())
    summary = {}
    if claims_file.exists():
        from companion.claims import VERDICTS

        recs = json.loads(claims_file.read_text())
        summary = {v: sum(r["verdict"] == v for r in recs) for v in VERDICTS}
    return ChapterResult(name, error is None, time.time() - t0, summary, error)


def finalize_notebook(path: Path, name: str, error: str | None) -> None:
    """Mark an executed notebook for rendering as is; keep a failed one, with its traceback."""
    import nbformat

    if not path.exists():
        placeholder_notebook(path, name, error or "papermill wrote no output")
        return
    nb = nbformat.read(path, as_version=4)
    nb.metadata["mystnb"] = {"execution_mode": "off"}
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")  # the defaults; the injected cell below shows what ran
        cell.metadata["tags"] = tags
    nbformat.write(nb, path)


def placeholder_notebook(path: Path, name: str, message: str) -> None:
    """A page that says the chapter could not be executed, and why."""
    import nbformat

    path.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(
        f"# {name}\n\n```{{error}}\nThis chapter failed before it could run:\n\n{message}\n```")]
    nb.metadata["mystnb"] = {"execution_mode": "off"}
    nbformat.write(nb, path)


# ----------------------------------------------------------------------------- the report page
TOKEN = re.compile(r"\b(?P<kind>Figs?|Tables?|Eqs?)\b\.?|\b(?P<a>\d+)[a-z]?(?:\s*[–-]\s*(?P<b>\d+))?", re.I)
NAMED = re.compile(r"\b(Thm|Theorem|Lemma|Prop(?:osition)?|Cor(?:ollary)?|App(?:endix)?|Sec(?:tion)?|§)\.?\s*"
                   r"([A-Z]?\d+(?:\.\d+)*|[A-Z]\b)", re.I)
CANONICAL = {"thm": "Theorem", "theorem": "Theorem", "lemma": "Lemma", "prop": "Proposition",
             "proposition": "Proposition", "cor": "Corollary", "corollary": "Corollary", "app": "App.",
             "appendix": "App.", "sec": "§", "section": "§", "§": "§"}


def paper_items(ref: str) -> list[str]:
    """``"Figs. 12–19 / Table 1"`` → ``["Fig. 12", …, "Fig. 19", "Table 1"]``.

    Theorems, lemmas, appendices and sections are kept by name (``"Thm 3.2"`` → ``"Theorem
    3.2"``); a reference with none of these (``"A.4.1"``) is its own item, so every claim
    appears in the report.
    """
    out, kind = [], None
    for m in TOKEN.finditer(NAMED.sub(" ", ref)):  # a bare number continues the last kind: "Fig. 1b / 6"
        if m.group("kind"):
            kind = {"fig": "Fig.", "table": "Table", "eq": "Eq."}[m.group("kind").lower().rstrip("s")]
        elif kind:
            a, b = int(m.group("a")), int(m.group("b") or m.group("a"))
            out += [f"{kind} {n}" for n in range(a, b + 1) if f"{kind} {n}" not in out]
    for kind, label in NAMED.findall(ref):
        out.append(f"{CANONICAL[kind.lower()]} {label}".replace("§ ", "§"))
    return out or [ref.strip()]


def report_markdown(records, chapters: list[str], results: dict[str, ChapterResult], profile: str,
                    paper_records=(), view_results: dict | None = None, view_errors: dict | None = None) -> str:
    """The Reproduction report: per chapter, every paper figure/table, its claims and verdicts,
    with a column for the kept paper-scale results where a chapter has them."""
    from companion import scales
    from companion.claims import BADGE, _fmt
    from companion.experiments import CHAPTERS, chapter_module
    from companion.runs import format_seconds

    view_results, view_errors = view_results or {}, view_errors or {}
    paper = {(r.chapter, r.id): r for r in paper_records}
    lines = ["# Reproduction report", "",
             f"Generated by `companion build` at profile **{profile}** on "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Every number below was measured "
             "by this build; verdicts are computed from the measured value and the paper's statement "
             "(see each chapter's claims table for the details).", ""]
    if view_results:
        lines += ["The **paper scale** columns evaluate the same claims on results kept from earlier runs at the "
                  "papers' own settings (profile `paper`, on a GPU; each chapter page says where and when). They "
                  "show what the papers' effects look like at full size; a claim missing there needs a result "
                  "that was not computed at that scale yet.", ""]
    total = {v: sum(r.verdict == v for r in records) for v in BADGE}
    head = "| chapter | status | time | held | failed | known deviation |"
    rule = "|---|---|---|---|---|---|"
    if view_results:
        head += " paper scale: kept results | GPU time | held | failed | known deviation |"
        rule += "---|---|---|---|---|"
    lines += [head, rule]
    for ch in chapters:
        res = results.get(ch)
        recs = [r for r in records if r.chapter == ch]
        status = "—" if res is None else ("executed" if res.ok else f"❌ failed: {res.error}")
        t = "—" if res is None else f"{res.seconds:.0f} s"
        row = (f"| {{doc}}`{ch}` | {status} | {t} | "
               + " | ".join(str(sum(r.verdict == v for r in recs)) for v in BADGE) + " |")
        if view_results:
            if ch in view_results:
                mine = [r for r in paper_records if r.chapter == ch]
                n_all, gone = scales.missing(ch)
                wall, calls = scales.gpu_time(ch)
                row += (f" {n_all - sum(gone.values())} of {n_all} | {format_seconds(wall) if calls else '—'} | "
                        + " | ".join(str(sum(r.verdict == v for r in mine)) for v in BADGE) + " |")
            else:
                row += " none | — | — | — | — |"
        lines.append(row)
    lines += ["", f"**Total: {total['held']} held, {total['failed']} failed, "
              f"{total['known-deviation']} known deviations.**", ""]
    for ch, errs in view_errors.items():
        for e in errs:
            lines += [f"```{{warning}}\nAt the paper's scale a cell of `{ch}` raised {e}\n```", ""]
    for ch in chapters:
        recs = [r for r in records if r.chapter == ch]
        with_paper = ch in view_results
        items: list[str] = []
        if ch in CHAPTERS:
            try:
                items = list(getattr(chapter_module(ch), "PAPER_ITEMS", ()))
            except Exception:  # a chapter whose module does not import is reported above
                items = []
        for r in recs:
            items += [i for i in paper_items(r.paper_ref) if i not in items]
        title = getattr(chapter_module(ch), "TITLE", ch) if ch in CHAPTERS else ch
        lines += [f"## {title}", ""]
        lines += (["| paper | claims | verdicts | paper scale |", "|---|---|---|---|"] if with_paper
                  else ["| paper | claims | verdicts |", "|---|---|---|"])
        for item in items:
            mine = [r for r in recs if item in paper_items(r.paper_ref)]
            if mine:
                cl = "<br>".join(f"`{r.id}`: {r.statement} (measured {_fmt(r.measured)}, expected {r.expected})"
                                 .replace("|", "\\|") for r in mine)
                vd = "<br>".join(BADGE[r.verdict] for r in mine)
                pv = "<br>".join((f"{BADGE[q.verdict]} ({_fmt(q.measured)})" if (q := paper.get((ch, r.id)))
                                  else "—") for r in mine)
            else:
                cl, vd, pv = "figure re-drawn; no numerical claim", "—", "—"
            lines.append(f"| {item} | {cl} | {vd} |" + (f" {pv} |" if with_paper else ""))
        ids = {r.id for r in recs}
        for q in (q for q in paper_records if q.chapter == ch and q.id not in ids):  # made at paper scale only
            text = f"`{q.id}`: {q.statement} (expected {q.expected})".replace("|", "\\|")
            lines.append(f"| {q.paper_ref} | {text} | — | {BADGE[q.verdict]} ({_fmt(q.measured)}) |")
        lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- staging + render
def vendored_mathjax(root: Path) -> Path | None:
    """MathJax 3 installed from npm by ``make`` (``.vendor/node_modules/mathjax/es5``), if present."""
    p = root / ".vendor" / "node_modules" / "mathjax" / "es5"
    return p if (p / "tex-chtml.js").exists() else None


def stage(root: Path, out: Path, report: str, views: list[str] = ()) -> Path:
    st = out / "stage"
    shutil.rmtree(st, ignore_errors=True)
    (st / "book").mkdir(parents=True)
    for f in ("_config.yml", "_toc.yml"):
        shutil.copy(root / f, st / f)
    if (root / "_static").exists():
        shutil.copytree(root / "_static", st / "_static")
    for page in (root / "book").glob("*.md"):
        shutil.copy(page, st / "book" / page.name)
    for nb in (out / "executed").glob("*.ipynb"):
        shutil.copy(nb, st / "book" / nb.name)
    for name in views:  # chapters shown beside their kept paper-scale results (merge_view)
        if (out / "merged" / f"{name}.ipynb").exists():
            shutil.copy(out / "merged" / f"{name}.ipynb", st / "book" / f"{name}.ipynb")
    (st / "book" / "report.md").write_text(report)
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

    from companion import scales

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
    shutil.copytree(html, out / "html")
    return True, log


# ----------------------------------------------------------------------------- the build
def longest_first(chapters: list[str], last_build: Path, profile: str) -> list[str]:
    """Chapters ordered by their time in the last build of this profile, longest first.

    With two workers, starting the long chapters first keeps both busy to the end (LPT
    scheduling); a chapter not in the last build is placed by its cpu budget.
    """
    seconds = {c: 60.0 * m for c, m in CPU_BUDGET_MINUTES.items()}
    try:
        last = json.loads(last_build.read_text())
        if last["profile"] == profile:
            seconds |= {k: v["seconds"] for k, v in last["chapters"].items()}
    except (OSError, ValueError, KeyError):
        pass
    return sorted(chapters, key=lambda c: -seconds.get(c, 0.0))


def build(root: Path, profile: str = "cpu", device: str = "auto", chapters: list[str] | None = None,
          seed: int = 0, params: dict | None = None, out: Path | None = None, fresh: bool = False,
          jobs: int | None = None) -> int:
    """Build the book; return the exit code (0: every chapter ran and, at cpu/paper, no claim failed)."""
    one_of("profile", profile, PROFILES)
    one_of("device", device, DEVICES)
    available = toc_chapters(root)
    for ch in chapters or []:
        one_of("chapter", ch, available)
    todo = chapters or available
    out = (out or root / "_build").resolve()
    out.mkdir(parents=True, exist_ok=True)
    parameters = {"profile": profile, "device": device, "seed": seed, **(params or {})}
    check_parameters(root, out, todo, parameters)
    jobs = jobs or min(2, os.cpu_count() or 1)
    if device in ("cuda",):
        jobs = 1  # chapters on one GPU would race for its memory
    # the kernel's inline backend turns figures into images (a user's MPLBACKEND=agg would not)
    env = {"MPLBACKEND": "module://matplotlib_inline.backend_inline", "PYTHONHASHSEED": "0",
           "COMPANION_CLAIMS_DIR": str(out / "claims"),
           "COMPANION_CACHE_DIR": os.environ.get("COMPANION_CACHE_DIR", str(root / "_build" / "cache")),
           "COMPANION_THREADS": os.environ.get("COMPANION_THREADS", "1" if jobs > 1 else str(os.cpu_count() or 1)),
           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1" if jobs > 1 else str(os.cpu_count() or 1)),
           "JUPYTER_PATH": os.pathsep.join([str(kernel_dir(out)), os.environ.get("JUPYTER_PATH", "")]).rstrip(os.pathsep),
           "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    if fresh:
        env["COMPANION_FRESH_BEFORE"] = str(time.time())
    from companion import scales

    # at the cpu profile, chapters with kept paper-scale results also show those (scales.py)
    show_paper = profile == "cpu" or os.environ.get("COMPANION_PAPER_VIEW") == "1"
    views = [ch for ch in todo if show_paper and profile != scales.SCALE and scales.has_kept(ch)]
    view_env = {**env, "COMPANION_KEPT_ONLY": "1", "COMPANION_CLAIMS_DIR": str(out / "claims-paper")}
    view_params = {**parameters, "profile": scales.SCALE, "device": "cpu"}
    shutil.rmtree(out / "claims-paper", ignore_errors=True)
    print(f"[build] profile={profile} device={device} seed={seed} chapters={', '.join(todo)} "
          f"jobs={jobs} out={out}" + (f"; paper-scale results kept for: {', '.join(views)}" if views else ""),
          flush=True)
    t0 = time.time()
    results: dict[str, ChapterResult] = {}
    view_results: dict[str, ChapterResult] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(execute_chapter, str(root), str(out), ch, parameters, env): (ch, False)
                   for ch in longest_first(todo, out / "build.json", profile)}
        futures.update({pool.submit(execute_chapter, str(root), str(out), ch, view_params, view_env, True):
                        (ch, True) for ch in views})
        for fut in as_completed(futures):
            ch, view = futures[fut]
            try:
                res = fut.result()
            except Exception as exc:  # the worker itself died
                res = ChapterResult(ch, False, 0.0, {}, f"worker died: {exc}")
                if not view:
                    placeholder_notebook(out / "executed" / f"{ch}.ipynb", ch, res.error)
            if view:
                view_results[ch] = res
                print(res.line().replace(f"[{ch}]", f"[{ch} @ paper scale, kept results]"), flush=True)
            else:
                results[ch] = res
                print(res.line(), flush=True)
    # chapters of the toc not executed in this build keep their last executed notebook, if any
    for ch in available:
        if ch not in todo and not (out / "executed" / f"{ch}.ipynb").exists():
            placeholder_notebook(out / "executed" / f"{ch}.ipynb", ch,
                                 "not executed in this build (build it with `companion build --chapter "
                                 f"{ch}`)")
    from companion.claims import load_claims, text_table

    records = [r for r in load_claims(out / "claims") if r.chapter in available]
    paper_records = [r for r in load_claims(out / "claims-paper") if r.chapter in views]
    shutil.rmtree(out / "merged", ignore_errors=True)
    view_errors = {ch: merge_view(out, ch, out / "merged" / f"{ch}.ipynb") for ch in views}
    report = report_markdown(records, available, results, profile, paper_records, view_results, view_errors)
    ok_render, log = render(stage(root, out, report, views), out)
    (out / "build.json").write_text(json.dumps({
        "profile": profile, "device": device, "seed": seed, "seconds": time.time() - t0,
        "chapters": {k: asdict(v) for k, v in results.items()}, "rendered": ok_render,
        "paper_scale": {k: {**asdict(v), "page_errors": view_errors.get(k, [])} for k, v in view_results.items()}},
        indent=1))
    failures = [f"chapter {r.name} raised: {r.error}" for r in results.values() if not r.ok]
    if profile in ("cpu", "paper"):
        failures += [f"claim {r.chapter}/{r.id} ({r.paper_ref}) failed: measured {r.measured}, expected {r.expected}"
                     for r in records if r.verdict == "failed" and r.chapter in results]
    if not ok_render:
        failures.append("Jupyter Book failed to render; see " + str(out / "jupyter-book.log") + "\n" + log)
    print(f"[build] {len(results)} chapter(s) in {time.time() - t0:.0f} s; HTML: {out / 'html' / 'index.html'}")
    print(text_table([r for r in records if r.chapter in results]))
    for f in failures:
        print(f"[build] FAILED: {f}", file=sys.stderr)
    # the paper-scale pages show results computed earlier: their findings are reported, not gated
    for ch, errs in view_errors.items():
        for e in errs:
            print(f"[build] paper scale, {ch}: a cell raised {e}", file=sys.stderr)
    for r in paper_records:
        if r.verdict == "failed":
            print(f"[build] paper scale: claim {r.chapter}/{r.id} ({r.paper_ref}) failed: measured "
                  f"{r.measured}, expected {r.expected}", file=sys.stderr)
    return 1 if failures else 0
