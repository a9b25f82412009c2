"""The library's shape, as the README's Architecture section states it: which folder may import
which, modules a reader can hold in mind, and chapters that narrate instead of compute."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "src" / "companion"
FOLDERS = ("data", "models", "train", "measures", "theory", "experiments", "figures")
#: what each folder may import from the library (besides itself and the leaf modules below)
ALLOWED = {
    "data": set(),
    "models": {"data"},
    "train": {"models", "data", "theory", "slices"},
    "measures": {"models", "data", "train", "events", "slices"},
    "theory": {"models", "data", "measures", "events", "slices"},
    "experiments": {"data", "models", "train", "measures", "theory", "cache", "kept", "events", "profiles",
                    "slices", "claims", "expectations", "runs"},
    "figures": {"plotting", "events"},
}
#: modules with no library imports of their own, usable everywhere
LEAVES = {"settings", "linalg"}
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


def test_the_readme_architecture_names_every_folder_of_the_library():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Architecture"):]
    section = section[:section.index("\n## ", 4)] if "\n## " in section[4:] else section
    folders = sorted(p.name for p in LIB.iterdir() if p.is_dir() and p.name != "__pycache__")
    missing = [f for f in folders if f"`{f}/`" not in section]
    assert not missing, f"README Architecture does not describe: {missing}"
