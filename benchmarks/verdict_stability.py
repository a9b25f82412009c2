"""Benchmark: do the book's verdicts survive a shift of the seed set?

Compares two builds of the whole cpu book — ``companion build`` (seeds 0, 1, 2, …) and
``companion build --seed 1000 --out _build/seed1000`` (seeds 1000, 1001, …) — claim by claim with
:func:`companion.claims.text.diff`, and writes ``benchmarks/verdict_stability.json`` (every claim's two
verdicts and per-seed values, each build's numerics fingerprint and time) and the tables of
``benchmarks/verdict_stability.md`` between its ``<!-- tables -->`` markers (the prose around them, what
was done about each flip, is written by hand).

Run: ``python benchmarks/verdict_stability.py [A B]`` (default ``_build`` and ``_build/seed1000``: build
output folders, or their claims folders).
"""

import json
import sys
from pathlib import Path

from companion.claims import _fmt, load_claims
from companion.claims.text import counts, diff

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT = (ROOT / "_build", ROOT / "_build" / "seed1000")
a_out, b_out = (Path(p) for p in sys.argv[1:3]) if len(sys.argv) > 2 else DEFAULT


def claims_of(out: Path) -> Path:
    return out / "claims" if (out / "claims").is_dir() else out


def build_info(out: Path) -> dict:
    """The seed, fingerprint and finish time of the last build into ``out``, and the time of the last build of
    the whole book there (a later build of one chapter publishes into the same folder; its time is not the
    book's)."""
    try:
        b = json.loads((out / "build.json").read_text())
    except OSError:
        return {}
    whole = None
    for f in sorted((out / "builds").glob("*/build.json")):
        w = json.loads(f.read_text())
        if w.get("seed") == b.get("seed") and len(w.get("chapters", {})) >= 6:
            whole = w
    w = whole or b
    return {"seed": b.get("seed"), "seconds": round(w.get("seconds", 0)), "whole_book": whole is not None,
            "numerics": b.get("numerics"),
            "finished": b.get("finished"), "whole_book_finished": w.get("finished"),
            "chapters": {k: round(v["seconds"]) for k, v in w.get("chapters", {}).items()}}


a, b = load_claims(claims_of(a_out)), load_claims(claims_of(b_out))
changes = diff(a, b)
ca, cb = counts(a), counts(b)
info = {"A": build_info(a_out), "B": build_info(b_out)}


def side(c):
    return None if c is None else {"verdict": c.verdict, "measured": _fmt(c.measured),
                                   "per_seed": _fmt(c.per_seed) if c.per_seed else None, "undecided": c.undecided}


record = {"builds": info, "counts": {"A": ca, "B": cb},
          "gating_flips": {"hard": sum(c.gating_flip and "undecided" not in c.verdicts for c in changes),
                           "soft": sum(c.gating_flip and "undecided" in c.verdicts for c in changes)},
          "claims": [{"chapter": c.chapter, "id": c.id, "kind": c.kind, "gating_flip": c.gating_flip,
                      "flipped": c.flipped, "A": side(c.a), "B": side(c.b)} for c in changes]}
claims_lines = ",\n".join(json.dumps(c, ensure_ascii=False) for c in record.pop("claims"))  # one claim a line
head = json.dumps(record, indent=1, ensure_ascii=False)[:-2]
(HERE / "verdict_stability.json").write_text(f'{head},\n "claims": [\n{claims_lines}\n ]\n}}\n')

seed = {k: v.get("seed", "?") for k, v in info.items()}


def timing(i: dict) -> str:
    what = "the whole book" if i.get("whole_book") else "its last build (the whole book's is no longer kept)"
    return f"{what} in {i.get('seconds', '?')} s, finished {i.get('whole_book_finished')}"


lines = [f"Build A: seed {seed['A']}, {timing(info['A'])}; build B: seed {seed['B']}, {timing(info['B'])}; claims "
         f"as last published {info['A'].get('finished')} and {info['B'].get('finished')}.",
         "", "| chapter | held A / B | known deviation A / B | undecided A / B | vacuous A / B | failed A / B | "
         "hypotheses supported / refuted / undecided / not applicable / vacuous A | … B |",
         "|---|---|---|---|---|---|---|---|"]
for ch in sorted(set(ca) | set(cb)):
    x, y = ca.get(ch, {}), cb.get(ch, {})

    def pair(v):
        return f"{x.get(v, 0)} / {y.get(v, 0)}"

    def hyp(c):
        return " / ".join(str(c.get(f"hypotheses {v}", 0)) for v in ("supported", "refuted", "undecided",
                                                                      "not applicable", "vacuous"))

    lines.append(f"| {ch} | {pair('held')} | {pair('known-deviation')} | {pair('undecided')} | {pair('vacuous')} | "
                 f"{pair('failed')} | {hyp(x)} | {hyp(y)} |")
gating = [c for c in changes if c.gating_flip]
other = [c for c in changes if c.flipped and not c.gating_flip]
hard = [c for c in gating if not {"undecided", "vacuous"} & set(c.verdicts)]  # one asserts what the other denies
lines += ["", f"**{len(gating)} gating verdict(s) differ** (a claim of a paper held, failed or a known deviation in "
          f"one build and not the same in the other): **{len(hard)} hard** (held, failed and known deviation "
          f"against each other: one build asserts what the other denies), {len(gating) - len(hard)} soft (decided "
          "in one build, undecided or vacuous in the other):", ""]


def values(c) -> str:
    return "—" if c is None else _fmt(c.per_seed or c.measured)


lines += [f"- `{c.chapter}/{c.id}`: {c.verdicts[0]} → {c.verdicts[1]}{' (hard)' if c in hard else ''}; "
          f"A {values(c.a)}, B {values(c.b)}" for c in gating] or ["- none"]
lines += ["", f"{len(other)} other verdict(s) differ (hypotheses and consistency checks, which never gate a "
          "build):", ""]
lines += [f"- `{c.chapter}/{c.id}` ({c.kind}): {c.verdicts[0]} → {c.verdicts[1]}" for c in other] or ["- none"]
table = "\n".join(lines)

md = HERE / "verdict_stability.md"
text = md.read_text() if md.exists() else "# Verdict stability\n\n<!-- tables -->\n<!-- /tables -->\n"
head, rest = text.split("<!-- tables -->", 1)
_, tail = rest.split("<!-- /tables -->", 1)
md.write_text(f"{head}<!-- tables -->\n{table}\n<!-- /tables -->{tail}")
print(table)
