# cython: language_level=3
"""Leduc poker, OpenSpiel's ``leduc_poker``: the game and state on the contract (``LeducGame``,
``LeducState``, over the C mechanics of ``rules.pyx``), a fast determinised engine (rules L1-L8), kept as a
*benchmark game* (``family = "benchmark"``): the same game on both sides is the only honest speed
comparison of our search with OpenSpiel's.

Rules as this project plays them: ``docs/rules/leduc.md``, written from OpenSpiel's published
game parameters (``pyspiel.load_game("leduc_poker").get_parameters()``: players 2,
starting_player 0, action_mapping and suit_isomorphism off) and its documented rules (Southey
et al., "Bayes' Bluff", 2005): a deck of two suits of ``players + 1`` ranks (J, Q, K for two
players), an ante of 1, two betting rounds with raises of 2 then 4 and at most two raises a
round, one public card between the rounds, a pair with the public card beating any other hand.
``tests/leduc/test_leduc_openspiel.py`` plays the engine against ``pyspiel`` itself.

Encoding (part of the public contract, shared with the reference engine ``reference.py``)
---------------------------------------------------------------------------------------
* Cards: ``0 .. 2 * (players + 1) - 1`` as in OpenSpiel; rank ``card // 2``, suit ``card % 2``.
  Text: the rank's letter (the top ``players + 1`` of ``23456789TJQK``) and the suit (``s``, ``h``):
  ``Js``, ``Jh``, ``Qs``, ``Qh``, ``Ks``, ``Kh`` for two players.
* Actions: 0 fold, 1 call (a check when there is nothing to call), 2 raise (a bet when there is
  nothing to call): OpenSpiel's action ids.
* Seeds: splitmix64 (``rng.pxd``). ``new_state(seed)`` shuffles the cards, listed in ascending
  order, with Fisher-Yates from the end; player ``p`` holds card ``p`` of the shuffled deck and
  the public card is card ``players``. Player 0 starts each round (the first player still in,
  for the second).
* ``determinize(player, seed)`` lists the cards the player has not seen (not their own, not the
  public card once it is shown, not those shown at a showdown) in ascending order, shuffles them
  the same way and deals the other hidden cards in seat order, then the public card if it is
  not yet shown.
* Returns: the chips won (the pot shared by the best hands, less what the player put in: L7),
  mapped affinely onto [0, 1] as ``1/2 + chips / (2 * max_win)``, ``max_win = 13 * (players -
  1)`` (OpenSpiel's ``max_utility``), so they sum to ``players / 2`` like every game's returns and
  maximising them maximises chips. ``scores()`` are the chips themselves (before the end, minus
  what each player has put in). OpenSpiel's returns for the same play are ``scores()`` at the end.
"""
from libc.stdint cimport uint64_t

from metro_ai.engine.core cimport Game, GameState
from metro_ai.engine.rng cimport rng_t, rng_shuffle
from metro_ai.engine.core import Option, as_seed
from metro_ai.engine.errors import StateFormatError

RANK_LETTERS = "23456789TJQK"
SUIT_LETTERS = "sh"
ACTION_NAMES = ("fold", "call", "raise")
_ALIASES = {"fold": 0, "call": 1, "check": 1, "raise": 2, "bet": 2}

cdef enum:
    R_OVER = 1
    R_RANGE = 2
    R_NOTHING_TO_CALL = 3
    R_RAISES = 4

_REASONS = {R_OVER: "the hand is over", R_RANGE: "actions are 0 (fold), 1 (call) and 2 (raise)",
            R_NOTHING_TO_CALL: "there is no bet to fold to: call (check) or raise (bet) (L5)",
            R_RAISES: "two raises have been made this round (L5)"}


def card_name(int card, int players):
    """Text of a card: rank letter and suit letter, e.g. ``Js`` (see the module docstring)."""
    ranks = RANK_LETTERS[len(RANK_LETTERS) - (players + 1):]
    return ranks[card >> 1] + SUIT_LETTERS[card & 1]


