"""How claims read: the chapter's claims table (:func:`markdown_table`) and the status of each paper
item from its claims (:func:`item_status`); the records and their badges are
:mod:`companion.claims.record`'s."""

from __future__ import annotations

from companion.claims.expectations import _fmt
from companion.claims.hypotheses import hypothesis_table
from companion.claims.record import _cell, badge, control_text
from companion.claims.references import paper_items
from companion.events import NOT_OBSERVED


def markdown_table(records: list, with_chapter: bool = True) -> str:
    """The paper's claims, then the hypotheses (:mod:`companion.claims.hypotheses`), then where each bound
    comes from, then the consistency checks."""
    if not records:
        return "*No claims recorded.*"
    paper = [c for c in records if c.kind == "paper"]
    findings = [c for c in records if c.kind == "finding"]
    checks = [c for c in records if c.kind == "consistency"]
    hypotheses = [c for c in records if c.kind == "hypothesis"]

    def table(recs: list) -> list[str]:
        head = (["chapter"] if with_chapter else []) + ["claim", "paper", "quantity", "measured", "expected",
                                                        "seeds", "verdict"]
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for c in recs:
            note = f" — {c.reason}" if c.reason else ""
            seeds = f"{c.seeds}: {_fmt(c.per_seed)}" if c.per_seed else (f"one ({c.one_value})" if c.one_value else "—")
            seeds += f" ({c.undecided})" if c.undecided else ""
            seeds += "".join(f"<br>{control_text(x)}" for x in c.controls or ())
            seeds += f" ({c.vacuous})" if c.vacuous else ""
            cells = ([c.chapter] if with_chapter else []) + [
                f"`{c.id}`", c.paper_ref, c.statement, _fmt(c.measured), c.expected, seeds, badge(c.verdict) + note]
            rows.append("| " + " | ".join(_cell(x) for x in cells) + " |")
        return rows

    out = table(paper) if paper else ([] if hypotheses or findings else ["*No claims of the paper recorded.*"])
    if findings:
        out += ["", "**Findings of this reproduction** (not claims of the paper; decided by the same rules):", "",
                *table(findings)]
    if hypotheses:
        out += ["", hypothesis_table(hypotheses, with_chapter=with_chapter)]
    sourced = [c for c in records if (c.quote or c.basis) and c.kind != "hypothesis"]
    if sourced:
        out += ["", "**What each claim tests, and where its bound comes from:**", ""]
        for c in sourced:
            quote = f" The paper: “{c.quote}”" if c.quote else ""
            basis = "the number is the paper's" if c.basis == "paper" else c.basis
            controls = "".join(f" Control: {x['name']} — {x['why']}." for x in c.controls or ())
            controls += f" No control: {c.no_control}." if c.no_control else ""
            out.append(f"- `{c.id}` ({c.paper_ref}).{quote} Bound: {basis}.{controls}")
    if checks:
        out += ["", "**Consistency checks** (they hold by construction: a failure means a bug, a pass is not "
                "evidence for the paper; counted apart):", ""] + table(checks)
    return "\n".join(out)


#: what a paper item's claims say about it, as a whole (:func:`item_status`)
STATUSES = ("reproduced", "partly", "undecided", "not reproduced", "not observed", "absent")


def item_status(records: list) -> str:
    """A paper item (figure, table, equation) from its claims of the paper: every one held →
    reproduced; some → partly; none, with every measured event not observed → not observed;
    none, with some undecided and none failed → undecided; none → not reproduced; no claim → absent.
    Consistency checks do not count."""
    paper = [c for c in records if c.kind == "paper"]
    if not paper:
        return "absent"
    held = [c.verdict == "held" for c in paper]
    if all(held):
        return "reproduced"
    if any(held):
        return "partly"
    if all(c.measured is NOT_OBSERVED for c in paper):
        return "not observed"
    if any(c.verdict == "undecided" for c in paper) and not any(c.verdict == "failed" for c in paper):
        return "undecided"
    return "not reproduced"


def item_statuses(records: list) -> str:
    """One line per status: the paper items whose claims give it (:func:`item_status`), in the
    order the claims name them; e.g. ``reproduced — Fig. 1, Fig. 3`` (items with no claim are
    the report's to list)."""
    items: list[str] = []
    for r in records:
        if r.kind == "paper":  # an item checked only for consistency has no status of its own
            items += [i for i in paper_items(r.paper_ref) if i not in items]
    status = {i: item_status([r for r in records if i in paper_items(r.paper_ref)]) for i in items}
    lines = [f"- {status_badge(s)} {', '.join(i for i in items if status[i] == s)}"
             for s in STATUSES if s in status.values()]
    return "**Paper items at this build**, each from its claims of the paper:\n\n" + "\n".join(lines) if lines else ""


def status_badge(status: str) -> str:
    return f'<span class="claim-badge item-{status.replace(" ", "-")}">{status}</span>'
