"""The build's failure path, on tiny books made here: a chapter that raises is reported by
name while the others execute and render; a failed claim and a known deviation that
unexpectedly holds fail a cpu build; smoke builds record but do not fail on claims. And what a
build guarantees: a bad command, a killed build or a second build leave the published book
byte for byte; a failing chapter keeps its last good page; a stuck chapter is stopped by name."""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

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


def make_book(root, chapters: dict):
    """A book of ``chapters`` (name → cell source) at ``root``, sharing the project's config and
    vendored MathJax."""
    (root / "book").mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", root)
    (root / "_static").mkdir()
    if (ROOT / ".vendor").exists():
        (root / ".vendor").symlink_to(ROOT / ".vendor")
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n"
                                   + "".join(f"  - file: book/{n}\n" for n in chapters)
                                   + "  - file: book/report\n")
    (root / "book" / "intro.md").write_text("# Tiny book\n")
    (root / "book" / "report.md").write_text("# Report\n")
    for name, body in chapters.items():  # a title, or Jupyter Book warns (and a warning fails a build)
        (root / "book" / f"{name}.py").write_text(HEADER + f"# %% [markdown]\n# # {name}\n\n" + PARAMS
                                                  + textwrap.dedent(body))
    return root


CDN = [] if (ROOT / ".vendor").exists() else ["--allow-cdn"]


@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory):
    return make_book(tmp_path_factory.mktemp("book"), CHAPTERS)


@pytest.mark.slow
def test_failing_chapter_is_named_and_the_others_render(tiny_book, tmp_path):
    env = {"COMPANION_CACHE_DIR": str(tmp_path / "cache")}
    proc = companion("build", "--profile", "cpu", *CDN, cwd=tiny_book, env=env)
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
    assert "recorded before the error" in report and "RuntimeError: this chapter is broken" in report
    build = json.loads((out / "build.json").read_text())
    assert build["chapters"]["good"]["ok"] and not build["chapters"]["bad"]["ok"]

    # at smoke, claims are recorded but only a chapter that raises fails the build
    proc = companion("build", "--profile", "smoke", "--chapter", "good", "--chapter", "strict", *CDN,
                     cwd=tiny_book, env=env)
    assert proc.returncode == 0, proc.stderr


# ----------------------------------------------------------------------------- guarantees
SAFE = {
    "quick": """
        # %%
        from companion.store import cache
        from companion.claims import Claims, at_least
        claims = Claims("quick", profile)

        @cache.experiment
        def square(n, device="cpu"):
            return {"y": n * n}

        claims.check("sq", "Fig. 1", "nine is at least one", float(square(3)["y"]), at_least(1))
        claims.table()
        """,
    "flaky": """
        # %%
        import os
        from companion.claims import Claims, at_least
        claims = Claims("flaky", profile)
        if os.environ.get("FLAKY_FAIL"):
            raise RuntimeError("flaky broke this time")
        print("the good flaky page")
        claims.check("ok", "Fig. 2", "one is at least zero", 1.0, at_least(0))
        claims.table()
        """,
    "slow": """
        # %%
        import os, time
        time.sleep(float(os.environ.get("SLOW_SECONDS", "0")))
        print("the slow page")
        """,
}


def snapshot(out):
    """Every published file (through the links) with its hash; caches and locks aside."""
    files = {}
    for top in ("html", "claims", "executed", "build.json"):
        p = out / top
        for f in ([p] if p.is_file() else sorted(p.rglob("*")) if p.exists() else []):
            if f.is_file():
                files[str(f.relative_to(out))] = hashlib.sha256(f.read_bytes()).hexdigest()
    return files


@pytest.fixture(scope="module")
def safe_book(tmp_path_factory):
    """A tiny book built once, all green: the book every test below must not lose."""
    root = make_book(tmp_path_factory.mktemp("safe"), SAFE)
    env = {"COMPANION_CACHE_DIR": str(root / "cache")}
    proc = companion("build", "--profile", "smoke", *CDN, cwd=root, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "_build" / "current").is_symlink()
    return root, env


@pytest.mark.slow
def test_a_bad_command_leaves_the_book_byte_identical(safe_book):
    root, env = safe_book
    before = snapshot(root / "_build")
    assert len(before) > 10
    import torch

    bad = [["--device", "cuda"]] if not torch.cuda.is_available() else []
    bad += [["--chapter", "nope"], ["-p", "lr=3"], ["--profile", "huge"]]
    for args in bad:
        proc = companion("build", "--profile", "smoke", *args, *CDN, cwd=root, env=env)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert snapshot(root / "_build") == before, args


