"""The README's option tables are the game classes' own (``metro-ai games --markdown``)."""
import re
from pathlib import Path

from metro_ai.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_option_tables_match_the_game_classes(capsys):
    text = README.read_text()
    found = re.search(r"<!-- games:begin -->\n(.*?)\n<!-- games:end -->", text, re.S)
    assert found, "the README lost its games:begin/games:end markers"
    assert main(["games", "--markdown"]) == 0
    assert found.group(1) == capsys.readouterr().out.rstrip("\n"), \
        "README option tables are stale: paste the output of `metro-ai games --markdown`"
