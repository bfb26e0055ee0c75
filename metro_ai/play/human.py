"""A person's seat: it shows the state as that player sees it and the legal actions, reads an
action from input (a number from the list, or the action written out), and answers ``help``,
``list``, ``board``, ``hint`` and ``quit``. ``metro-ai play`` puts it in the game loop
(:func:`metro_ai.play.loop.play_game`) beside the bots.
"""
from __future__ import annotations

import shutil

from metro_ai.bots.seeding import derive
from metro_ai.play.loop import Stop

HELP = """{title}, seat P{player}: {phase}
commands:
  NUMBER        play the action with that number in the list
  TEXT          play the action written out as in the list, e.g. {example},
                or the start of it if only one legal action starts so, e.g. {prefix}
  list          show the legal actions again      board   show the board again
  hint          what the hint bot would play, and why
  help          this help                          quit    leave the game
the actions you have now are of these kinds: {kinds}"""


def _norm(text):
    return " ".join(text.lower().split())


def match_prefix(state, actions, text):
    """The legal action whose text starts with `text` (case and spacing free), the lowest id
    among copies printed alike; ValueError naming the candidates when none or several differ."""
    want = _norm(text)
    hits: dict[str, int] = {}
    for a in actions:
        t = state.action_to_string(a)
        if _norm(t).startswith(want):
            hits.setdefault(t, a)
    if len(hits) == 1:
        return next(iter(hits.values()))
    if not hits:
        raise ValueError("no legal action starts so")
    shown = sorted(hits)[:6]
    raise ValueError(f"{len(hits)} actions start so: " + "; ".join(shown) + ("; ..." if len(hits) > 6 else ""))


def _help(state, actions, player):
    texts = [state.action_to_string(a) for a in actions]
    kinds = sorted({t.split(" ")[0] for t in texts})
    example = texts[-1]
    prefix = next((t[:n] for t in texts for n in range(3, len(t) + 1)
                   if sum(_norm(u).startswith(_norm(t[:n])) for u in set(texts)) == 1), example)
    phase = getattr(state, "phase", "")
    return HELP.format(title=state.game.title, player=player, phase=f"phase {phase}" if phase else "",
                       example=repr(example), prefix=repr(prefix), kinds=", ".join(kinds))


def columns(items, width):
    """`items` in as many columns as fit in `width` characters, filled down the columns."""
    if not items:
        return []
    cell = max(len(s) for s in items) + 2
    per = max(1, width // cell)
    rows = -(-len(items) // per)
    return ["".join(items[r + c * rows].ljust(cell) for c in range(per) if r + c * rows < len(items)).rstrip()
            for r in range(rows)]


class HumanSeat:
    """The seat of `player`, played by a person through `read` (``input``) and `write` (``print``).

    `hint`: a search bot's :class:`~metro_ai.bots.catalogue.BotSpec` that answers ``hint`` (each
    hint a fresh bot seeded from `hint_seed` and the hint's number), or None for no hints.
    Leaving (``quit``, or the end of input) raises :class:`~metro_ai.play.loop.Stop`.
    """

    name = "you"

    def __init__(self, player, read=input, write=print, hint=None, hint_seed=0, width=None):
        self.player = player
        self.read, self.write = read, write
        self.hint, self.hint_seed, self.hints = hint, hint_seed, 0
        self.width = width or shutil.get_terminal_size((100, 24)).columns

    def show_actions(self, state, actions):
        items = [f"{i + 1:>3}: {state.action_to_string(a)}" for i, a in enumerate(actions)]
        self.write(f"your legal actions ({len(actions)}):")
        for line in columns(items, self.width):
            self.write("  " + line)

    def choose(self, state, limit=None):
        me, write = self.player, self.write
        write("")
        write(state.render(player=me))
        actions = state.legal_actions()
        self.show_actions(state, actions)
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
                write(_help(state, actions, me))
                continue
            if low in ("list", "l", "actions"):
                self.show_actions(state, actions)
                continue
            if low in ("board", "b"):
                write(state.render(player=me))
                continue
            if low == "hint":
                self.show_hint(state, actions)
                continue
            if text.isdigit():
                k = int(text)
                if not 1 <= k <= len(actions):
                    write(f"there is no action {k}: choose 1-{len(actions)}, or type 'list'")
                    continue
                return actions[k - 1]
            try:
                action = state.string_to_action(text)
            except (ValueError, KeyError):
                try:
                    action = match_prefix(state, actions, text)
                except ValueError as exc:
                    write(f"not understood: {text!r} ({exc}). Type a number from the list, an action "
                          "as written there (or its start), or 'help'")
                    continue
            if action not in actions:
                write(f"{text!r} is not legal now; type 'list' to see what is")
                continue
            return action

    def show_hint(self, state, actions):
        if self.hint is None:
            self.write("no hint: no hint bot")
            return
        try:
            hinter = self.hint.make(seed=derive(self.hint_seed, 0x4141, self.hints))
            self.hints += 1
            analysis = hinter.analyse(state, self.hint.limit)
            number = actions.index(analysis.chosen) + 1 if analysis.chosen in actions else "?"
            self.write(f"hint ({self.hint.display}): play {number}: {analysis.chosen_text}")
            self.write(analysis.table(top=5))
        except Exception as exc:  # noqa: BLE001 - a hint must never end the game
            self.write(f"no hint: {type(exc).__name__}: {exc}")
