"""Metro 2033, the board game (2nd edition): in progress; see the README."""
