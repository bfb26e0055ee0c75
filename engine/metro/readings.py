"""Metro's readings: the rules ``metro`` and ``metro-solo`` play that are this project's decisions,
not the printed rules (where the rulebooks are silent, garbled or cut off, or where a game would
otherwise never end). One line each, with the id of the decision in ``docs/rules/metro.md``;
``metro-ai games`` lists them (``Game.readings``). Values **reconstructed** because the printed
ones could not be read say so in the options too.
"""

#: The base game, the companies expansion, the City Edition modules 1-3 and the cities.
METRO = (
    ("M17", "exchange_limit (default 8) caps each player's share exchanges, so that every game ends; "
            "exchange_limit=None is the printed rule (exchanges until a company reaches 25)"),
    ("M20", "with exchange_limit=None, turn_limit (default 60 + 30 per player) ends the game, ranked by "
            "the final scoring"),
    ("M19", "shares still in the piles score for nobody, and a company nobody holds pays no majority bonus"),
    ("M21", "company values with tied profits are ranked densely from the top (8, then 7 for the next "
            "lower profit, ...), so the least profitable company can be worth more than 1"),
    ("M11", "the companies' station chart is reconstructed (the printed one could not be read)"),
    ("C19", "the City Edition's setup frames are reconstructed as the base game's charts for 2, 4 and 6 players"),
    ("C13", "central-track pieces: layouts reconstructed; they count as tiles for a line passing them "
            "(a point each pass) but open no square for placement and are not among the 60 tiles"),
    ("C15", "a line that reaches a central space with no piece scores double and uses the space: no "
            "central-station piece can go there later"),
    ("C17", "a central-station piece is a whole turn (not after drawing), on a space no line has reached"),
    ("C26", "the cities' numbers (landmarks, points, VP pieces, tickets) are reconstructed (data/cities.json)"),
    ("C27", "tourists are dealt one per inner square, 4 of each colour, from the game's seed"),
    ("C28", "Paris: 12 landmarks of 3 spaces; 1 point per tourist on a landmark, 3 more when it is full"),
    ("C29", "Stockholm: landmark points 1, 1, 2, 2, 3, 3, 4, 4, scored for the holder of the colour's marker"),
    ("C31", "New York: a board scores 1 per tourist plus a bonus for the number of colours on it"),
    ("C32", "Berlin: the landmarks' squares and both sides' VP pieces"),
    ("C33", "Berlin's ticket variant: a group of 4 tourists is a quarter of the board (4 of its 8 inner "
            "squares); no VP piece is won; tickets score as New York's boards"),
    ("C35", "New York with the companies: a board's points are its company's profit points"),
)

#: The solo game (City Edition module 4).
METRO_SOLO = (
    ("C22", "a rejected tile goes back uniformly among the supply's middle places (never top or bottom); "
            "a reject needs 2 tiles left; rejecting ends with the 8th reveal"),
    ("C24", "the score, the sum of the eight companies' profits, is reconstructed (the text's scoring is cut off)"),
    ("C21", "a revealed share whose company has no open line is passed over at once"),
    ("M11", "the companies' station chart is reconstructed (the printed one could not be read)"),
)
