"""Sphinx configuration of metro-ai's documentation site.

Build it from the repository root (extra ``docs``; the package itself must be installed, since the
reference pages import it):

    python -m sphinx -W --keep-going -b html docs docs/_build/html
    python -m http.server -d docs/_build/html 8000      # read it offline

Sphinx with MyST: the pages are Markdown (the rules readings, the protocol and the loader notes
were already), the API reference comes from the docstrings by autodoc, which imports the
compiled modules and so reads the Cython classes' own docstrings and signatures, and ``-W`` makes
every warning (a broken link, a docstring that does not parse) an error in CI.
"""
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))

import metro_ai  # noqa: E402  (the installed package: the reference pages document it)

project = "metro-ai"
author = "the metro-ai developers"
copyright = "2026, the metro-ai developers"
release = version = metro_ai.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
    "cli_help",          # docs/_ext/cli_help.py: the command line's --help texts, from its parser
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
root_doc = "index"

# Markdown: headings down to #### get anchors (the pages link to sections), ``{directive}`` and
# ``:::`` fences, definition lists (no $math$: a price in dollars stays text).
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
# The docstrings write Python names in single backticks (``make_bot``'s `game`): read them as code.
default_role = "code"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
intersphinx_mapping = {}          # offline: no inventories are fetched

html_theme = "furo"
html_title = f"metro-ai {release}"
html_static_path = []
html_show_sourcelink = False

# The figures' full reports live beside the scripts that write them (benches/results/, where
# tests and tools read them); the site shows a copy, made here at every build (docs/results/ is
# ignored by git).
RESULTS = HERE / "results"
if RESULTS.exists():
    shutil.rmtree(RESULTS)
RESULTS.mkdir()
for src in sorted((ROOT / "benches" / "results").iterdir()):
    if src.suffix in (".png", ".svg"):
        shutil.copy2(src, RESULTS / src.name)
    elif src.suffix == ".md":
        # a link to a run's JSON (kept in the repository only) becomes the file's name
        text = re.sub(r"\[([^\]]*)\]\(([\w.\-]+\.json)\)", r"\1 (`\2`)", src.read_text(encoding="utf-8"))
        (RESULTS / src.name).write_text(text, encoding="utf-8")
(RESULTS / "index.md").write_text(
    "# Results\n\nThe full reports behind the figures in these pages, as the scripts in "
    "`benches/` wrote them (`benches/results/` in the repository, next to their JSON).\n\n"
    "```{toctree}\n:glob:\n:maxdepth: 1\n\n*\n```\n")
os.environ.setdefault("COLUMNS", "100")   # the --help texts wrap the same way on every machine
