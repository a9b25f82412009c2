"""Executing chapters: one process per chapter, papermill inside it, a time limit around it.

Each chapter runs in a process of its own (:func:`run_chapters`), so a chapter that raises,
kills its kernel or overruns its time limit is reported by name while the others go on; a
chapter past its limit is killed together with its kernel (:func:`kill_tree`). Inside the
process :func:`execute_chapter` converts the py:percent file with jupytext and executes it with
papermill, never raising: its :class:`ChapterResult` carries the error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from companion import runmode
from companion.claims import HYPOTHESIS_VERDICTS, VERDICTS
from companion.profiles import ParameterError

#: parameters every chapter's ``parameters`` cell defines
CHAPTER_PARAMETERS = ("profile", "device", "seed")
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
                  f"{c.get('known-deviation', 0)} known deviation, {c.get('undecided', 0)} undecided, "
                  f"{c.get('vacuous', 0)} vacuous") if c else "no claims"
        hyp = {v: c.get(f"hypotheses {v}", 0) for v in ("supported", "refuted", "undecided", "not applicable",
                                                        "vacuous")}
        if any(hyp.values()):
            counts += "; hypotheses: " + ", ".join(f"{n} {v}" for v, n in hyp.items())
        status = "ok" if self.ok else "FAILED"
        err = f" — {self.error}" if self.error else ""
        return f"[{self.name}] {status} in {self.seconds:.1f} s — {counts}{err}"



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
    ``view`` the chapter is the page of its kept paper-scale results (:mod:`companion.pipeline.scales`):
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
        recs = json.loads(claims_file.read_text())
        claims = [r for r in recs if r.get("kind") != "hypothesis"]
        hyps = [r for r in recs if r.get("kind") == "hypothesis"]
        summary = {v: sum(r["verdict"] == v for r in claims) for v in VERDICTS}
        summary |= {f"hypotheses {v}": sum(r["verdict"] == v for r in hyps) for v in HYPOTHESIS_VERDICTS}
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



# ----------------------------------------------------------------------------- chapter processes
def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux ``/proc``; elsewhere none, and only ``pid`` is killed)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def kill_tree(pid: int) -> None:
    """Kill a chapter's process and everything it started (its kernel is in a session of its own)."""
    import signal

    for p in [pid, *_descendants(pid)]:
        try:
            os.kill(p, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def report_progress(path: Path) -> None:
    """Make papermill, in this process, write ``{"done": cells executed, "total": cells}`` to
    ``path`` as each cell completes (the build prints it while the chapter runs)."""
    from papermill.engines import NotebookExecutionManager

    complete = NotebookExecutionManager.cell_complete

    def cell_complete(self, cell, cell_index=None, **kwargs):
        complete(self, cell, cell_index, **kwargs)
        try:
            path.write_text(json.dumps({"done": (cell_index or 0) + 1, "total": len(self.nb.cells)}))
        except OSError:
            pass

    NotebookExecutionManager.cell_complete = cell_complete


def _child(spec_path: str) -> None:
    """Entry point of a chapter's process: execute it, write its :class:`ChapterResult` as JSON."""
    spec = json.loads(Path(spec_path).read_text())
    report_progress(Path(spec["result"]).with_name(Path(spec["result"]).name.replace(".result.", ".progress.")))
    res = execute_chapter(spec["root"], spec["out"], spec["name"], spec["parameters"], spec["env"], spec["view"])
    Path(spec["result"]).write_text(json.dumps(asdict(res)))


#: seconds between the build's lines on the chapters still running
PROGRESS_EVERY = float(runmode.variable("COMPANION_PROGRESS_EVERY", "60"))


def print_progress(bdir: Path, running: dict) -> None:
    """One line: each running chapter, the cells it has executed of its total, and its time."""
    parts = []
    for tag, (_, t0, *_rest) in running.items():
        try:
            pr = json.loads((bdir / "jobs" / f"{tag}.progress.json").read_text())
            cells = f"cell {pr['done']}/{pr['total']}"
        except (OSError, ValueError, KeyError):
            cells = "starting"
        m, sec = divmod(int(time.time() - t0), 60)
        parts.append(f"{tag} {cells}, {m}:{sec:02d}")
    print(f"[build] running: {'; '.join(parts)}", flush=True)


#: lines of a chapter process's output that are the kernel's start-up and shut-down noise
NOISE = ("Kernel is running over TCP without encryption", "KeyboardInterrupt caught in kernel")


def pass_on_log(path: Path, tag: str) -> None:
    """Print a chapter process's output, less :data:`NOISE`, to stderr under its name."""
    try:
        lines = [line for line in path.read_text().splitlines() if line.strip() and not any(n in line for n in NOISE)]
    except OSError:
        return
    for line in lines:
        print(f"[{tag}] {line}", file=sys.stderr)


def next_startable(pending: list[tuple], ended: set[str], after: dict[str, list[str]], idle: bool) -> int | None:
    """Index in ``pending`` (items ``(chapter, view, ...)``, in start order) of the first that may start:
    a paper-scale view, or a chapter whose ``after[chapter]`` have all ended; None if none may. When
    nothing is running (``idle``) and every item waits, the first starts: what it waits for cannot end."""
    i = next((i for i, (name, view, *_) in enumerate(pending)
              if view or all(d in ended for d in after.get(name, ()))), None)
    return 0 if i is None and pending and idle else i


def run_chapters(root: Path, bdir: Path, work: list[tuple[str, bool, dict, dict, float | None]],
                 jobs: int, on_result, after: dict[str, list[str]] | None = None) -> None:
    """Execute ``work`` items ``(chapter, view, parameters, env, timeout)``, ``jobs`` at a time,
    each in its own process, in order, except that a chapter waits until the chapters
    ``after[chapter]`` have ended (ok or not); a process past its timeout is killed with its kernel and reported
    as failed. ``on_result(chapter, view, ChapterResult)`` is called as each ends. On an
    interrupt every chapter process is killed before the interrupt goes on. Each process's own
    output goes to ``<build>/logs/<chapter>.log``; what is not kernel start-up noise is passed on
    to stderr when the chapter ends."""
    pending, running, ended = list(work), {}, set()
    after = after or {}

    (bdir / "jobs").mkdir(exist_ok=True)
    (bdir / "logs").mkdir(exist_ok=True)
    last_progress = time.time()
    try:
        while pending or running:
            if running and time.time() - last_progress >= PROGRESS_EVERY:
                print_progress(bdir, running)
                last_progress = time.time()
            while len(running) < jobs and (i := next_startable(pending, ended, after, idle=not running)) is not None:
                name, view, params, env, timeout = pending.pop(i)
                tag = f"{name}{'-paper' if view else ''}"
                spec = {"root": str(root), "out": str(bdir), "name": name, "parameters": params, "env": env,
                        "view": view, "result": str(bdir / "jobs" / f"{tag}.result.json")}
                (bdir / "jobs" / f"{tag}.json").write_text(json.dumps(spec))
                with open(bdir / "logs" / f"{tag}.log", "w") as log:
                    proc = subprocess.Popen([sys.executable, "-c", "import sys; from companion.pipeline.execute "
                                             "import _child; _child(sys.argv[1])", str(bdir / "jobs" / f"{tag}.json")],
                                            env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT)
                running[tag] = (proc, time.time(), name, view, timeout, Path(spec["result"]))
            time.sleep(0.2)
            for tag, (proc, t0, name, view, timeout, result) in list(running.items()):
                rc = proc.poll()
                if rc is None and not (timeout and time.time() - t0 > timeout):
                    continue
                if rc is None:
                    kill_tree(proc.pid)
                    proc.wait()
                    res = ChapterResult(name, False, time.time() - t0, {},
                                        f"stopped after {timeout:.0f} s, its time limit (--chapter-timeout)")
                    if not view:
                        placeholder_notebook(bdir / "executed" / f"{name}.ipynb", name, res.error)
                elif result.exists():
                    res = ChapterResult(**json.loads(result.read_text()))
                else:  # the process itself died
                    res = ChapterResult(name, False, time.time() - t0, {}, f"chapter process died (exit {rc})")
                    if not view:
                        placeholder_notebook(bdir / "executed" / f"{name}.ipynb", name, res.error)
                del running[tag]
                if not view:
                    ended.add(name)
                pass_on_log(bdir / "logs" / f"{tag}.log", tag)
                on_result(name, view, res)
    except BaseException:
        for proc, *_ in running.values():
            kill_tree(proc.pid)
        raise
