"""Metro's modules: ``MetroModule``, the base class of every module, and ``MODULES``, the one table
that registers them (issue #42).

A module is an expansion of the ``metro`` game switched on by its options: the companies (M11-M20,
``companies.pyx``), the City Edition's central stations and tracks (C2-C3, ``central.pyx``) and its
cities (C5-C10, C26-C35, ``cities.pyx``). Each is one subclass of ``MetroModule`` in its own file,
overriding the named hooks below; the defaults say "not mine", so a module writes only the hooks
its part needs. ``MetroGame`` keeps the active ones (``MetroGame.modules``, in ``MODULES`` order)
and calls the hooks through the three helpers at the end of this file, one per kind of hook:

* claims (``claim``): the deal, the loader, the blank state, the reference engine, an action's
  text and a text's action. The first active module in ``MODULES`` order whose hook answers (not
  None) wins; a module that wins composes the modules after it itself (the cities deal the
  companies' shares and lay the central tracks, C35; the central stations load the companies'
  part, C18), and when none answers the base game does it.
* sums (``total``): ``action_bounds`` and ``game_length``, what each active module's part adds.
* the state's Python face (``layers``): ``public``, ``state_fields``, ``observe``, ``render`` and
  ``summary`` write each part's fields after the base game's, innermost first: the last module of
  ``MODULES`` first, so that the first (the outermost, the one that wins a claim) writes last.

The C part of a module stays in the C hot paths as a table flag, tested through one inline helper
per module in ``rules.pxd`` (``has_companies``, ``has_central``, ``has_centre_tracks``): the
tile-placement and scoring loops make no Python call. A module's Python methods on the state
(``state_methods``: e.g. the companies' ``profits``, ``shares``) are defined in its own file over
``MetroState`` and lent by name to the state (``state.pyx``), so that they are found where the
state's other methods are and typed in ``state.pyi``.

Modules or subclasses, by one rule:

* An expansion that the ``metro`` game switches on by an option is a module: a ``MetroModule``
  here, whatever it adds. Where its rules only add to the base game's turn (new actions, a part of
  the state played by flag-tested branches of ``MetroState``'s C methods), its part is a field of
  ``MetroState`` (the companies' ``co``, the central pieces' ``cd``); where they change the turn
  itself (who moves, what happens after every placement: the cities' tourists, Paris's choices),
  its state is a subclass of ``MetroState`` (``CityState``) that the module's ``blank_state`` hook
  makes. The game class stays ``MetroGame``.
* A game of its own, registered under its own name with its own options, players and turn (the
  solo game ``metro-solo``, C4), is a subclass of ``MetroGame`` (and of ``MetroState``) with no
  module (``modules == ()``): it writes the game's methods itself, as any game does.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Optional

#: The modules of Metro, by their file under ``metro_ai.engine.metro``, in dispatch order: the first
#: active one that answers a claim wins (a city before the central pieces before the companies). A
#: new module adds its file with its ``MetroModule`` subclass (as ``MODULE``) and a name here.
MODULES = ("cities", "central", "companies")


class MetroModule:
    """One module of Metro: its options' test and its hooks, each with a default that leaves the
    call to the next module (claims: None), adds nothing (sums: 0) or writes nothing (the state's
    face). Subclasses are singletons: ``MODULE = CompaniesModule()`` in the module's file."""

    #: The module's file under ``metro_ai.engine.metro`` (its entry in ``MODULES``).
    name: str = ""
    #: The rules it plays (``docs/rules/metro.md``), for its docstring and messages.
    rules: str = ""
    #: The state's Python methods defined in the module's file and lent to ``MetroState`` by name.
    state_methods: tuple[str, ...] = ()
    #: Its reason codes (``c_check``'s refusals) and their texts.
    reasons: dict[int, str] = {}

    def active(self, game: Any) -> bool:
        """Whether `game`'s options switch the module on."""
        raise NotImplementedError(f"{type(self).__name__} must say when it is active")

    # ---- claims: the first active module whose hook answers (not None) wins ----
    def new_state(self, game: Any, seed: int) -> Any:
        """A new state dealt from `seed`, or None (the next module's or the base game's deal)."""
        return None

    def load_state(self, game: Any, obj: dict[str, Any]) -> Any:
        """The state `obj` describes, checked in full, or None (the next module's loader)."""
        return None

    def blank_state(self, game: Any) -> Any:
        """An empty state of a class of the module's own (a ``MetroState`` subclass), or None."""
        return None

    def reference_game(self, game: Any) -> Any:
        """The same game on the module's pure-Python reference engine, or None."""
        return None

    def owns_action(self, game: Any, action: Any) -> bool:
        """Whether `action`'s text is the module's (``action_to_string``)."""
        return False

    def action_to_string(self, game: Any, action: int) -> Optional[str]:
        """The text of an action the module owns."""
        return None

    def owns_text(self, game: Any, text: str) -> bool:
        """Whether `text` reads as one of the module's actions (``string_to_action``)."""
        return False

    def string_to_action(self, game: Any, text: str) -> Optional[int]:
        """The action a text the module owns writes."""
        return None

    # ---- sums over the active modules ----
    def action_bounds(self, game: Any) -> tuple[int, int]:
        """What the module's part adds to the action bounds: (legal actions a position may gain,
        end of its action ids), summed and maxed into ``max_actions`` / ``num_actions``."""
        return 0, 0

    def game_length(self, game: Any) -> int:
        """The most actions the module's part adds to a game."""
        return 0

    # ---- the state's Python face, innermost first ----
    def public(self, st: Any, obj: dict[str, Any]) -> None:
        """Add the part's public fields to a state's JSON `obj`."""

    def state_fields(self, st: Any, obj: dict[str, Any]) -> None:
        """Add the part's hidden fields to a state's full JSON `obj`."""

    def observe(self, st: Any, obs: dict[str, Any], player: int) -> None:
        """Fit `player`'s observation `obs` to the part (what they see of it, what they may not)."""

    def render(self, st: Any, rows: list[str], player: Optional[int]) -> None:
        """Append the part's rows to a state's text drawing."""

    def summary(self, st: Any) -> str:
        """The part's words in a state's one-line summary."""
        return ""


