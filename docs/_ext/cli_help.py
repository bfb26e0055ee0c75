"""A Sphinx directive that shows ``metro-ai COMMAND --help`` as the parser prints it, so the
command-line reference cannot drift from the command line.

    ```{cli-help} tournament
    ```

With no argument it shows ``metro-ai --help``.
"""
import io
import os
from contextlib import redirect_stdout

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def help_text(command=None):
    """``metro-ai [COMMAND] --help``, 100 columns wide."""
    from metro_ai.cli import build_parser
    os.environ["COLUMNS"] = "100"
    parser = build_parser()
    if command:
        sub = next(a for a in parser._actions if a.dest == "command")
        if command not in sub.choices:
            raise ValueError(f"metro-ai has no command {command!r}; it has {', '.join(sub.choices)}")
        parser = sub.choices[command]
    out = io.StringIO()
    with redirect_stdout(out):
        parser.print_help()
    return out.getvalue()


class CliHelp(SphinxDirective):
    optional_arguments = 1

    def run(self):
        command = self.arguments[0] if self.arguments else None
        try:
            text = help_text(command)
        except ValueError as exc:
            raise self.error(str(exc))
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


def setup(app):
    app.add_directive("cli-help", CliHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
