"""A GPU window's campaign: every chapter's experiments at a profile that are not yet kept, ordered by the
paper claims each one decides per estimated second (``companion run --order value``).

Which claims an experiment decides is read off the chapter's registry (``CONFIGS``/``RUNNERS`` of
:mod:`companion.experiments`) and the claims of the last build: an experiment planned by the registry entry
``fig1b`` decides the paper claims whose reference names Fig. 1b (:func:`mentions`), and one that several
entries plan decides all of theirs. Its cost is the dry run's estimate on the device asked for
(:func:`companion.pipeline.runs.load_estimates`, written by ``companion run --dry-run``); experiments never
probed there come after the probed ones, most claims first. Experiments already kept
(:func:`companion.store.kept.find`) are left out: a window is spent on what the book lacks.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from companion import runmode
from companion.experiments import chapter_module
from companion.pipeline.runs import load_estimates
from companion.store import cache, entries, kept
from companion.store.tasks import Task

#: a registry name's paper item: its kind, number and letter (``fig13_left`` → Fig. 13)
_NAME = re.compile(r"^(fig|eq|table|thm|lemma)(\d+)([a-z]?)(?:_|$)")
#: how a claim's reference spells each kind (a list "Figs. 1b, 6a" names every item after the word)
_WORD = {"fig": r"Figs?\.", "eq": r"Eqs?\.", "table": r"Tables?", "thm": r"Thm\.?", "lemma": r"Lemma"}


def mentions(name: str) -> re.Pattern | None:
    """The pattern of the paper item a registry name stands for, as a claim's reference writes it:
    ``fig1b`` matches "Fig. 1b" and "Figs. 6a, 1b" but not "Fig. 1" or "Fig. 11b"; ``fig1`` matches "Fig. 1"
    but not "Fig. 1b"; ``eq9`` matches "Eq. 9". None for a name that is no paper item."""
    m = _NAME.match(name)
    if m is None:
        return None
    kind, number, letter = m.groups()
    item = rf"(?<![0-9a-z]){number}{letter}(?![0-9a-z])"
    return re.compile(rf"{_WORD[kind]}\s*(?:[0-9a-z()]+\s*(?:,|and|&|–|-)\s*)*{item}")


def claims_per_entry(names, records: list[dict]) -> dict[str, int]:
    """For each registry name, how many of the paper's claims (``kind`` "paper") among ``records`` (a claims file's
    entries) name its item in their reference (``paper_ref``)."""
    paper = [r for r in records if r.get("kind", "paper") == "paper"]
    out = {}
    for n in names:
        pattern = mentions(n)
        out[n] = 0 if pattern is None else sum(bool(pattern.search(r.get("paper_ref") or r.get("ref") or ""))
                                               for r in paper)
    return out


@dataclass(frozen=True)
class Planned:
    """One top-level experiment of a campaign: the task, the registry entries that plan it, the paper claims
    those decide, its estimated seconds (NaN: never probed on this device) and whether it is kept already."""

    task: Task
    entries: tuple
    claims: int
    estimate: float
    kept: bool

    @property
    def value(self) -> float:
        """Claims decided per estimated second (NaN when there is no estimate)."""
        return self.claims / max(self.estimate, 1.0) if math.isfinite(self.estimate) else math.nan


def _entry_tasks(module, chapter: str, name: str, profile: str, device: str, seed: int) -> list[Task]:
    """The top-level experiments one registry entry computes, planned without computing them."""
    cache.PLAN[:] = []
    with runmode.using(planning=True):
        module.run(name, profile, device, seed)
    tasks = [Task(chapter, fn.experiment_name, config, dev, entries.key(fn.experiment_name, config, dev))
             for fn, config, dev in cache.PLAN]
    cache.PLAN[:] = []
    return tasks


def plan(chapters, profile: str, device: str, seed: int = 0, claims_dir: Path | None = None) -> list[Planned]:
    """Every registry entry's experiments of ``chapters`` at ``profile``, one :class:`Planned` per experiment, with
    the claims of ``claims_dir`` (``<chapter>.json`` as a build writes; none there: no claims counted)."""
    estimates = load_estimates()
    out: dict[str, Planned] = {}
    for ch in chapters:
        module = chapter_module(ch)
        registry = getattr(module, "CONFIGS", None)
        if registry is None:
            raise ValueError(f"chapter {ch!r} has no registry (CONFIGS, RUNNERS): nothing to order")
        path = None if claims_dir is None else Path(claims_dir) / f"{ch}.json"
        records = json.loads(path.read_text()) if path is not None and path.exists() else []
        per_entry = claims_per_entry(registry, records)
        for name in registry:
            for t in _entry_tasks(module, ch, name, profile, device, seed):
                p = out.get(t.key)
                names = (p.entries if p else ()) + (name,)
                out[t.key] = Planned(t, names, sum(per_entry[n] for n in names),
                                     float(estimates.get(t.key, math.nan)),
                                     p.kept if p else kept.find(t.experiment, t.config) is not None)
    return list(out.values())


def order(planned: list[Planned]) -> list[Planned]:
    """What is not kept, the most paper claims per estimated second first; experiments without an estimate after
    those with one, the most claims first (ties keep the planning order)."""
    todo = [p for p in planned if not p.kept]
    probed = sorted((p for p in todo if math.isfinite(p.estimate)), key=lambda p: -p.value)
    unprobed = sorted((p for p in todo if not math.isfinite(p.estimate)), key=lambda p: -p.claims)
    return probed + unprobed


def table(planned: list[Planned]) -> str:
    """The campaign in order, one line per experiment, with the total estimate of what has one."""
    rows = order(planned)
    lines = [f"  {i + 1:>3}. {p.task.chapter}/{p.task.name:<20} {p.claims:>3} claim(s)  "
             + (f"{p.estimate:9.1f} s" if math.isfinite(p.estimate) else "  no estimate")
             + f"  ({', '.join(p.entries)})" for i, p in enumerate(rows)]
    known = [p.estimate for p in rows if math.isfinite(p.estimate)]
    done = sum(p.kept for p in planned)
    lines.append(f"  {len(rows)} experiment(s) to run ({done} kept already): {sum(known):.0f} s estimated for "
                 f"{len(known)}, {len(rows) - len(known)} never probed on this device")
    return "\n".join(lines)


#: a kept result's standing against the registries (:func:`kept_status`)
KEPT_STATES = ("current", "fewer seeds", "nested", "stale")


def kept_status(chapters, profile: str) -> list[dict]:
    """Every kept result of ``profile`` (``results/<profile>/<chapter>/``) for ``chapters``, each with its standing:

    * ``current`` — a registry entry plans exactly this experiment and configuration;
    * ``fewer seeds`` — it is a planned configuration's run at its first seeds (:func:`kept.first_seeds`), which a
      page of kept results reads for the seeds it has;
    * ``nested`` — its experiment is computed inside another one (never planned at the top), so it is not checked;
    * ``stale`` — an experiment the registries plan, at a configuration none of them asks for any more (a setting
      changed since it was kept): what a campaign will compute again; :func:`kept.rekey` migrates renames.
    """
    planned = plan(chapters, profile, "cpu")
    exact = {kept.filename(p.task.experiment, p.task.config) for p in planned}
    prefixes = {kept.filename(p.task.experiment, kept.first_seeds(p.task.config, k))
                for p in planned for k in range(1, kept.most_seeds(p.task.config))}
    top = {p.task.name for p in planned}
    rows = []
    for m in kept.index():
        path = Path(m["path"])
        if path.parent.parent.name != profile or path.parent.name not in chapters:
            continue
        name = path.name
        state = ("current" if name in exact else "fewer seeds" if name in prefixes
                 else "stale" if name.rsplit("-", 1)[0] in top else "nested")
        rows.append({"chapter": path.parent.name, "file": name, "state": state, "date": m.get("date", "?")[:10],
                     "commit": m.get("commit", "?")[:7], "device": m.get("device", "?"), "bytes": m["bytes"]})
    return rows


def kept_status_text(rows: list[dict]) -> str:
    """:func:`kept_status` as text: the counts per chapter, then every stale result."""
    by: dict[str, dict[str, int]] = {}
    for r in rows:
        by.setdefault(r["chapter"], dict.fromkeys(KEPT_STATES, 0))[r["state"]] += 1
    lines = [f"  {'chapter':<20}" + "".join(f"{s:>13}" for s in KEPT_STATES)]
    lines += [f"  {ch:<20}" + "".join(f"{n[s]:>13}" for s in KEPT_STATES) for ch, n in sorted(by.items())]
    stale = [r for r in rows if r["state"] == "stale"]
    if stale:
        lines.append(f"stale (no configuration asks for them; a campaign computes them again): {len(stale)}")
        lines += [f"  {r['chapter']}/{r['file']}  {r['date']} {r['commit']} on {r['device']}" for r in stale]
    return "\n".join(lines)
