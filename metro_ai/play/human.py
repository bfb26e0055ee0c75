"""A person's seat: it shows the state as that player sees it and the legal actions, reads an
action from input (a number from the list, the action written out or its readable label, or for
Metro a square), and answers ``help``, ``list``, ``board``, ``info``, ``hint`` and ``quit``.
``metro-ai play`` puts it in the game loop (:func:`metro_ai.play.loop.play_game`) beside the bots.
What it draws (colour, Metro's board and tiles, Metro 2033's prompts) is
:mod:`metro_ai.play.terminal`'s.
"""
from __future__ import annotations

from metro_ai.bots.seeding import derive
from metro_ai.play import terminal as term
from metro_ai.play.loop import Stop
from metro_ai.play.seatview import seen_move, visible_scores

HELP = """{title}, seat P{player}: {phase}
commands:
  NUMBER        play the action with that number in the list
  TEXT          play the action written out as in the list, e.g. {example}, or the start of it if only one legal action starts so, e.g. {prefix}{metro}
  list          show the legal actions, numbered
  board         show the board again (in full)
  info          everything the compact view summarises (shares, a city's pieces, cards)
  hint          what the hint bot would play, and why
  help          this help
  quit          leave the game
the actions you have now are of these kinds: {kinds}{board}"""
METRO_HELP = """
  SQUARE        Metro: place a tile at that square (C1); where several of your tiles fit there (the letters on the board), the letter or the tile first: b C1, T17 C1"""
METRO_BOARD = """
on the compact board a tile is its four tracks, each drawn as the sides it joins (└ top and right, │ top and bottom, ∪ back to the top), the lines' tracks first, then who owns them: ┘│└┌01 is a line of P0's from the top to the left and one of P1's from the top to the bottom (+: more than two lines)"""
HELP_INDENT = " " * 16            # where a command's description starts in HELP


def _norm(text):
    return " ".join(text.lower().split())


def match_prefix(state, actions, text):
    """The legal action whose text (or readable label) starts with `text` (case and spacing
    free), the lowest id among copies printed alike; ValueError naming the candidates when none
    or several differ."""
    want = _norm(text)
    hits: dict[str, int] = {}
    for a in actions:
        t = state.action_to_string(a)
        label = term.describe(state, a)
        if _norm(t).startswith(want) or _norm(label).startswith(want):
            hits.setdefault(label, a)
    if len(set(hits.values())) == 1 or len(hits) == 1:
        return min(hits.values())
    if not hits:
        raise ValueError("no legal action starts so")
    shown = sorted(hits)[:6]
    raise ValueError(f"{len(hits)} actions start so: " + "; ".join(shown) + ("; ..." if len(hits) > 6 else ""))


def _help(state, actions, player):
    """The help for the decision at `state`, its examples and kinds of action said as the list
    says the actions (:func:`~metro_ai.play.terminal.describe`)."""
    labels = [term.describe(state, a) for a in actions]
    kinds = sorted({t.split(" ")[0] for t in labels})
    example = labels[-1]
    # what a typed start is matched against (match_prefix): each action's label and its text
    names = [(_norm(label), _norm(state.action_to_string(a))) for a, label in zip(actions, labels)]
    prefix = next((t[:n] for t in labels for n in range(3, len(t) + 1)
                   if sum(any(x.startswith(_norm(t[:n])) for x in pair) for pair in names) == 1), example)
    phase = str(getattr(state, "phase", "")).replace("_", " ")
    metro = term.is_metro(state)
    return HELP.format(title=state.game.title, player=player, phase=f"phase {phase}" if phase else "",
                       example=repr(example), prefix=repr(prefix), kinds=", ".join(kinds),
                       metro=METRO_HELP if metro else "", board=METRO_BOARD if metro else "")


