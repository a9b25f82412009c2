"""A claim's record and the vocabulary of verdicts, next to the bottom of :mod:`companion.claims`.

A :class:`Claim` is what a chapter's check leaves behind — the paper's item and words, the value
measured (per seed), the expectation, the verdict and why — written to ``<claims dir>/<chapter>.json``
and read back by the report and ``companion claims`` (:func:`load_claims`). The verdict names and
their badges live here too, so that every other claims module (the recorder, the hypotheses, the
tables) reads one vocabulary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import runmode
from companion.claims.expectations import _fmt
from companion.events import NOT_OBSERVED
from companion.store.entries import repo_root

#: the verdicts of a claim of the paper; only ``failed`` fails a build (``undecided``: the seeds could not
#: decide it, shown amber with their values and counted apart; ``vacuous``: it held, but so did its control,
#: a run without the paper's effect — never counted as held)
VERDICTS = ("held", "failed", "known-deviation", "undecided", "vacuous")
#: the verdicts of a hypothesis (:meth:`Claims.hypothesis`); none fails the build (``not applicable``: the
#: event the test needs — a test clock — never arrived; ``vacuous``: the prediction held, and so did a null clock)
HYPOTHESIS_VERDICTS = ("supported", "refuted", "undecided", "not applicable", "vacuous")
#: claims of the paper, checks that hold by construction (counted apart), and hypotheses that test
#: one paper's explanation in a setting (the synthesis chapter; counted apart, never failing a build)
KINDS = ("paper", "finding", "consistency", "hypothesis")
#: kinds decided from trained runs, with the seed rules and controls of the paper's claims: "finding" is a result
#: of this reproduction that the paper does not state (often one against it), counted apart from the paper's claims
MEASURED_KINDS = ("paper", "finding")
#: profiles at which a claim must carry its quote and basis, and trained claims ≥ 3 seeds
STRICT_PROFILES = ("cpu", "paper")



#: the badge of each verdict of a claim of the paper
BADGE = {"held": "held", "failed": "FAILED", "known-deviation": "known deviation", "undecided": "undecided",
         "vacuous": "vacuous"}
#: the badges of hypotheses (:meth:`Claims.hypothesis`) and of the cells of :func:`verdict_table`
HYPOTHESIS_BADGE = {"supported": "supported", "refuted": "refuted", "undecided": "undecided",
                    "definition-dependent": "definition-dependent", "not applicable": "not applicable",
                    "vacuous": "vacuous"}


def badge(verdict: str) -> str:
    """A verdict as a text badge (styled by ``_static/companion.css``; readable without it)."""
    text = BADGE.get(verdict) or HYPOTHESIS_BADGE[verdict]
    return f'<span class="claim-badge claim-{verdict.replace(" ", "-")}">{text}</span>'


def control_text(c: dict) -> str:
    """One control of a claim (:meth:`ControlRun.record`) in words: its name, the seeds that meet the
    claim's bound, and its values."""
    label = c["name"] if c["name"].startswith("null clock") else f"control ({c['name']})"
    if c["per_seed"]:
        return f"{label}: {c['seeds_held']}/{len(c['per_seed'])} meet the bound: {_fmt(c['per_seed'])}"
    return f"{label}: {_fmt(c['measured'])}, {'meets' if c['passes'] else 'misses'} the bound"


