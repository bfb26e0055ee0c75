"""The README is a front page whose examples run, and the documentation's generated parts are the
code's own (issue #28).

- The README's Python examples (its ``pycon`` blocks) run in order in one namespace, as doctests:
  every output shown is the output the library gives.
- The README stays a front page: the two set-up commands first, at most 300 lines, and every
  link into the repository leads to a file that exists.
- The option tables of the games' page are ``metro-ai games --markdown`` (``docs/generate.py``
  writes them).
- Every name ``metro_ai`` exports is on the API reference page; the difficulty page's summary
  of the shipped ladders is current; each figure of the README's table is on the page its row
  links to.
"""
import doctest
import os
import re
from pathlib import Path

import pytest

from metro_ai.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GAMES_PAGE = ROOT / "docs" / "guide" / "games.md"


def readme_examples():
    """The README's ``pycon`` blocks, in order, each as (first line number, text)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks, start = [], None
    for i, line in enumerate(lines):
        if start is None and line.strip() == "```pycon":
            start = i + 1
        elif start is not None and line.strip() == "```":
            blocks.append((start + 1, "\n".join(lines[start:i]) + "\n"))
            start = None
    assert start is None, "a pycon block of the README is not closed"
    return blocks


def test_the_readmes_examples_run_in_order(tmp_path, monkeypatch):
    blocks = readme_examples()
    assert len(blocks) >= 3, "the README lost its Python examples"
    monkeypatch.chdir(tmp_path)                      # an example that writes a file writes it here
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    namespace: dict = {}
    for line, text in blocks:
        test = parser.get_doctest(text, namespace, f"README.md:{line}", str(README), line - 1)
        assert test.examples, f"README.md line {line}: a pycon block without >>> examples"
        runner.run(test, clear_globs=False)
        namespace = test.globs
    failed, attempted = runner.summarize(verbose=False)
    assert attempted >= 15
    assert failed == 0, f"{failed} of the README's {attempted} examples failed (their output is above)"


def test_the_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    head = text.splitlines()[:12]
    assert sum("python3 -m venv" in line for line in head) == 2, "the two set-up commands come first"
    assert "python -m pytest" in "\n".join(head)
    assert len(text.splitlines()) <= 300, "the README is a front page: move the detail into docs/"


DOCS_RESULTS = ROOT / "docs" / "results"   # a copy of benches/results/ made by the site's build
PAGES = [README, ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *sorted(p for p in (ROOT / "docs").rglob("*.md")
                         if "_build" not in p.parts and DOCS_RESULTS not in p.parents)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files(page):
    """Links to the repository's own files, from the README and every page under docs/, lead to
    files that exist (Sphinx checks the links between pages; this also covers the README and the
    links a Markdown viewer follows; a link into docs/results/ is one into benches/results/)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = Path(os.path.normpath(page.parent / target.split("#", 1)[0]))
        if DOCS_RESULTS in path.parents:
            path = ROOT / "benches" / "results" / path.relative_to(DOCS_RESULTS)
        if not path.exists():
            missing.append(target)
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_the_option_tables_match_the_game_classes(capsys):
    text = GAMES_PAGE.read_text(encoding="utf-8")
    found = re.search(r"<!-- games:begin -->\n(.*?)\n<!-- games:end -->", text, re.S)
    assert found, "docs/guide/games.md lost its games:begin/games:end markers"
    assert main(["games", "--markdown"]) == 0
    assert found.group(1) == capsys.readouterr().out.rstrip("\n"), \
        "docs/guide/games.md's option tables are stale: run python docs/generate.py"


def test_every_public_name_is_in_the_api_reference():
    """What ``metro_ai`` exports has an autodoc entry on the API reference page."""
    import metro_ai
    page = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    missing = [name for name in metro_ai.__all__ if not re.search(rf"\bmetro_ai\.{name}\b", page)]
    assert not missing, f"docs/reference/api.md has no entry for metro_ai.{', metro_ai.'.join(missing)}"


def test_the_ratings_elo_accepts_match_the_shipped_ladders():
    """The difficulty page's summary of the shipped ladders (the ratings ``elo=`` accepts, the
    presets' ratings) is what docs/generate.py writes from them now; the option tables and each
    ladder's own table are checked above and in tests/bots/test_ladder.py."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    page = generate.DIFFICULTY.read_text(encoding="utf-8")
    assert f"<!-- ladders:summary -->\n{generate.ladders_summary()}\n<!-- /ladders:summary -->" in page, \
        "docs/guide/difficulty.md's summary of the ladders is stale: run python docs/generate.py"


def test_the_readmes_figures_are_on_the_pages_it_links():
    """Each number of the README's table of figures is on the page its row links to (commas
    aside), so a figure the docs no longer give cannot stay on the front page."""
    section = README.read_text(encoding="utf-8").split("\n## Figures", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| what")]
    assert len(rows) >= 5, "the README's table of figures is gone"
    for row in rows:
        _, figure, where = (cell.strip() for cell in row.strip("|").split("|"))
        link = re.search(r"\]\(([^)#]+)", where)
        assert link, f"the README's figure row {row!r} links to no page"
        page = (ROOT / link.group(1)).read_text(encoding="utf-8").replace(",", "")
        for number in re.findall(r"\d[\d,]*(?:\.\d+)?", figure):
            number = number.rstrip(",").replace(",", "")
            assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", page), \
                f"{link.group(1)} does not give the README's figure {number} ({row!r})"