def columns(items, width, least=1):
    """`items` in as many columns as fit in `width` characters, filled down the columns; with
    `least` > 1 the items are cut (:func:`~metro_ai.play.terminal.clip`) so that at least that
    many columns fit."""
    if not items:
        return []
    if least > 1:
        items = [term.clip(s, width // least - 2) for s in items]
    cell = max(len(s) for s in items) + 2
    per = max(1, width // cell)
    rows = -(-len(items) // per)
    return ["".join(items[r + c * rows].ljust(cell) for c in range(per) if r + c * rows < len(items)).rstrip()
            for r in range(rows)]


class HumanSeat:
    """The seat of `player`, played by a person through `read` (``input``) and `write` (``print``).

    `hint`: a search bot's :class:`~metro_ai.bots.catalogue.BotSpec` that answers ``hint`` (each
    hint a fresh bot seeded from `hint_seed` and the hint's number), or None for no hints.
    `width`, `height`: the terminal's size (default: asked of the terminal); `color`: ANSI
    colours on or off (default: :func:`~metro_ai.play.terminal.color_enabled`).
    :meth:`move_line` writes another seat's move readably and remembers it as the last move;
    :meth:`show` draws the state. Leaving (``quit``, or the end of input) raises
    :class:`~metro_ai.play.loop.Stop`.
    """

    name = "you"

    def __init__(self, player, read=input, write=print, hint=None, hint_seed=0, width=None, height=None,
                 color=None):
        self.player = player
        self.read, self.write = read, write
        self.hint, self.hint_seed, self.hints = hint, hint_seed, 0
        columns, lines = term.terminal_size((100, 24))
        self.width = width or columns
        self.height = height or lines
        self.paint = term.Paint(term.color_enabled() if color is None else color)
        self._before = None           # a copy of the state before the move being made
        self._seen = None             # Metro's board after this seat's last move
        self._last_text = ""          # the last other seat's move, in words

    # ---- what the person sees
    def say(self, text, indent=None):
        """Write `text`, each of its lines wrapped at words to the terminal's width
        (:func:`~metro_ai.play.terminal.wrap`; `indent`: the continuation lines' indentation)."""
        for line in text.split("\n"):
            for part in term.wrap(line, self.width, indent):
                self.write(part)

    def begin(self, state):
        """The game starts at `state`: the first moves of the other seats are said as this seat
        saw them (:meth:`move_line`)."""
        self._before = state.clone()

    def move_line(self, state, move, label):
        """The line that reports `move` (just applied to `state`) by the seat called `label`, as
        this seat saw it (:func:`~metro_ai.play.seatview.seen_move`: what it cannot tell of
        another's hidden move written ``?``), in words (Metro 2033: ``hero defends Kievskaya
        (blue)``); where the state before it is not known, its text only if the move is this
        seat's own."""
        before = self._before
        if before is not None:
            try:
                text = seen_move(before, move["action"], self.player, term.describe).label
            except Exception:  # noqa: BLE001 - a label is a courtesy; never the hidden text instead
                text = term.readable(state, move["text"]) if move["player"] == self.player else "a move"
        else:
            text = term.readable(state, move["text"]) if move["player"] == self.player else "a move"
        self._before = state.clone()
        if move["player"] != self.player:
            self._last_text = f"P{move['player']} {text}"
        return f"P{move['player']} ({label}): {text}"

    def _last_squares(self, state):
        if self._seen is None or not term.is_metro(state):
            return ()
        board = state.board()
        return {sq for sq in range(64) if board[sq] != self._seen[sq]}

    def view(self, state, actions=None, full=None, compact=False) -> list[str]:
        """The lines drawing `state` for this seat (with `actions`: what may be played); other
        games than Metro: `compact` folds the text (:func:`~metro_ai.play.terminal.compact_text`)."""
        me = self.player
        if term.is_metro(state):
            v = term.MetroView(state, me, self.paint, (self.width, self.height),
                               last=self._last_squares(state), last_text=self._last_text)
            return v.render(actions, full=full)
        lines = term.readable(state, state.render(player=me)).splitlines()
        if compact:
            lines = term.compact_text(lines, self.width)
        else:
            lines = [part for line in lines for part in term.wrap(line, self.width)]
        status = []
        try:
            scores = visible_scores(state, me)
            status.append("scores: " + ("  ".join(f"{self.paint(p, f'P{p}')}={v}" for p, v in enumerate(scores))
                                        if scores is not None else "hidden until the end"))
        except Exception:  # noqa: BLE001 - a game may keep no score before its end
            pass
        if not state.is_terminal():
            mover = state.current_player
            status.append(f"to move: {self.paint(mover, f'P{mover}')}" + (" - " + self.paint("bold", "you")
                                                                         if mover == me else ""))
        if self._last_text:
            status.append(f"last: {self._last_text}")
        return lines + term.wrap("; ".join(status), self.width)

    def show(self, state):
        """Write the state as this seat sees it (the board in full where it fits)."""
        for line in self.view(state):
            self.write(line)

    def action_lines(self, state, actions, least=1):
        """The legal actions numbered, in columns where they fit (a label too long for a line
        wrapped under its start)."""
        items = [f"{i + 1:>3}: {term.describe(state, a)}" for i, a in enumerate(actions)]
        rows = ["  " + x for x in columns(items, self.width - 2, least)]
        return [f"your legal actions ({len(actions)}):"] + [part for row in rows
                                                            for part in term.wrap(row, self.width, " " * 7)]

    def show_actions(self, state, actions):
        for line in self.action_lines(state, actions):
            self.write(line)

    def _show_turn(self, state, actions):
        if term.is_metro(state):
            for line in self.view(state, actions):
                self.write(line)
            options = term.tile_options(state, actions)
            if options:
                placing = {a for *_, squares in options for a in squares.values()}
                others = [term.describe(state, a) for a in actions if a not in placing]
                self.write(term.how_to_place(options, others, self.width))
                return
            lines = []
        else:
            lines = self.view(state, actions)
        question = term.prompt(state)
        whole = self.paint("bold", f"P{self.player}, decide: ") + question if question else ""
        ask = term.wrap(whole, self.width) if question else []
        listing = self.action_lines(state, actions)
        if not term.is_metro(state) and term.screen_rows(lines + ask + listing, self.width) + term.RESERVED - 1 > self.height:
            # too long for the terminal: the text folded, the actions in two columns ('info': all)
            lines = self.view(state, actions, compact=True)
            listing = self.action_lines(state, actions, least=2)
            ask = [term.clip(term.strip_ansi(whole), self.width)] if question else []
        for line in lines + ask + listing:
            self.write(line)

    def show_info(self, state):
        """Everything there is to see (the ``info`` command): Metro's status lines in full, other
        games' text unfolded."""
        if term.is_metro(state):
            v = term.MetroView(state, self.player, self.paint, (self.width, self.height),
                               last_text=self._last_text)
            for line in v.info():
                self.write(line)
        else:
            for line in self.view(state):
                self.write(line)

    def choose(self, state, limit=None):
        me, write = self.player, self.write
        write("")
        actions = state.legal_actions()
        self._show_turn(state, actions)
        options = term.tile_options(state, actions) if term.is_metro(state) else []
        while True:
            try:
                text = self.read(f"P{me}> ").strip()
            except EOFError:
                write("\nend of input: you left the game")
                raise Stop from None
            low = text.lower()
            if not text:
                continue
            if low in ("quit", "exit", "q"):
                write("you left the game")
                raise Stop
            if low in ("help", "?", "h"):
                for line in _help(state, actions, me).split("\n"):   # a command's words under its words
                    self.say(line, HELP_INDENT if line.startswith("  ") else None)
                continue
            if low in ("list", "l", "actions"):
                self.show_actions(state, actions)
                continue
            if low in ("board", "b"):
                for line in self.view(state, actions, full=True):
                    write(line)
                continue
            if low in ("info", "i"):
                self.show_info(state)
                continue
            if low == "hint":
                self.show_hint(state, actions)
                continue
            action = self._parse(state, actions, options, text)
            if action is None:
                continue
            self._remember(state, action)
            return action

    def _parse(self, state, actions, options, text):
        """The action `text` names, or None after saying what is wrong."""
        write = self.say
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(actions):
                write(f"there is no action {k}: choose 1-{len(actions)}, or type 'list'")
                return None
            return actions[k - 1]
        try:
            placed = term.parse_placement(text, options, state.game)
        except ValueError as exc:
            write(f"{exc}; type 'list' for every move, 'help' for how to type one")
            return None
        if placed is not None:
            return placed
        try:
            action = state.string_to_action(text)
        except (ValueError, KeyError):
            try:
                action = match_prefix(state, actions, text)
            except ValueError as exc:
                write(f"not understood: {text!r} ({exc}). Type a number from the list, an action "
                      "as written there (or its start), or 'help'")
                return None
        if action not in actions:
            write(f"{text!r} is not legal now; type 'list' to see what is")
            return None
        return action

    def _remember(self, state, action):
        """Note the state before `action` (for the label of the move) and, in Metro, the board
        after it (the squares that differ next time are the others' moves)."""
        try:
            self._before = state.clone()
            if term.is_metro(state):
                after = state.clone()
                after.apply(action)
                self._seen = list(after.board())
        except Exception:  # noqa: BLE001 - marks are a courtesy
            self._seen = None

    def show_hint(self, state, actions):
        if self.hint is None:
            self.write("no hint: no hint bot")
            return
        try:
            hinter = self.hint.make(seed=derive(self.hint_seed, 0x4141, self.hints))
            self.hints += 1
            analysis = hinter.analyse(state, self.hint.limit)
            number = actions.index(analysis.chosen) + 1 if analysis.chosen in actions else "?"
            self.say(f"hint ({self.hint.display}): play {number}: {term.describe(state, analysis.chosen)}")
            self.say(self._hint_table(state, analysis, top=5), indent=" " * 6)
        except Exception as exc:  # noqa: BLE001 - a hint must never end the game
            self.say(f"no hint: {type(exc).__name__}: {exc}")

    @staticmethod
    def _hint_table(state, analysis, top=5):
        """The hint's alternatives in a person's words: the moves the search liked best (most
        visited first), each with the share of wins it expects from here, labelled as the
        terminal labels moves (Metro 2033: ``hire 2 soldiers`` for ``count 2``, station names
        for ids); no search internals, and no expected line (it would show the other players'
        hidden tiles and cards as the search imagined them, as if they were known)."""
        liked = sorted((a for a in analysis.actions if a.visits > 0), key=lambda a: (-a.visits, a.action))[:top]
        if not liked:
            return "  (a forced move: nothing to weigh)"
        rows = ["  the moves it liked best, and how often it expects each to win from here:" if state.num_players > 1
                else "  the moves it liked best, and the result it expects of each (100%: the best there is):"]
        labels = [term.describe(state, a.action) for a in liked]
        width = max(len(label) for label in labels)
        for a, label in zip(liked, labels):
            chosen = "   <- its choice" if a.action == analysis.chosen else ""
            rows.append(f"    {label:<{width}}  {100 * a.mean:3.0f}%{chosen}")
        hidden = "; what it cannot see was imagined, not known" if state.num_players > 1 else ""
        rows.append(f"  ({analysis.iterations:,} imagined continuations{hidden})")
        return "\n".join(rows)
