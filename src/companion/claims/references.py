"""Paper references read as items: ``"Figs. 12–19 / Table 1"`` → Fig. 12 … Fig. 19, Table 1.

A claim names the paper item it tests in free text; the report, the claims tables and the figure
thumbnails group claims by the items these functions read from it.
"""

from __future__ import annotations

import re

TOKEN = re.compile(r"\b(?P<kind>Figs?|Tables?|Eqs?)\b\.?|\b(?P<a>\d+)[a-z]?(?:\s*[–-]\s*(?P<b>\d+))?", re.I)
NAMED = re.compile(r"(?<!\w)(Thm|Theorem|Lemma|Prop(?:osition)?|Cor(?:ollary)?|App(?:endix)?|Sec(?:tion)?|§)\.?\s*"
                   r"([A-Z]?\d+(?:\.\d+)*|[A-Z]\b)", re.I)
CANONICAL = {"thm": "Theorem", "theorem": "Theorem", "lemma": "Lemma", "prop": "Proposition",
             "proposition": "Proposition", "cor": "Corollary", "corollary": "Corollary", "app": "App.",
             "appendix": "App.", "sec": "§", "section": "§", "§": "§"}


def paper_items(ref: str) -> list[str]:
    """``"Figs. 12–19 / Table 1"`` → ``["Fig. 12", …, "Fig. 19", "Table 1"]``.

    Theorems, lemmas, appendices and sections are kept by name (``"Thm 3.2"`` → ``"Theorem
    3.2"``); a reference with none of these (``"A.4.1"``) is its own item, so every claim
    appears in the report.
    """
    out, kind = [], None
    for m in TOKEN.finditer(NAMED.sub(" ", ref)):  # a bare number continues the last kind: "Fig. 1b / 6"
        if m.group("kind"):
            kind = {"fig": "Fig.", "table": "Table", "eq": "Eq."}[m.group("kind").lower().rstrip("s")]
        elif kind:
            a, b = int(m.group("a")), int(m.group("b") or m.group("a"))
            out += [f"{kind} {n}" for n in range(a, b + 1) if f"{kind} {n}" not in out]
    for kind, label in NAMED.findall(ref):
        out.append(f"{CANONICAL[kind.lower()]} {label}".replace("§ ", "§"))
    return out or [ref.strip()]


def items_named(text: str) -> list[str]:
    """The paper items a heading or caption names (``"Fig. 5 — MED tracks …"`` → ``["Fig. 5"]``),
    read up to its first dash, colon or parenthesis so that later numbers (``"(Power et al.
    2022)"``) are not taken for figures; [] for none."""
    head = re.split(r"\s[—–-]\s|[:(;]", text, maxsplit=1)[0]
    named = NAMED.search(head) or any(m.group("kind") for m in TOKEN.finditer(head))
    return paper_items(head) if named else []
