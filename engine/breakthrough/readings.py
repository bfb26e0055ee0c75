"""Metro 2033: Breakthrough's readings: the rules ``breakthrough`` plays that are this project's
decisions, not the printed rules. One line each, with the id of the decision in
``docs/rules/breakthrough.md``; ``metro-ai games`` lists them (``Game.readings``).
"""

BREAKTHROUGH = (
    ("R2", "a quest's resources are the player's choice among the minimal sets that reach the amount"),
    ("R8", "a face-up market slot taken is refilled at once from the deck"),
    ("R12", "a monster's threat card is discarded before the attack; players defend from the discarder on"),
    ("R16", "losing a station with none in play does nothing"),
    ("R17", "hands refill from the active player clockwise, each to five before the next"),
    ("R18", "turn_limit (default 1000): a game without a winner ends there, ranked by tokens"),
    ("R22", "factions are dealt from the game's seed unless given"),
)
