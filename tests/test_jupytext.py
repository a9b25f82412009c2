"""Every chapter round-trips through jupytext (py:percent → notebook → py:percent, with the
project's jupytext.toml) unchanged, so editing it in JupyterLab as a paired notebook cannot
corrupt the source. Normalise a chapter with `python -m companion.pipeline.chapters_format`."""

import jupytext
import pytest
from conftest import ROOT

from companion.pipeline.build import read_toc, toc_chapters

CHAPTERS = sorted((ROOT / "book").glob("*.py"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_round_trip_is_identity(path):
    from jupytext.config import load_jupytext_config

    text = path.read_text()
    cfg = load_jupytext_config(str(path))
    nb = jupytext.reads(text, fmt="py:percent")
    assert jupytext.writes(nb, fmt="py:percent", config=cfg) == text


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_declares_its_parameters(path):
    nb = jupytext.reads(path.read_text(), fmt="py:percent")
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    for name in ("profile", "device", "seed"):
        assert f"{name} =" in cells[0].source


def test_every_chapter_is_in_the_toc():
    assert sorted(p.stem for p in CHAPTERS) == sorted(toc_chapters(ROOT))
    assert read_toc(ROOT)[0] == "book/intro"