_REGISTERED: Optional[tuple[MetroModule, ...]] = None


def registered() -> tuple[MetroModule, ...]:
    """The module of every entry of ``MODULES`` (each file's ``MODULE``), in order."""
    global _REGISTERED
    if _REGISTERED is None:
        _REGISTERED = tuple(importlib.import_module(f"{__package__}.{name}").MODULE for name in MODULES)
    return _REGISTERED


def active(game: Any) -> tuple[MetroModule, ...]:
    """The modules `game`'s options switch on, in ``MODULES`` order."""
    return tuple(m for m in registered() if m.active(game))


def claim(modules: tuple[MetroModule, ...], hook: str, *args: Any) -> Any:
    """The answer of the first of `modules` whose `hook` answers (not None): the first module wins;
    None if none does (the base game's turn)."""
    for module in modules:
        out = getattr(module, hook)(*args)
        if out is not None:
            return out
    return None


def owner(modules: tuple[MetroModule, ...], test: str, *args: Any) -> Optional[MetroModule]:
    """The first of `modules` whose `test` hook (``owns_action``, ``owns_text``) claims the call."""
    return next((m for m in modules if getattr(m, test)(*args)), None)


def total(modules: tuple[MetroModule, ...], hook: str, *args: Any) -> list[Any]:
    """Every module's answer to `hook`, in order (to sum or max)."""
    return [getattr(m, hook)(*args) for m in modules]


def layers(modules: tuple[MetroModule, ...]) -> tuple[MetroModule, ...]:
    """`modules` innermost first (the state's face: the last of ``MODULES`` writes first)."""
    return tuple(reversed(modules))


def state_maker(modules: tuple[MetroModule, ...]) -> Optional[Callable[[Any], Any]]:
    """The first module's ``blank_state`` that overrides the default (a state class of its own)."""
    return next((m.blank_state for m in modules if type(m).blank_state is not MetroModule.blank_state), None)


def reasons() -> dict[int, str]:
    """Every registered module's reason texts, by code."""
    out: dict[int, str] = {}
    for m in registered():
        out.update(m.reasons)
    return out
