"""A task: one top-level experiment call of a chapter, as ``companion run`` plans, probes and runs it.

It lives in the store because a chapter's experiments may regroup their own tasks (the progress
measures' batches of runs, :func:`companion.experiments.progress_measures.runs.batch_tasks`), and
the runner (:mod:`companion.pipeline.runs`) sits above the experiments.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Task:
    """One top-level experiment call of a chapter: ``experiment(config, device)``."""

    chapter: str
    experiment: str  # "module.qualname" of the cached experiment function
    config: Any
    device: str
    key: str  # the results-cache key
    members: tuple = ()  # a batch task (several experiments as one program): its members' keys

    @property
    def name(self) -> str:
        return self.experiment.rsplit(".", 1)[-1]

    def function(self):
        """The experiment function itself."""
        module, qualname = self.experiment.rsplit(".", 1)
        return getattr(importlib.import_module(module), qualname)
