"""The library's shape, as the README's Architecture section states it: which folder may import
which, modules a reader can hold in mind, and chapters that narrate instead of compute."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "src" / "companion"
#: the library's packages: the science (data → models → train/measures/theory → experiments → figures)
#: and the book machine (store → claims → pipeline)
FOLDERS = ("data", "models", "train", "measures", "theory", "experiments", "figures", "store", "claims", "pipeline")
#: what each package may import from the library (besides itself and the leaf modules below)
ALLOWED = {
    "data": set(),
    "models": {"data"},
    "train": {"models", "data", "theory", "store"},
    "measures": {"models", "data", "events", "store"},
    "theory": {"models", "data", "measures", "events", "store"},
    "experiments": {"data", "models", "train", "measures", "theory", "store", "events", "profiles", "claims"},
    "figures": {"plotting", "events"},
    # storing results: entries at the bottom; the @experiment cache, kept results, slices, tasks, upkeep
    "store": {"numerics"},
    # deciding claims: expectations and the record at the bottom; hypotheses, tables, the recorder
    "claims": {"events", "store"},
    # running and publishing the book: runs, execute, report, publish, build, kept paper-scale results
    "pipeline": {"store", "claims", "experiments", "profiles", "numerics"},
}
#: modules with no library imports of their own (but one another), usable everywhere
LEAVES = {"settings", "linalg", "runmode"}
#: what may sit at the top of ``companion/``: the leaves every package uses, and the command line
TOP = {"__init__", "__main__", "cli", "events", "linalg", "numerics", "plotting", "profiles", "runmode", "settings"}
MAX_LINES = 400


def modules(folder: Path):
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def library_imports(path: Path) -> set[str]:
    """The top-level names of :mod:`companion` that ``path`` imports (``companion.x.y`` -> ``x``)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("companion"):
            parts = node.module.split(".")
            if len(parts) > 1:
                out.add(parts[1])
            else:
                out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("companion."))
    return out


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_folder_imports_only_what_the_architecture_allows(folder):
    wrong = {}
    for path in modules(LIB / folder):
        bad = library_imports(path) - ALLOWED[folder] - LEAVES - {folder}
        if bad:
            wrong[str(path.relative_to(LIB))] = sorted(bad)
    assert not wrong, f"imports outside the architecture: {wrong}"


def module_name(path: Path) -> str:
    rel = path.relative_to(LIB.parent).with_suffix("")
    return ".".join(rel.parts).removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Module → the library modules it imports, at the top of the file or inside a function
    (``from companion.x import y`` names module ``companion.x.y`` where that is a module)."""
    files = {module_name(p): p for p in modules(LIB)}
    graph = {}
    for mod, path in files.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("companion"):
                for a in node.names:
                    found.add(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in files else node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in files}
        graph[mod] = (found & files.keys()) - {mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_not_even_inside_functions():
    assert not cycles(import_graph()), f"import cycles: {cycles(import_graph())}"


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert not cycles({"a": {"b"}, "b": set()})


def test_library_imports_sit_at_the_top_of_the_file():
    """An import inside a function hides a dependency; the few that must stay there (a heavy
    import a light module avoids) say so in a comment on the line."""
    hidden = []
    for path in modules(LIB):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if (isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("companion")
                            and "#" not in lines[inner.lineno - 1]):
                        hidden.append(f"{path.relative_to(LIB)}:{inner.lineno}")
    assert not hidden, f"library imports inside functions, without a comment saying why: {sorted(set(hidden))}"


def test_only_leaves_and_the_command_line_sit_at_the_top_of_the_package():
    loose = sorted(p.stem for p in LIB.glob("*.py") if p.stem not in TOP)
    assert not loose, f"modules loose at the top of companion/ (move them into their package): {loose}"


def test_environment_variables_are_read_in_one_place():
    """Every ``COMPANION_*`` variable is read by :mod:`companion.runmode`, documented there; other
    modules ask it (the run mode, or ``runmode.variable``)."""
    import re

    from companion import runmode

    readers = {str(p.relative_to(LIB)) for p in modules(LIB) if p.name != "runmode.py"
               and re.search(r"(environ(\.get)?\(?\[?|getenv\()\s*[\"']COMPANION_", p.read_text())}
    assert not readers, f"modules reading COMPANION_* themselves: {sorted(readers)}"
    named = {n for p in modules(LIB) for n in re.findall(r"COMPANION_[A-Z_]+", p.read_text())}
    assert named <= set(runmode.VARIABLES), f"undocumented variables: {sorted(named - set(runmode.VARIABLES))}"
    readme = (ROOT / "README.md").read_text()
    assert all(f"`{n}`" in readme for n in runmode.VARIABLES), "the README's table of variables is incomplete"


def test_no_module_is_longer_than_a_reader_can_hold_in_mind():
    long = {str(p.relative_to(ROOT)): n for p in modules(LIB) if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_paper_specific_modules_live_in_their_kind_folder():
    papers = ("groktransfer", "lazy_rich", "linear_estimators", "progress_measures", "gu", "kumar", "levi", "xu")
    loose = [p.name for p in LIB.glob("*.py") if any(k in p.stem for k in papers)]
    assert not loose, f"paper-specific modules at the top of companion/: {loose}"


@pytest.mark.parametrize("chapter", sorted(p.stem for p in (ROOT / "book").glob("*.py")))
def test_chapters_narrate_and_the_library_computes(chapter):
    """No helper functions, lambdas or loops in a chapter (comprehensions that only build a
    figure's list of curves are loops too: they belong in figures/)."""
    tree = ast.parse((ROOT / "book" / f"{chapter}.py").read_text())
    found = [f"{type(n).__name__} at line {n.lineno}" for n in ast.walk(tree)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.For, ast.While,
                               ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp))]
    assert not found, f"book/{chapter}.py computes: {found}"


