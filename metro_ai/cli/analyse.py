"""``metro-ai analyse`` (or ``analyze``): a search bot's analysis of a saved position, or of a
position in a match record."""
from __future__ import annotations

from pathlib import Path

from metro_ai.bots.catalogue import BotSpec, require_search
from metro_ai.engine.datafile import dumps
from metro_ai.play.match import load_state

from .common import BOT_SPEC_HELP, add_budget_arguments, limit_of

NAME = "analyse"
ALIASES = ("analyze",)
HELP = "a search bot's analysis of a saved position or of a position in a match record"
EPILOG = BOT_SPEC_HELP


def add_arguments(p):
    p.add_argument("state", metavar="FILE.json",
                   help="a saved state (the JSON of state.to_json()) or a match record (metro-ai match --save)")
    p.add_argument("--move", type=int, default=None, metavar="N",
                   help="with a match record: the position before its action N (numbered from 0, so 0 is the "
                        "deal; default: the last position with a real choice, more than one legal action)")
    p.add_argument("--bot", default="ismcts", metavar="SPEC", help="a search bot or preset (default: ismcts)")
    add_budget_arguments(p, "the bot (default: the spec's, else the bot's own)")
    p.add_argument("--seed", type=int, default=1, help="bot seed (default: 1)")
    p.add_argument("--top", type=int, default=10, help="actions to show (default: 10)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")


def _position(args):
    """The state to analyse, and the record's move number (None for a saved state)."""
    from metro_ai.engine.datafile import parse_json, read_text
    from metro_ai.engine.errors import StateFormatError
    from metro_ai.play.match import is_record, record_position
    text = read_text(args.state, what="saved state or match record", error=StateFormatError)

    def not_json(message):
        raise StateFormatError(message)
    try:
        data = parse_json(text, not_json)
    except StateFormatError:
        data = None                      # load_state says what is wrong, naming the file
    if is_record(data):
        return record_position(Path(args.state), args.move)      # read as a file: its errors name it
    if args.move is not None:
        raise ValueError(f"--move picks a position of a match record, but {args.state!r} is a saved state")
    return load_state(args.state), None


def run(args) -> int:
    state, move = _position(args)
    spec = BotSpec.parse(args.bot)
    bot = spec.make(seed=args.seed)
    require_search(spec, bot, "it has no analysis")
    if state.is_terminal():
        raise ValueError("the saved game is over: there is nothing to analyse" if move is None else
                         f"the game is over at move {move}: there is nothing to analyse; pick an earlier --move")
    limit = limit_of(args) or spec.limit
    legal = state.legal_actions()
    analysis = bot.analyse(state, limit)            # (a forced move: at once, unsearched)
    if args.json:
        out = analysis.to_dict()
        out["forced"] = len(legal) == 1
        if move is not None:
            out["move"] = move
        print(dumps(out, indent=2))
    else:
        from metro_ai.play.terminal import analysis_in_words
        said = analysis_in_words(state, analysis)               # the moves in words; --json keeps the texts
        if move is not None:
            print(f"the position before action {move} of the record:")
        if len(legal) == 1:
            print(f"player {analysis.player}: {said.chosen_text}  (a forced move: the only legal action, "
                  "nothing to search)")
        else:
            print(said.table(top=args.top))
    return 0