cdef class LeducGame(Game):
    """Leduc poker for 2-8 players (OpenSpiel's ``leduc_poker``, which takes 2-10; the contract
    holds at most 8). Option: ``players`` (L1)."""
    name = "leduc"
    title = "Leduc poker (OpenSpiel's leduc_poker; benchmark game)"
    family = "benchmark"
    min_players = 2
    max_players = LEDUC_MAX_PLAYERS
    OPTIONS = (
        Option.integer("players", 2, "number of players (OpenSpiel's parameter 'players')", low=2,
                       high=LEDUC_MAX_PLAYERS, rule="L1"),
    )
    search_defaults = {"rollout": "random", "rollout_depth": None, "cutoff_scale": 0.0}
    state_fields = ("cards", "public_card", "history")
    benchmark_moves = {"opening": 0, "middle": 2, "end": 4}
    reference = "metro_ai.engine.leduc.reference:RefLeducGame"
    features = "metro_ai.engine.leduc.features:LeducFeatures"
    svg = "metro_ai.engine.leduc.svg:table_svg"
    #: The same game in OpenSpiel: ``pyspiel.load_game(openspiel_game, openspiel_parameters())``.
    openspiel_game = "leduc_poker"

    def _configure(self):
        self.num_cards = 2 * (self.players + 1)
        self.max_win = 13 * (self.players - 1)      # 1 ante + 2 raises of 2 + 2 raises of 4 per opponent

    def openspiel_parameters(self):
        """The parameters of the same game in OpenSpiel (``pyspiel.load_game``)."""
        return {"players": self.players}

    def openspiel_history(self, state):
        """The OpenSpiel actions, chance outcomes included, that reach `state` in OpenSpiel's
        game: each player's card in seat order, the first round's actions, then, once shown,
        the public card and the second round's actions (OpenSpiel's ``State.history()``)."""
        cdef LeducState st = state
        out = [st.d.card[p] for p in range(self.players)] + st.history()[0]
        if st.d.round == 1:
            out += [st.d.public_card] + st.history()[1]
        return out

    @property
    def max_actions(self):
        return 3

    @property
    def num_distinct_actions(self):
        return 3

    @property
    def max_game_length(self):
        return 2 * (3 * self.players - 2)      # L5: two rounds, each at most 3 * players - 2 actions

    @property
    def card_names(self):
        """Text of every card, by card number."""
        return tuple(card_name(c, self.players) for c in range(self.num_cards))

    cdef LeducState _blank(self):
        cdef LeducState st = LeducState.__new__(LeducState)
        st.game = self
        st.n = self.players
        return st

    def new_state(self, seed=0):
        """A new hand dealt from `seed` (any int): the cards shuffled, one to each player, the
        public card set aside face down, the antes in, player 0 to move."""
        cdef rng_t rng = as_seed(seed)
        cdef signed char deck[18]
        cdef int i
        for i in range(self.num_cards):
            deck[i] = i
        rng_shuffle(&rng, deck, self.num_cards)
        cdef LeducState st = self._blank()
        leduc_deal(&st.d, self.players, deck, deck[self.players])
        return st

    def deal(self, cards, public_card):
        """The hand where player ``p`` holds ``cards[p]`` and the public card is `public_card`
        (card numbers, all different): the antes in, player 0 to move. ValueError if not a deal."""
        n = self.players
        if not isinstance(cards, (list, tuple)) or len(cards) != n:
            raise ValueError(f"leduc deal: cards must be a list of {n} card numbers, got {cards!r}")
        allc = list(cards) + [public_card]
        if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < self.num_cards for c in allc):
            raise ValueError(f"leduc deal: every card is an int in 0..{self.num_cards - 1}, got {allc!r}")
        if len(set(allc)) != len(allc):
            raise ValueError(f"leduc deal: a card is dealt twice in {allc!r}")
        cdef signed char c[8]
        for i in range(n):
            c[i] = cards[i]
        cdef LeducState st = self._blank()
        leduc_deal(&st.d, n, c, public_card)
        return st

    def card_index(self, text):
        """The card number of a card's text (``Js``); ValueError if none."""
        names = self.card_names
        if isinstance(text, str) and len(text) == 2 and text[0].upper() + text[1].lower() in names:
            return names.index(text[0].upper() + text[1].lower())
        raise ValueError(f"unknown card {text!r}; cards are {', '.join(names)}")

    def _load_state(self, obj):
        def bad(msg):
            raise StateFormatError(f"leduc state: {msg}")
        n = self.players
        cards, public, history = obj["cards"], obj["public_card"], obj["history"]
        if not isinstance(cards, list) or len(cards) != n:
            bad(f"cards must be a list of {n} cards")
        try:
            nums = [self.card_index(c) for c in cards] + [self.card_index(public)]
        except ValueError as exc:
            bad(str(exc))
        if len(set(nums)) != len(nums):
            bad(f"a card is dealt twice: {cards + [public]!r}")
        st = self.deal(nums[:n], nums[n])
        if not isinstance(history, list) or len(history) != 2 or any(not isinstance(r, list) for r in history):
            bad("history must be a list of two lists of actions (one per betting round)")
        for rnd, actions in enumerate(history):
            for i, text in enumerate(actions):
                where = f"history round {rnd + 1}, action {i + 1}"
                if st.is_terminal():
                    bad(f"{where}: the hand is already over")
                if st.round != rnd + 1:
                    bad(f"{where}: betting round {rnd + 1} is over (L5)")
                if text not in ACTION_NAMES:
                    bad(f"{where}: {text!r} is not one of {', '.join(ACTION_NAMES)}")
                a = ACTION_NAMES.index(text)
                if not st.is_legal(a):
                    bad(f"{where}: {text} is not legal here: {st._reason((<LeducState>st).c_check(a))}")
                st.apply(a)
        for key in ("current_player", "round", "spent", "folded"):
            if key in obj and obj[key] != st._state_fields()[key]:
                bad(f"{key} {obj[key]!r} does not match the history, which gives {st._state_fields()[key]!r}")
        return st

    def action_to_string(self, action):
        """``fold``, ``call`` or ``raise``; ValueError for anything that is not an action id."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action <= 2:
            raise ValueError(f"not a Leduc action: {action!r} (actions are 0 fold, 1 call, 2 raise)")
        return ACTION_NAMES[action]

    def string_to_action(self, text):
        """Parse ``fold``, ``call`` (or ``check``), ``raise`` (or ``bet``); case and spaces are free."""
        if isinstance(text, str) and text.strip().lower() in _ALIASES:
            return _ALIASES[text.strip().lower()]
        raise ValueError(f"cannot read Leduc action {text!r}: expected fold, call (check) or raise (bet)")


cdef class LeducState(GameState):
    """A Leduc hand, hidden cards included. Make one with ``LeducGame.new_state(seed)`` or
    ``LeducGame.deal(cards, public_card)``."""

    # ---- the C-level contract ----
    cdef int c_num_players(self) noexcept nogil:
        return self.n

    cdef int c_max_actions(self) noexcept nogil:
        return 3

    cdef int c_num_actions(self) noexcept nogil:
        return 3

    cdef int c_current_player(self) noexcept nogil:
        return self.d.current

    cdef bint c_is_terminal(self) noexcept nogil:
        return self.d.current < 0

    cdef int c_legal_actions(self, int* out) noexcept nogil:
        return leduc_legal(&self.d, out)

    cdef int c_check(self, int action) noexcept nogil:
        if self.d.current < 0:
            return R_OVER
        if action < 0 or action > 2:
            return R_RANGE
        if action == LEDUC_FOLD and self.d.spent[self.d.current] >= self.d.stake:
            return R_NOTHING_TO_CALL
        if action == LEDUC_RAISE and self.d.raises >= LEDUC_MAX_RAISES:
            return R_RAISES
        return 0

    cdef void c_apply(self, int action) noexcept nogil:
        leduc_apply(&self.d, self.n, action)

    cdef void c_scores(self, double* out) noexcept nogil:
        leduc_chips(&self.d, self.n, out)

    cdef void c_returns(self, double* out) noexcept nogil:
        """Chips won mapped onto [0, 1]: 1/2 + chips / (2 * max_win) at the end, zeros before."""
        cdef int p
        cdef double scale = 2.0 * 13 * (self.n - 1)
        if self.d.current >= 0:
            for p in range(self.n):
                out[p] = 0.0
            return
        leduc_chips(&self.d, self.n, out)
        for p in range(self.n):
            out[p] = 0.5 + out[p] / scale

    cdef int c_chance_key(self, int player) noexcept nogil:
        """The public card, once shown (L6), plus one; 0 before: every player sees it, so the
        search tells apart the second rounds that follow different public cards."""
        return self.d.public_card + 1 if self.d.round == 1 else 0

    cdef void c_copy_from(self, GameState other) noexcept nogil:
        self.d = (<LeducState>other).d

    cdef void c_determinize_from(self, GameState source, int player, uint64_t seed) noexcept nogil:
        """Deal the cards `player` has not seen (L8): everything but their own card, the public
        card once shown and the cards shown at a showdown, in ascending order, shuffled, dealt to
        the other players in seat order, then the public card if still face down."""
        cdef LeducData* d = &self.d
        cdef signed char pool[18]
        cdef bint seen[18]
        cdef int c, p, k = 0, ncards = 2 * (self.n + 1)
        cdef bint shown
        cdef rng_t rng = seed
        self.d = (<LeducState>source).d
        shown = d.round == 1
        for c in range(ncards):
            seen[c] = False
        for p in range(self.n):
            if p == player or shown_at_showdown(d, p):
                seen[d.card[p]] = True
        if shown:
            seen[d.public_card] = True
        for c in range(ncards):
            if not seen[c]:
                pool[k] = c
                k += 1
        rng_shuffle(&rng, pool, k)
        k = 0
        for p in range(self.n):
            if p != player and not shown_at_showdown(d, p):
                d.card[p] = pool[k]
                k += 1
        if not shown:
            d.public_card = pool[k]

    cdef GameState c_new_blank(self):
        return (<LeducGame>self.game)._blank()

    # ---- Python face ----
    def _reason(self, int code):
        return _REASONS.get(code, f"reason code {code}")

    def _summary(self):
        return (f"leduc {self.n} players, round {self.round}, pot {self.pot}, "
                + (f"player {self.d.current} to move" if self.d.current >= 0 else "over"))

    @property
    def round(self):
        """The betting round, 1 or 2 (L6)."""
        return self.d.round + 1

    @property
    def pot(self):
        """Chips in the pot."""
        return sum(self.d.spent[p] for p in range(self.n))

    def card(self, int player):
        """`player`'s private card number (hidden from the others)."""
        self._check_player(player)
        return self.d.card[player]

    @property
    def public_card(self):
        """The public card number if it has been shown (round 2), else None."""
        return self.d.public_card if self.d.round == 1 else None

    def history(self):
        """The actions of each betting round, as two lists of action ids."""
        return [[self.d.hist[r][i] for i in range(self.d.hist_n[r])] for r in range(2)]

    def _public(self):
        return {
            "current_player": self.d.current,
            "round": self.round,
            "history": [[ACTION_NAMES[a] for a in h] for h in self.history()],
            "spent": [self.d.spent[p] for p in range(self.n)],
            "folded": [bool(self.d.folded[p]) for p in range(self.n)],
            "pot": self.pot,
        }

    def observation(self, player):
        """What `player` sees, as a JSON-ready dict: the cards they have seen (their own; at a
        showdown, those of every player still in: L8), the public card once shown (round 2),
        every action so far by round, what each player has put in, who has folded, the pot,
        the player to move and the chips won so far (``scores()``, known to all: at the end from
        the cards shown or the folds). Nothing hidden from them."""
        self._check_player(player)
        names = self.game.card_names
        obs = {"game": self.game.name, "options": self.game.state_options, "player": player,
               "cards": [names[self.d.card[p]] if p == player or shown_at_showdown(&self.d, p) else None
                         for p in range(self.n)],
               "public_card": names[self.d.public_card] if self.d.round == 1 else None}
        obs.update(self._public())
        obs["scores"] = self.scores()
        return obs

    def _state_fields(self):
        names = self.game.card_names
        obj = {"cards": [names[self.d.card[p]] for p in range(self.n)],
               "public_card": names[self.d.public_card]}
        obj.update(self._public())
        return obj

    def render(self, player=None):
        """A text drawing: the cards (all of them, or only `player`'s if given), the public card
        once shown, the actions of each round, the pot, and the chips won at the end."""
        names = self.game.card_names
        if player is not None:
            self._check_player(player)
        rows = []
        for p in range(self.n):
            card = names[self.d.card[p]] if player is None or player == p else "??"
            rows.append(f"P{p}: {card}  in {self.d.spent[p]}" + ("  folded" if self.d.folded[p] else ""))
        rows.append("public: " + (names[self.d.public_card] if self.d.round == 1 else "??"))
        for r, h in enumerate(self.history()):
            if h or r == self.d.round:
                rows.append(f"round {r + 1}: " + (" ".join(ACTION_NAMES[a] for a in h) or "-"))
        rows.append(f"pot: {self.pot}")
        if self.d.current >= 0:
            rows.append(f"to move: P{self.d.current}")
        else:
            rows.append("over: chips " + "  ".join(f"P{p}={s:+g}" for p, s in enumerate(self.scores())))
        return "\n".join(rows)