def cell_lines(text: str) -> dict[str, int]:
    """Non-blank lines in a py:percent chapter's markdown cells and in its code cells (the jupytext
    header, before the first cell, counts as neither)."""
    counts, kind = {"markdown": 0, "code": 0}, None
    for line in text.splitlines():
        if line.startswith("# %%"):
            kind = "markdown" if "[markdown]" in line else "code"
        elif kind and line.strip():
            counts[kind] += 1
    return counts


def test_cell_lines_counts_each_kind_of_cell():
    text = "# ---\n# jupyter: x\n# ---\n\n# %% [markdown]\n# # Title\n#\n# prose\n\n# %% tags=[\"x\"]\na = 1\n\nb = 2\n"
    assert cell_lines(text) == {"markdown": 3, "code": 2}


@pytest.mark.parametrize("chapter", sorted(p.stem for p in (ROOT / "book").glob("*.py")))
def test_chapters_read_as_lectures(chapter):
    """Prose carries a chapter: at least as many markdown lines as code lines. The paper's words and the
    argument for each bound sit in the markdown above the claims that test them, not in strings inside
    the calls."""
    n = cell_lines((ROOT / "book" / f"{chapter}.py").read_text())
    assert n["markdown"] >= n["code"], f"book/{chapter}.py: {n['markdown']} markdown lines, {n['code']} code lines"


def test_the_readme_architecture_names_every_folder_of_the_library():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Architecture"):]
    section = section[:section.index("\n## ", 4)] if "\n## " in section[4:] else section
    folders = sorted(p.name for p in LIB.iterdir() if p.is_dir() and p.name != "__pycache__")
    missing = [f for f in folders if f"`{f}/`" not in section]
    assert not missing, f"README Architecture does not describe: {missing}"


#: the chapters whose experiments package has the registry (the synthesis chapter's runs are its own)
REGISTRY_CHAPTERS = ("grokking", "groktransfer", "lazy_rich", "linear_estimators", "progress_measures")


@pytest.mark.parametrize("chapter", REGISTRY_CHAPTERS)
def test_every_experiments_package_has_one_registry(chapter):
    """``CONFIGS`` (name -> profile -> config) and ``RUNNERS`` (name -> function(config, device)) with
    the same names; ``config(name, profile, seed)`` for every name, a clear error for any other; ``run``
    and ``run_all``."""
    from companion.experiments import chapter_module
    from companion.profiles import ParameterError

    ex = chapter_module(chapter)
    assert list(ex.CONFIGS) == list(ex.RUNNERS), chapter
    assert callable(ex.run) and callable(ex.run_all)
    for name, profs in ex.CONFIGS.items():
        assert set(profs) == {"paper", "cpu", "smoke"}, (chapter, name)
        assert ex.config(name, "smoke") == profs["smoke"], (chapter, name)  # seed 0: the profile's own
        ex.config(name, "smoke", seed=2)
    with pytest.raises(ParameterError, match=f"unknown experiment 'nope'.*{list(ex.CONFIGS)[-1]}"):
        ex.config("nope", "smoke")
