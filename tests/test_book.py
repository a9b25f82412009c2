"""The book as a reader gets it: a smoke build of every chapter, opened in headless Chromium.

The build runs once per test session (it is `make test-e2e`'s tier, marker `book`); the pages are then
checked in Debian's chromium driven by playwright-core: each chapter page loads, shows its
figures (images with a non-zero rendered size), has no error output, and renders its math with
the vendored MathJax, without a network.
"""

import json
import os
import shutil
import subprocess

import pytest
from conftest import ROOT, companion

from companion.claims import load_claims
from companion.pipeline.build import toc_chapters

OUT = ROOT / "_build" / "test-smoke"
PLAYWRIGHT = ROOT / ".vendor" / "node_modules" / "playwright-core"
CHAPTERS = toc_chapters(ROOT)


@pytest.fixture(scope="module")
def smoke_book():
    proc = companion("build", "--profile", "smoke", "--out", str(OUT), timeout=1800)
    print(proc.stdout[-4000:], proc.stderr[-4000:])
    return proc


@pytest.mark.book
def test_smoke_build_succeeds(smoke_book):
    assert smoke_book.returncode == 0, smoke_book.stderr[-3000:]
    build = json.loads((OUT / "build.json").read_text())
    assert sorted(build["chapters"]) == sorted(CHAPTERS)
    assert all(c["ok"] for c in build["chapters"].values())


@pytest.mark.book
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_records_claims(smoke_book, chapter):
    recs = [r for r in load_claims(OUT / "claims") if r.chapter == chapter]
    assert recs, f"{chapter} recorded no claims"
    assert all(r.profile == "smoke" for r in recs)
    nb = json.loads((OUT / "executed" / f"{chapter}.ipynb").read_text())
    assert not nb["metadata"]["papermill"].get("exception")
    assert nb["metadata"]["papermill"]["parameters"]["profile"] == "smoke"


@pytest.mark.book
def test_report_lists_every_chapter_and_claim(smoke_book):
    report = (OUT / "html" / "book" / "report.html").read_text()
    for rec in load_claims(OUT / "claims"):
        assert rec.id in report
    for ch in CHAPTERS:
        assert f"{ch}.html" in report


