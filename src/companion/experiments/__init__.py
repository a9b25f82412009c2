"""One module per chapter: named, cached experiment functions (config in, curves out).

Every chapter module defines

* frozen config dataclasses whose defaults are the paper's values, and the profiles
  (``smoke``/``cpu``/``paper``) as ``dataclasses.replace`` of them;
* experiment functions decorated with :func:`companion.store.cache.experiment`;
* one registry: ``CONFIGS`` (name -> profile -> config) and ``RUNNERS`` (name -> function of
  (config, device)), with ``config(name, profile, seed)``, ``run(name, profile, device, seed)`` and
  ``run_all(profile, device, seed)``, which runs every entry so that ``companion run CHAPTER`` can
  fill the cache on a machine without Jupyter (the synthesis chapter has ``run_all`` only).

:data:`CHAPTERS` maps a chapter's name (its file ``book/<name>.py``) to its module.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from companion.settings import one_of

CHAPTERS = {
    "grokking": "companion.experiments.grokking",
    "linear_estimators": "companion.experiments.linear_estimators",
    "progress_measures": "companion.experiments.progress_measures",
    "lazy_rich": "companion.experiments.lazy_rich",
    "groktransfer": "companion.experiments.groktransfer",
    "synthesis": "companion.experiments.synthesis",
}


def chapter_module(name: str) -> ModuleType:
    one_of("chapter", name, list(CHAPTERS))
    return importlib.import_module(CHAPTERS[name])
