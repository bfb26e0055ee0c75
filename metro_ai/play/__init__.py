"""Playing games between bots (and people): the floor above the bots.

- :mod:`~metro_ai.play.loop`: the one game loop (:func:`~metro_ai.play.loop.play_game`) that
  every game goes through; a seat is a bot, a callable, or a person reading actions from input
  (:mod:`~metro_ai.play.human`).
- :mod:`~metro_ai.play.match`: one game and its JSON record (:func:`metro_ai.play_match`),
  replaying a record, loading a saved state.
- :mod:`~metro_ai.play.tournament`: round robins and gauntlets over duplicate deals, in parallel,
  stored in SQLite and resumable (:class:`metro_ai.Tournament`).
- :mod:`~metro_ai.play.ratings`: Elo ratings (Bradley-Terry, Plackett-Luce) with intervals.
- :mod:`~metro_ai.play.report`: standings, matrices, CSV, plots and the progress line.
- :mod:`~metro_ai.play.calibrate`: measuring an Elo ladder (``metro-ai calibrate``): a ladder
  tournament of difficulty levels, their ratings and agreement (the bots floor reads the ladders:
  :mod:`metro_ai.bots.elo`).

Bot specifications (a bot with its options and budget in one line of text,
``"ismcts:c=1.0,iterations=200"``) live on the bots floor, in :mod:`metro_ai.bots.catalogue`.

Nothing here knows a game: every rule, name and text comes from the game's own classes. Users
import from :mod:`metro_ai`.
"""