@pytest.mark.slow
def test_a_killed_build_leaves_the_book_and_the_finished_experiment(safe_book):
    root, env = safe_book
    before = snapshot(root / "_build")
    shutil.rmtree(root / "cache")  # so that the build below computes `square` again
    # two workers: `quick` caches `square` while `slow` sleeps, whichever the build starts first (it
    # orders chapters by their times in the last build, which for these two differ only by noise)
    cmd = [sys.executable, "-m", "companion", "build", "--profile", "smoke", "--jobs", "2",
           "--chapter", "quick", "--chapter", "slow", *CDN]
    proc = subprocess.Popen(cmd, cwd=root, env={**os.environ, **env, "SLOW_SECONDS": "300"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240
    while not list((root / "cache").rglob("square-*.pkl")) and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(3)  # into the slow chapter
    from companion.pipeline.execute import kill_tree

    kill_tree(proc.pid)  # power loss: no cleanup runs
    proc.communicate()
    assert list((root / "cache").rglob("square-*.pkl")), "the finished experiment was not cached"
    assert snapshot(root / "_build") == before
    # the next build resumes: `square` is not recomputed, and the stale staging folder goes
    again = companion("build", "--profile", "smoke", "--chapter", "quick", *CDN, cwd=root, env=env)
    assert again.returncode == 0, again.stderr
    builds = [b for b in (root / "_build" / "builds").iterdir()]
    assert all((b / "published").exists() for b in builds) and len(builds) <= 2


@pytest.mark.slow
def test_a_failing_chapter_keeps_its_last_good_page(safe_book):
    root, env = safe_book
    proc = companion("build", "--profile", "smoke", "--chapter", "flaky", *CDN, cwd=root,
                     env={**env, "FLAKY_FAIL": "1"})
    assert proc.returncode == 1
    assert "chapter flaky raised: RuntimeError: flaky broke this time" in proc.stderr
    page = (root / "_build" / "html" / "book" / "flaky.html").read_text()
    assert "the good flaky page" in page and "failed in the latest build" in page
    assert "flaky broke this time" in page and "last successful page" in page
    report = (root / "_build" / "html" / "book" / "report.html").read_text()
    assert "RuntimeError: flaky broke this time" in report and "claim-failed" in report
    # failing again keeps one banner over the same good page; a green build removes it
    companion("build", "--profile", "smoke", "--chapter", "flaky", *CDN, cwd=root, env={**env, "FLAKY_FAIL": "1"})
    page = (root / "_build" / "html" / "book" / "flaky.html").read_text()
    assert page.count("failed in the latest build") == 1 and "the good flaky page" in page
    assert companion("build", "--profile", "smoke", "--chapter", "flaky", *CDN, cwd=root, env=env).returncode == 0
    assert "failed in the latest build" not in (root / "_build" / "html" / "book" / "flaky.html").read_text()


@pytest.mark.slow
def test_a_second_build_is_refused_while_one_runs(safe_book):
    from companion.store.dirlock import DirLock

    root, env = safe_book
    before = snapshot(root / "_build")
    with DirLock(root / "_build", "the output folder"):
        proc = companion("build", "--profile", "smoke", *CDN, cwd=root, env=env)
    assert proc.returncode == 2 and "is in use by pid" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert snapshot(root / "_build") == before
    with DirLock(root / "cache", "the results cache"):  # a `companion run` holds the cache
        proc = companion("build", "--profile", "smoke", *CDN, cwd=root, env=env)
    assert proc.returncode == 2 and "results cache" in proc.stderr


@pytest.mark.slow
def test_a_stuck_chapter_is_stopped_by_name_and_the_others_render(safe_book):
    root, env = safe_book
    t0 = time.time()
    proc = companion("build", "--profile", "smoke", "--chapter-timeout", "30", *CDN, cwd=root,
                     env={**env, "SLOW_SECONDS": "600", "COMPANION_PROGRESS_EVERY": "5"})
    assert time.time() - t0 < 300
    assert proc.returncode == 1
    assert "chapter slow raised: stopped after 30 s" in proc.stderr, proc.stderr
    assert "[quick] ok" in proc.stdout and "[flaky] ok" in proc.stdout
    assert re.search(r"\[build\] running: .*slow cell \d+/\d+, 0:\d\d", proc.stdout), proc.stdout  # live progress
    html = root / "_build" / "html" / "book"
    assert "the good flaky page" in (html / "flaky.html").read_text()
    slow = (html / "slow.html").read_text()
    assert "the slow page" in slow and "failed in the latest build" in slow  # its last good page


@pytest.mark.slow
def test_a_terminated_build_stops_its_chapters_and_keeps_the_book(safe_book):
    root, env = safe_book
    before = snapshot(root / "_build")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "build", "--profile", "smoke", "--chapter", "slow",
                             *CDN], cwd=root, env={**os.environ, **env, "SLOW_SECONDS": "300"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not list((root / "_build" / "builds").glob("*/jobs/slow.json")) and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(5)
    from companion.pipeline.execute import _descendants

    chapter_processes = _descendants(proc.pid)
    assert chapter_processes
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "the published book is unchanged" in err
    assert snapshot(root / "_build") == before
    assert all((b / "published").exists() for b in (root / "_build" / "builds").iterdir())
    time.sleep(1)

    def alive(pid):  # a zombie waiting to be reaped has ended
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    assert not [p for p in chapter_processes if alive(p)]


@pytest.mark.slow
def test_a_jupyter_book_warning_fails_the_build_and_is_named(tmp_path):
    root = make_book(tmp_path / "warn", {"refs": """
        # %% [markdown]
        # See {ref}`a-label-that-does-not-exist`.
        # %%
        print("a page with a broken reference")
        """})
    proc = companion("build", "--profile", "smoke", *CDN, cwd=root, env={"COMPANION_CACHE_DIR": str(tmp_path / "c")})
    assert proc.returncode == 1
    assert "Jupyter Book warned:" in proc.stderr and "a-label-that-does-not-exist" in proc.stderr
    assert (root / "_build" / "html" / "book" / "refs.html").exists()  # published all the same
