"""The build's failure path, on a tiny book made here: a chapter that raises is reported by
name while the others execute and render; a failed claim and a known deviation that
unexpectedly holds fail a cpu build; smoke builds record but do not fail on claims."""

import json
import shutil
import textwrap

import pytest

from conftest import ROOT, companion

HEADER = (ROOT / "book" / "grokking.py").read_text().split("# %%", 1)[0]
PARAMS = '# %% tags=["parameters"]\nprofile = "cpu"\ndevice = "auto"\nseed = 0\n\n'

CHAPTERS = {
    "good": """
        # %%
        from companion import plotting
        from companion.claims import Claims, at_least
        plotting.use_style()
        claims = Claims("good", profile)
        fig, ax = plotting.subplots()
        ax[0, 0].plot([0, 1], [1, seed])
        fig
        # %%
        claims.check("ok", "Fig. 1", "two is at least one", 2.0, at_least(1))
        claims.table()
        """,
    "bad": """
        # %%
        from companion.claims import Claims, at_least
        claims = Claims("bad", profile)
        claims.check("before", "Fig. 2", "recorded before the error", 1.0, at_least(0))
        # %%
        raise RuntimeError("this chapter is broken")
        """,
    "strict": """
        # %%
        from companion.claims import Claims, at_least
        claims = Claims("strict", profile)
        claims.check("stale", "Eq. 15", "a known deviation that now holds", 3.0, at_least(1),
                     known_deviation="the paper's factor of 2")
        claims.table()
        """,
}


@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory):
    root = tmp_path_factory.mktemp("book")
    (root / "book").mkdir()
    shutil.copy(ROOT / "_config.yml", root)
    (root / "_static").mkdir()
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n"
                                   + "".join(f"  - file: book/{n}\n" for n in CHAPTERS)
                                   + "  - file: book/report\n")
    (root / "book" / "intro.md").write_text("# Tiny book\n")
    (root / "book" / "report.md").write_text("# Report\n")
    for name, body in CHAPTERS.items():
        (root / "book" / f"{name}.py").write_text(HEADER + PARAMS + textwrap.dedent(body))
    return root


@pytest.mark.slow
def test_failing_chapter_is_named_and_the_others_render(tiny_book, tmp_path):
    env = {"COMPANION_CACHE_DIR": str(tmp_path / "cache")}
    proc = companion("build", "--profile", "cpu", cwd=tiny_book, env=env)
    out = tiny_book / "_build"
    assert proc.returncode == 1
    assert "chapter bad raised: RuntimeError: this chapter is broken" in proc.stderr
    assert "claim strict/stale (Eq. 15) failed" in proc.stderr
    assert "good" not in proc.stderr.replace("[good]", "")
    assert "[good] ok" in proc.stdout and "[bad] FAILED" in proc.stdout
    html = out / "html" / "book"
    good = (html / "good.html").read_text()
    assert "<img" in good and "two is at least one" in good
    bad = (html / "bad.html").read_text()
    assert "this chapter is broken" in bad  # the page shows the error instead of vanishing
    report = (html / "report.html").read_text()
    assert "recorded before the error" in report and "failed: RuntimeError" in report
    build = json.loads((out / "build.json").read_text())
    assert build["chapters"]["good"]["ok"] and not build["chapters"]["bad"]["ok"]

    # at smoke, claims are recorded but only a chapter that raises fails the build
    proc = companion("build", "--profile", "smoke", "--chapter", "good", "--chapter", "strict",
                     cwd=tiny_book, env=env)
    assert proc.returncode == 0, proc.stderr
