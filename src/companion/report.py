"""The Reproduction report: every claim of the build, by chapter and by paper item, with the
paper-scale column where kept results exist."""

from __future__ import annotations

import re
import time
from pathlib import Path

from companion.execute import ChapterResult

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


def figure_thumbnails(pages: dict, static: Path) -> dict[tuple[str, str], str]:
    """The first figure of every paper item on each chapter page, written as a PNG under
    ``static/thumbs/``: ``{(chapter, item): its URL from the report page}``. A figure of no paper
    item that has a ``name`` (the synthesis chapter's) is kept as ``(chapter, "figure:<name>")``,
    for the report's hypotheses section.

    A figure belongs to the items its caption names (the cell's ``mystnb.figure.caption``), else
    to those of the nearest heading above it; the paper-scale twin of a cell is skipped, so the
    thumbnail is this build's own figure.
    """
    import base64

    import nbformat

    out: dict[tuple[str, str], str] = {}
    (static / "thumbs").mkdir(parents=True, exist_ok=True)
    for ch, path in pages.items():
        heading: list[str] = []
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                for line in cell.source.splitlines():
                    if line.startswith("#"):
                        heading = items_named(line.lstrip("#").strip())
                continue
            if cell.cell_type != "code" or "paper-scale" in cell.metadata.get("tags", []):
                continue
            pngs = [o["data"]["image/png"] for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            caption = figure.get("caption", "")
            items = (items_named(caption) if caption else []) or heading
            if not items and figure.get("name"):  # a named figure of no paper item: the synthesis chapter's
                items = [FIGURE + figure["name"]]
            for item in items:
                if pngs and (ch, item) not in out:
                    slug = re.sub(r'[^A-Za-z0-9]+', '-', item.removeprefix(FIGURE)).strip('-').lower()
                    name = f"{ch}-{slug}.png"
                    small(base64.b64decode(pngs[0]), static / "thumbs" / name)
                    out[(ch, item)] = f"../_static/thumbs/{name}"
    return out


#: the key prefix of a thumbnail of a named figure that belongs to no paper item (:func:`figure_thumbnails`)
FIGURE = "figure:"


def small(png: bytes, path: Path, width: int = 320) -> None:
    """``png`` scaled down to ``width`` pixels (kept as it is if narrower, or not an image)."""
    import io

    try:
        from PIL import Image

        im = Image.open(io.BytesIO(png))
        if im.width > width:
            im = im.resize((width, max(1, round(im.height * width / im.width))), Image.LANCZOS)
        im.save(path, format="PNG", optimize=True)
    except Exception:  # not a PNG Pillow can read: keep the bytes
        path.write_bytes(png)


def thumbnail(chapter: str, item: str, src: str | None) -> str:
    """A thumbnail that links to the chapter page, or a dash."""
    if not src:
        return "—"
    return f'<a href="{chapter}.html"><img class="thumb" src="{src}" alt="{item} ({chapter})"></a>'


def report_markdown(records, chapters: list[str], results: dict[str, ChapterResult], profile: str,
                    paper_records=(), view_results: dict | None = None, view_errors: dict | None = None,
                   thumbnails: dict | None = None, numerics: dict | None = None) -> str:
    """The Reproduction report: per chapter, every paper figure/table with its re-drawn figure
    (``thumbnails``, from :func:`figure_thumbnails`), its claims and verdicts, and a column for
    the kept paper-scale results where a chapter has them."""
    from companion import scales
    from companion.claims import STATUSES, _fmt, badge, item_status, status_badge
    from companion.experiments import CHAPTERS, chapter_module
    from companion.runs import format_seconds

    view_results, view_errors, thumbnails = view_results or {}, view_errors or {}, thumbnails or {}
    paper = {(r.chapter, r.id): r for r in paper_records}
    lines = ["# Reproduction report", "",
             f"Generated by `companion build` at profile **{profile}** on "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Every number below was measured "
             "by this build; verdicts are computed from the measured value and the paper's statement "
             "(see each chapter's claims table for the details).", ""]
    if numerics:
        from companion.numerics import markdown as numerics_markdown

        lines += [numerics_markdown(numerics), ""]
    if view_results:
        lines += ["The **paper scale** columns evaluate the same claims on results kept from earlier runs at the "
                  "papers' own settings (profile `paper`, on a GPU; each chapter page says where and when). They "
                  "show what the papers' effects look like at full size; a claim missing there needs a result "
                  "that was not computed at that scale yet.", ""]
    checks = [r for r in records if r.kind == "consistency"]
    hypotheses = [r for r in records if r.kind == "hypothesis"]
    findings = [r for r in records if r.kind == "finding"]
    records = [r for r in records if r.kind == "paper"]  # the paper's claims; findings, checks and hypotheses apart
    order = ("held", "vacuous", "undecided", "known-deviation", "failed")
    total = {v: sum(r.verdict == v for r in records) for v in order}
    controlled = sum(r.verdict == "held" and bool(r.controls) for r in records)
    # one table per view, narrow enough for a 1280-px page: this build, then the kept paper-scale results
    lines += ["| chapter | status | time | held | of them against a control | vacuous | undecided | known deviation "
              "| failed |", "|---|---|---|---|---|---|---|---|---|"]
    for ch in chapters:
        res = results.get(ch)
        recs = [r for r in records if r.chapter == ch]
        status = "—" if res is None else ("executed" if res.ok else f"{badge('failed')} {res.error}")
        t = "—" if res is None else f"{res.seconds:.0f} s"
        counts = [sum(r.verdict == v for r in recs) for v in order]
        counts.insert(1, sum(r.verdict == "held" and bool(r.controls) for r in recs))
        lines.append(f"| {{doc}}`{ch}` | {status} | {t} | " + " | ".join(map(str, counts)) + " |")
    lines += ["", f"**Total: {total['held']} held ({controlled} against a control that fails, "
              f"{total['held'] - controlled} without one), {total['vacuous']} vacuous, {total['failed']} failed, "
              f"{total['known-deviation']} known deviations, {total['undecided']} undecided** among the papers' "
              "claims (vacuous: the claim held, and so did its control, a run without the paper's effect, so it is "
              "no evidence; undecided: the seeds fall on both sides of the bound, a deviation lies within their "
              "spread, or a control meets the bound in some seeds, so this budget cannot say which side the effect "
              "is on; neither fails the build)"
              + (f"; besides them {len(findings)} finding(s) of this reproduction that the papers do not state "
                 f"({', '.join(f'`{r.chapter}/{r.id}` {r.verdict}' for r in findings)})" if findings else "")
              + (f"; besides them {len(checks)} consistency checks (true by construction, so not evidence), "
                 f"{sum(c.verdict == 'failed' for c in checks)} failed" if checks else "")
              + (f"; and {len(hypotheses)} hypotheses (below)" if hypotheses else "") + ".", ""]
    if view_results:
        lines += ["At the papers' own scale, from kept results:", "",
                  "| chapter | kept results | GPU time | held | vacuous | undecided | known deviation | failed |",
                  "|---|---|---|---|---|---|---|---|"]
        for ch in chapters:
            if ch in view_results:
                mine = [r for r in paper_records if r.chapter == ch and r.kind == "paper"]  # as the cpu table counts
                n_all, gone, one, _ = scales.missing(ch)
                wall, calls = scales.gpu_time(ch)
                lines.append(f"| {{doc}}`{ch}` | {n_all - sum(gone.values())} of {n_all}"
                             + (f" ({sum(one.values())} with fewer seeds)" if one else "") + " | "
                             f"{format_seconds(wall) if calls else '—'} | "
                             + " | ".join(str(sum(r.verdict == v for r in mine)) for v in order) + " |")
            else:
                lines.append(f"| {{doc}}`{ch}` | none | — | — | — | — | — | — |")
        lines.append("")
    for ch, errs in view_errors.items():
        for e in errs:
            lines += [f"```{{warning}}\nAt the paper's scale a cell of `{ch}` raised {e}\n```", ""]
    for ch in chapters:
        recs = [r for r in records if r.chapter == ch]
        with_paper = ch in view_results
        items: list[str] = []
        if ch in CHAPTERS:
            try:
                items = list(getattr(chapter_module(ch), "PAPER_ITEMS", ()))
            except Exception:  # a chapter whose module does not import is reported above
                items = []
        for r in recs:
            items += [i for i in paper_items(r.paper_ref) if i not in items]
        title = getattr(chapter_module(ch), "TITLE", ch) if ch in CHAPTERS else ch
        statuses = {item: item_status([r for r in recs if item in paper_items(r.paper_ref)]) for item in items}
        counts = ", ".join(f"{n} {st}" for st in STATUSES if (n := sum(v == st for v in statuses.values())))
        if not items and any(h.chapter == ch for h in hypotheses):  # the synthesis: no paper items of its own
            lines += [f"## {title}", "", "Its tests of each paper's explanation are in the hypotheses section "
                      "below.", ""]
            continue
        lines += [f"## {title}", "", f"Paper items: {counts or 'none'}.", ""]
        lines += (["| paper | figure | status | claims | verdicts | paper scale |", "|---|---|---|---|---|---|"]
                  if with_paper else ["| paper | figure | status | claims | verdicts |", "|---|---|---|---|---|"])
        for item in items:
            mine = [r for r in recs if item in paper_items(r.paper_ref)]
            if mine:
                cl = "<br>".join((f"`{r.id}`: {r.statement} (measured {_fmt(r.measured)}, expected {r.expected}"
                                  + (f", {r.seeds} seeds" if r.per_seed else "") + ")").replace("|", "\\|")
                                 for r in mine)
                vd = "<br>".join(badge(r.verdict) for r in mine)
                pv = "<br>".join((f"{badge(q.verdict)} ({_fmt(q.measured)})" if (q := paper.get((ch, r.id)))
                                  else "—") for r in mine)
            else:
                cl, vd, pv = "figure re-drawn; no numerical claim", "—", "—"
            fig = thumbnail(ch, item, thumbnails.get((ch, item)))
            row = f"| {item} | {fig} | {status_badge(statuses[item])} | {cl} | {vd} |"
            lines.append(row + (f" {pv} |" if with_paper else ""))
        ids = {r.id for r in recs}
        for q in (q for q in paper_records if q.chapter == ch and q.id not in ids):  # made at paper scale only
            text = f"`{q.id}`: {q.statement} (expected {q.expected})".replace("|", "\\|")
            lines.append(f"| {q.paper_ref} | — | — | {text} | — | {badge(q.verdict)} ({_fmt(q.measured)}) |")
        lines.append("")
        mine = [c for c in checks if c.chapter == ch]
        if mine:  # shown, but apart: they hold by construction, so they are not evidence for the paper
            lines += [f"Consistency checks ({len(mine)}; true by construction, not counted above): "
                      + "; ".join(f"`{c.id}` ({c.paper_ref}) {badge(c.verdict)}" for c in mine) + ".", ""]
    if hypotheses:
        from companion.hypotheses import HYPOTHESIS_VERDICTS, hypothesis_table, verdict_table

        counts = ", ".join(f"{sum(h.verdict == v for h in hypotheses)} {v}" for v in HYPOTHESIS_VERDICTS)
        lines += ["## Hypotheses: the four explanations on common ground", "",
                  f"Each paper's explanation of grokking tested in the settings of all four ({counts}); a "
                  "prediction is written down before its run, and a refuted one is a finding, not a failure.", "",
                  verdict_table(hypotheses), ""]
        figs = [thumbnail(ch, key.removeprefix(FIGURE), src) for (ch, key), src in thumbnails.items()
                if key.startswith(FIGURE) and ch in {h.chapter for h in hypotheses}]
        lines += ([" ".join(figs), ""] if figs else []) + [hypothesis_table(hypotheses, with_chapter=True), ""]
    return "\n".join(lines)
