"""Write the generated parts of the documentation again from the code and the shipped data:

- ``docs/guide/games.md``: the option tables between ``<!-- games:begin -->`` and
  ``<!-- games:end -->`` (``metro-ai games --markdown``);
- ``docs/guide/difficulty.md``: each ``<!-- ladder:GAME-Np -->`` block, the table of the shipped
  ladder ``bots/data/ladder-GAME-Np.json``, and the ``<!-- ladders:summary -->`` block, one row a
  shipped ladder: the ratings ``elo=`` accepts and the presets' ratings.

Run it from anywhere after changing a game's options or recalibrating a ladder:
``python docs/generate.py`` (``--check`` only says whether the pages are current; the tests
``tests/project/test_docs.py`` and ``tests/bots/test_ladder.py`` check each block).
"""
import argparse
import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path

DOCS = Path(__file__).resolve().parent
GAMES = DOCS / "guide" / "games.md"
DIFFICULTY = DOCS / "guide" / "difficulty.md"
LADDERS = DOCS.parent / "bots" / "data"


def replace_block(text: str, start: str, end: str, body: str, page: Path) -> str:
    if start not in text or end not in text:
        raise SystemExit(f"{page}: the markers {start} ... {end} are missing")
    a = text.index(start) + len(start)
    return text[:a] + "\n" + body + "\n" + text[text.index(end):]


def games_page(text: str) -> str:
    from metro_ai.cli import main
    out = io.StringIO()
    with redirect_stdout(out):
        main(["games", "--markdown"])
    return replace_block(text, "<!-- games:begin -->", "<!-- games:end -->", out.getvalue().rstrip("\n"), GAMES)


def ladders_summary() -> str:
    """One row a shipped ladder: the ratings ``elo=`` accepts there and the presets' ratings."""
    from metro_ai.bots.catalogue import bot_catalogue
    rows = ["| game | players | `elo=` accepts | easy | medium | hard |", "|---|---|---|---:|---:|---:|"]
    for lad in bot_catalogue()["ladders"].values():
        span = (f"{lad['elo']['min']:,.0f} – {lad['elo']['max']:,.0f}" if lad["elo"]
                else "none (its levels cannot be told apart)")
        presets = " | ".join(f"{lad['levels'][p]:,.0f}" if p in lad["levels"] else "–"
                             for p in ("easy", "medium", "hard"))
        rows.append(f"| `{lad['game']}` | {lad['players']} | {span} | {presets} |")
    return "\n".join(rows)


def difficulty_page(text: str) -> str:
    from metro_ai.play.calibrate import format_ladder
    for path in sorted(LADDERS.glob("ladder-*.json")):
        tag = path.stem[len("ladder-"):]
        text = replace_block(text, f"<!-- ladder:{tag} -->", f"<!-- /ladder:{tag} -->",
                             format_ladder(json.loads(path.read_text(encoding="utf-8"))), DIFFICULTY)
    return replace_block(text, "<!-- ladders:summary -->", "<!-- /ladders:summary -->", ladders_summary(),
                         DIFFICULTY)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is stale")
    args = parser.parse_args(argv)
    stale = []
    for page, update in ((GAMES, games_page), (DIFFICULTY, difficulty_page)):
        old = page.read_text(encoding="utf-8")
        new = update(old)
        if new != old:
            stale.append(page)
            if not args.check:
                page.write_text(new, encoding="utf-8")
    for page in stale:
        print(f"{page.relative_to(DOCS.parent)}: {'stale' if args.check else 'written'}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