def browse(pages):
    node = shutil.which("node")
    if node is None or not PLAYWRIGHT.exists() or not shutil.which("chromium"):
        pytest.fail("the browser test needs node, playwright-core and chromium: run `make test-e2e`, "
                    "which installs them")
    proc = subprocess.run([node, str(ROOT / "tests" / "browser" / "check_pages.mjs"), str(PLAYWRIGHT),
                           *map(str, pages)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "CHROMIUM": shutil.which("chromium")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["file"]: r for r in json.loads(proc.stdout.strip().splitlines()[-1])}


@pytest.fixture(scope="module")
def pages(smoke_book):
    html = OUT / "html" / "book"
    files = [html / f"{c}.html" for c in CHAPTERS] + [html / "intro.html", html / "report.html"]
    return browse(files)


@pytest.mark.book
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_page_shows_figures_without_errors(pages, chapter):
    page = pages[str(OUT / "html" / "book" / f"{chapter}.html")]
    assert page["loaded"], page["error"]
    assert page["text"] > 500
    imgs = page["images"]
    assert imgs, "no figures on the page"
    assert all(i["complete"] and i["width"] > 0 and i["height"] > 0 for i in imgs), imgs
    assert page["errorOutputs"] == 0 and not page["tracebackText"]


@pytest.mark.book
def test_verdicts_are_visible_text_badges(pages):
    """Verdicts and paper-item statuses are text badges styled by the book's CSS (emoji would
    render as empty boxes without an emoji font)."""
    report = pages[str(OUT / "html" / "book" / "report.html")]
    badges = report["badges"]
    assert badges, "the report shows no badges"
    assert all(b["text"] and b["width"] > 10 for b in badges), badges[:5]
    assert {b["text"] for b in badges} & {"held", "FAILED", "known deviation"}
    assert {b["text"] for b in badges} & {"reproduced", "partly", "not reproduced", "not observed", "absent"}
    assert any(b["background"] not in ("rgba(0, 0, 0, 0)", "transparent") for b in badges)  # the CSS applied
    grokking = pages[str(OUT / "html" / "book" / "grokking.html")]
    assert any(b["text"] for b in grokking["badges"])


@pytest.mark.book
def test_report_shows_each_chapters_figures_as_thumbnails(pages):
    """Every paper item with a re-drawn figure has a thumbnail in the report (a real image, with a
    size), for every chapter."""
    report = pages[str(OUT / "html" / "book" / "report.html")]
    thumbs = [i for i in report["images"] if "thumbs/" in (i["src"] or "")]
    assert thumbs, "the report shows no figure thumbnails"
    assert all(i["complete"] and i["width"] > 0 and i["height"] > 0 for i in thumbs), thumbs[:5]
    assert {i["src"].rsplit("/", 1)[-1].split("-")[0] for i in thumbs} == set(CHAPTERS)


@pytest.mark.book
def test_math_renders_offline(pages):
    with_math = [p for p in pages.values() if p["mathSource"] > 0]
    assert with_math, "no page has math"
    for p in with_math:
        assert p["mathRendered"] > 0, f"MathJax did not typeset {p['file']}"
    for p in pages.values():
        assert not [u for u in p["external"] if "mathjax" in u.lower()], p["external"]


@pytest.mark.book
def test_same_profile_and_seed_give_identical_claims(smoke_book, tmp_path):
    """A second, fresh build of a chapter reproduces every claim value bit for bit."""
    proc = companion("build", "--profile", "smoke", "--chapter", "grokking", "--fresh",
                     "--out", str(tmp_path), env={"COMPANION_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = {r.id: r.measured for r in load_claims(OUT / "claims") if r.chapter == "grokking"}
    second = {r.id: r.measured for r in load_claims(tmp_path / "claims")}
    assert first and json.dumps(first, sort_keys=True, default=str) == json.dumps(second, sort_keys=True, default=str)


#: what an interpolation that found no value leaves in a sentence: "from  it", "(final )", "()"
PLACEHOLDERS = (r"\S  +\S", r"\(\s*\)", r"\(\s", r"\s\)", r"\s,", r"\bNone\b", r"\{\s*\}", r"\{[a-z_]\w*[.(\[]")


def blanks(text: str) -> list[str]:
    """Each placeholder pattern found in ``text``, with the words around it."""
    import re

    return [text[max(0, m.start() - 30):m.end() + 30] for p in PLACEHOLDERS for m in re.finditer(p, text)]


def test_blank_finder_finds_the_texts_of_an_empty_field():
    assert blanks("from  it fitted the training set and ended below 90% test (final )")
    assert blanks("the target never reached 95% ()") and blanks("seeds at None")
    assert blanks("(d = 16, {race.epochs} epochs)") and not blanks(r"$\\mathbb{R}^{d_{out}}$ :::{dropdown}")
    assert not blanks("held in 3/3 seeds (0.97, 0.98, 0.99); final test 0.51")


@pytest.mark.book
def test_every_text_about_the_runs_is_filled_in(smoke_book):
    """Claims' statements, reasons and notes, and every Markdown a chapter displays, are formatted from the
    run's values: none carries the mark of an empty interpolation (:data:`PLACEHOLDERS`)."""
    found = []
    for r in load_claims(OUT / "claims"):
        for field in ("statement", "quantity", "reason", "undecided", "one_value", "setting"):
            found += [f"{r.chapter}/{r.id}.{field}: …{b}…" for b in blanks(getattr(r, field) or "")]
    for ch in CHAPTERS:
        nb = json.loads((OUT / "executed" / f"{ch}.ipynb").read_text())
        for cell in nb["cells"]:
            for out in cell.get("outputs", []):
                md = out.get("data", {}).get("text/markdown")
                if md:  # a table's cell alignment is not prose: judge the lines that are not table rows
                    prose = "\n".join(line for line in "".join(md).splitlines() if not line.startswith("|"))
                    found += [f"{ch} (displayed Markdown): …{b}…" for b in blanks(prose)]
    assert not found, "texts with an empty field:\n" + "\n".join(found[:40])


def tree_digest(folder) -> dict[str, str]:
    """sha256 of every file under ``folder``, links followed (the published book is links into builds/)."""
    import hashlib

    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()} if folder.exists() else {}


@pytest.mark.book
def test_a_papermill_rerun_leaves_the_published_book_alone(smoke_book, tmp_path):
    """The README's re-run (jupytext | papermill) writes its claims beside the book, under
    ``_build/reruns/claims``, never through a published build's ``claims`` link."""
    before = {d: tree_digest(d) for d in (OUT, ROOT / "_build" / "claims")}
    before_current = {d: os.path.realpath(d / "current") for d in (OUT, ROOT / "_build")}
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_CLAIMS")}
    bin_ = ROOT / ".venv" / "bin"
    nb = subprocess.run([str(bin_ / "jupytext"), "--to", "ipynb", "--output", "-", "book/grokking.py"],
                        cwd=ROOT, capture_output=True, check=True, env=env).stdout
    proc = subprocess.run([str(bin_ / "papermill"), "-", str(tmp_path / "grokking-rerun.ipynb"), "-k", "python3",
                           "-p", "profile", "smoke", "-p", "seed", "3"], input=nb, cwd=ROOT, capture_output=True,
                          env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:].decode()
    assert {d: tree_digest(d) for d in before} == before
    assert {d: os.path.realpath(d / "current") for d in before_current} == before_current
    rerun = json.loads((ROOT / "_build" / "reruns" / "claims" / "grokking.json").read_text())
    assert rerun and all(r["profile"] == "smoke" for r in rerun)
