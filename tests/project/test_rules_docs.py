"""Every rules id cited in the code (M6, C2, B9.1, R13, ...) is defined in docs/rules/*.md.

Pure text check: reads the sources, imports nothing from the package, needs no compiled code.

A citation is recognised only in contexts that are clearly rule ids, so that board squares such as
``'place T05 at C1'`` are not mistaken for City Edition rule C1:

* a range ``B1-B9`` / ``R13–R15`` (expanded to every id in it);
* a list of two or more ids: ``B7, R12, R13``, ``B5/R2``, ``B5 and R2``;
* an id right after ``(`` or right before ``)``: ``(M6)``, ``(B1 clean-up, B7)``;
* an id after a word such as rule, decision, variant, under, per, see: ``rules M1``, ``per M9``;
* an id opening a comment or a docstring: ``# R8``, ``\"\"\"M6: would ...``.

An id is defined when a line of docs/rules/*.md starts a list item or heading with it in bold or
plain: ``- **R13** ...``, ``- **M1 Board.** ...``, ``## R13 ...``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules"
CODE_DIRS = ("engine", "bots", "metro_ai")
SUFFIXES = (".py", ".pyx", ".pxd")

ID = r"[MCBRLG]\d{1,2}(?:\.\d)?"
_ID_RE = re.compile(rf"(?<![\w.])({ID})(?![\w])")
_RANGE_RE = re.compile(r"(?<![\w.])([MCBRLG])(\d{1,2})\s*[-–]\s*\1(\d{1,2})(?![\w.])")
_LIST_RE = re.compile(rf"(?<![\w.]){ID}(?:\s*(?:,|/|\band\b)\s*{ID}(?![\w]))+")
_PAREN_OPEN_RE = re.compile(rf"\(\s*({ID})(?![\w])")
_PAREN_CLOSE_RE = re.compile(rf"(?<![\w.])({ID})\s*\)")
_AFTER_WORD_RE = re.compile(
    rf"\b(?:rules?|decisions?|variants?|under|per|see|ids?)\s+({ID})(?![\w])", re.IGNORECASE)
_OPENING_RE = re.compile(rf"(?:#|\"\"\"|''')\s*({ID})(?![\w])")
_DEFINED_RE = re.compile(rf"^\s*(?:[-*]|#+)\s+(?:\*\*)?({ID})(?![\w])", re.MULTILINE)


def cited_ids(text: str) -> set[str]:
    """The rule ids that `text` cites, by the contexts in the module docstring."""
    found: set[str] = set()
    for m in _RANGE_RE.finditer(text):
        letter, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
        if lo < hi:
            found.update(f"{letter}{n}" for n in range(lo, hi + 1))
    for m in _LIST_RE.finditer(text):
        found.update(_ID_RE.findall(m.group(0)))
    for regex in (_PAREN_OPEN_RE, _PAREN_CLOSE_RE, _AFTER_WORD_RE, _OPENING_RE):
        found.update(m.group(1) for m in regex.finditer(text))
    return found


def defined_ids(text: str) -> set[str]:
    """The rule ids that a rules file defines (list items or headings that start with the id)."""
    return set(_DEFINED_RE.findall(text))


def code_files() -> list[Path]:
    return sorted(p for d in CODE_DIRS for p in (ROOT / d).rglob("*")
                  if p.suffix in SUFFIXES and p.is_file())


def code_citations() -> dict[str, list[str]]:
    """id -> the files (relative to the repository root) that cite it."""
    where: dict[str, list[str]] = {}
    for path in code_files():
        for rid in cited_ids(path.read_text(encoding="utf-8")):
            where.setdefault(rid, []).append(str(path.relative_to(ROOT)))
    return where


def docs_ids() -> set[str]:
    ids: set[str] = set()
    for path in sorted(DOCS.glob("*.md")):
        ids |= defined_ids(path.read_text(encoding="utf-8"))
    return ids


def _key(rid: str):
    return (rid[0], [int(x) for x in rid[1:].split(".")])


def test_extractor_recognises_citations_and_nothing_else():
    assert cited_ids('"""B5, R2-R4, R15."""') == {"B5", "R2", "R3", "R4", "R15"}
    assert cited_ids("engine (rules B1-B9, R1-R24).") == (
        {f"B{n}" for n in range(1, 10)} | {f"R{n}" for n in range(1, 25)})
    assert cited_ids("x = 1  # B9.1, R13") == {"B9.1", "R13"}
    assert cited_ids("matching the monster (all its icons under B9.1).") == {"B9.1"}
    assert cited_ids("# R8") == {"R8"}
    assert cited_ids("rules L1-L3 (L7)") == {"L1", "L2", "L3", "L7"}
    assert cited_ids('"""M6: would placing (kind, rot) break it?"""') == {"M6"}
    assert cited_ids("rotations per M9, and (B1 clean-up, B7)") == {"M9", "B1", "B7"}
    assert cited_ids("see B5/R2 for the subset") == {"B5", "R2"}
    assert cited_ids("ranked by tokens (B8, R18)") == {"B8", "R18"}
    # board squares, tile kinds and other look-alikes are not rule ids
    assert cited_ids('"""Human text: "draw", "place T05 at C1" or "place T05 at C1 rot 1"."""') \
        == set()
    assert cited_ids("expected 'draw' or 'place T05 at C1 [rot 1]'") == set()
    assert cited_ids('for bad in ("C3", "D4", "E5"): s.apply(place(game, "T03", "C1"))') == set()
    assert cited_ids("rows 3-4, cols 3-4; M2M3 CM1 R2D2x B12x") == set()


def test_definitions_are_found():
    text = "- **M1 Board.** 8x8.\n  - **B9.1** switch\n- **R13** Survival\n## C2 Module 2\nM3 in prose\n"
    assert defined_ids(text) == {"M1", "B9.1", "R13", "C2"}


def test_every_cited_rule_id_is_defined_in_docs_rules():
    files = code_files()
    assert files, f"no sources found under {CODE_DIRS}"
    cited = code_citations()
    assert cited, "no rule ids cited in the code: the extractor or the layout is broken"
    defined = docs_ids()
    assert defined, f"no rule ids defined in {DOCS}"
    missing = sorted(set(cited) - defined, key=_key)
    assert not missing, "rule ids cited in code but not defined in docs/rules/*.md:\n" + "\n".join(
        f"  {rid}: {', '.join(sorted(cited[rid]))}" for rid in missing)
