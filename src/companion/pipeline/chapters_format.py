"""Normalise chapter files to jupytext's canonical py:percent form (what JupyterLab writes back).

    python -m companion.pipeline.chapters_format [book/<chapter>.py ...]   # default: every chapter
"""

from __future__ import annotations

import sys
from pathlib import Path


def normalise(path: Path) -> bool:
    """Rewrite ``path`` in canonical form; True if it changed."""
    import jupytext
    from jupytext.config import load_jupytext_config

    text = path.read_text()
    new = jupytext.writes(jupytext.reads(text, fmt="py:percent"), fmt="py:percent",
                          config=load_jupytext_config(str(path)))
    if new != text:
        path.write_text(new)
    return new != text


if __name__ == "__main__":
    files = [Path(a) for a in sys.argv[1:]] or sorted(Path("book").glob("*.py"))
    for f in files:
        print(f"{f}: {'normalised' if normalise(f) else 'already canonical'}")