def _cell(text: Any) -> str:
    """Text safe inside a markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


@dataclass(frozen=True)
class Claim:
    id: str
    paper_ref: str
    statement: str
    measured: Any
    expected: str
    verdict: str
    profile: str
    chapter: str
    reason: str | None = None  # why a known deviation is expected
    # the form of Claims.claim (absent from claims made with the older Claims.check)
    quantity: str | None = None  # what is measured, e.g. "t_test / t_train"
    quote: str | None = None  # the paper's words the claim tests
    basis: str | None = None  # "paper", or the argument for the bound
    kind: str = "paper"  # or "consistency": holds by construction, counted apart
    per_seed: list | None = None  # one value per seed
    rule: str | None = None  # how per_seed decides
    seeds_held: int | None = None  # seeds whose own value meets the expectation
    margin: float | None = None  # distance of the deciding value from the bound, relative
    one_value: str | None = None  # why a claim from a trained run rests on one value
    undecided: str | None = None  # why the seeds could not decide (too few, on both sides of the bound)
    # controls: the same measurement on runs without the paper's effect (ControlRun.record), or why none applies
    controls: list | None = None
    no_control: str | None = None
    vacuous: str | None = None  # why the claim is vacuous (a control passed too)
    applicable: list | None = None  # hypotheses: per seed, whether the event the test needs happened
    # hypotheses (Claims.hypothesis) only
    explanation: str | None = None  # whose explanation is tested, e.g. "Kumar et al."
    setting: str | None = None  # where it is tested, e.g. "transformer, a + b mod 47"
    refuted_if: str | None = None  # the outcome that would refute it, stated before the run
    group: str | None = None  # claims that are one test under different definitions

    @property
    def ok(self) -> bool:
        return self.verdict != "failed"

    @property
    def seeds(self) -> str:
        """``"3/3"`` (seeds that hold of seeds run), or ``"—"`` for a single value."""
        return f"{self.seeds_held}/{len(self.per_seed)}" if self.per_seed else "—"

    def _repr_markdown_(self) -> str:
        """Shown in the chapter where the claim is checked."""
        reason = f" ({self.reason})" if self.reason else ""
        seeds = f", held in {self.seeds} seeds ({_fmt(self.per_seed)})" if self.per_seed else ""
        seeds += f"; {self.undecided}" if self.undecided else ""
        seeds += "".join(f"; {control_text(c)}" for c in self.controls or ())
        seeds += f"; {self.vacuous}" if self.vacuous else ""
        return (f"{badge(self.verdict)}{reason} — `{self.id}` ({self.paper_ref}): {self.statement}. "
                f"Measured **{_fmt(self.measured)}**, expected {self.expected}{seeds}.")


def verdict(holds: bool, known_deviation: str | None) -> str:
    """The verdict table of the module docstring."""
    if known_deviation is None:
        return "held" if holds else "failed"
    return "failed" if holds else "known-deviation"


#: where a chapter executed outside ``companion build`` (papermill, JupyterLab, ``python``) writes its
#: claims, under the repository: beside the published book, never into it
RERUN_CLAIMS = Path("_build") / "reruns" / "claims"


def claims_dir() -> Path:
    """Where this process's chapters write their claims: the folder it is given in
    run mode's ``claims_dir`` (:mod:`companion.runmode`; a build gives each build its own), else
    :data:`RERUN_CLAIMS`. Never the published ``_build/claims``: only ``companion build`` publishes claims."""
    if (given := runmode.current().claims_dir) is not None:
        return given
    return (repo_root() or Path.cwd()) / RERUN_CLAIMS


def claim_files(directory: Path) -> list[Path]:
    """The chapters' claim files under ``directory`` (``<chapter>.json``; hidden files such as a build's
    lock are not claims)."""
    return sorted(f for f in Path(directory).glob("*.json") if not f.name.startswith("."))


def load_claims(directory: Path) -> list[Claim]:
    """Every claim recorded under ``directory`` (a build's ``claims`` folder, or a re-run's)."""
    out: list[Claim] = []
    def back(v: Any) -> Any:  # the sidecar spells NOT_OBSERVED as its name
        return NOT_OBSERVED if v == repr(NOT_OBSERVED) else v

    for f in claim_files(directory):
        for d in json.loads(f.read_text()):
            d["measured"] = back(d["measured"])
            if d.get("per_seed"):
                d["per_seed"] = [back(v) for v in d["per_seed"]]
            out.append(Claim(**d))
    return out
