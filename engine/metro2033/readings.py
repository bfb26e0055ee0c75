"""Metro 2033's readings: the rules ``metro2033`` plays that are this project's decisions, not the
printed rules (the rulebook's page is silent, or a game needs a bound). One line each, with the id
of the decision in ``docs/rules/metro2033.md``; ``metro-ai games`` lists them (``Game.readings``).
"""

METRO2033 = (
    ("G22", "a Hansa station belongs to its map zone: closed with that zone out of play"),
    ("G23", "army paths: through neutral Polis and Hansa stations and at most one Hansa tunnel"),
    ("G24", "set-up order: faction draft from seat 0, hero draft from the last seat, then start stations"),
    ("G25", "a wounded hero goes to the first home station still held, misses its next hero phase and cannot defend"),
    ("G26", "fight strengths add the faction's, the law's, the hero's and the equipment's bonuses"),
    ("G28", "no fewer than 3 stations: a free neutral producing station after every loss that leaves 2 or "
            "fewer; resources capped at 35 each"),
    ("G29", "a fulfilled quest is completed at its holder's choice, asked at their army and hero decisions "
            "and at quest checks after the events and after each army and hero action"),
    ("G30", "round_limit (default 40): a game without a winner ends there, ranked by VP"),
    ("G31", "votes are open, cast one at a time from the first player; a law passes with more for than "
            "against; the Confederation decides whether to look before it looks"),
    ("G32", "simultaneous choices (threat declarations, combat cards) are made one at a time, hidden"),
    ("G33", "upkeep: the player keeps any strength from the free strength (5, or a law's) up to what the "
            "pigs pay for; free strength is never disbanded"),
    ("G38", "quest checks ask every holder of an uncompleted quest, fulfilled or not (done always legal), "
            "so that the others learn nothing of hidden quests; others see each move exactly as it shows"),
)
