"""Bot specifications, ``NAME[:KEY=VALUE,...]``: they live on the bots floor, in
:mod:`metro_ai.bots.catalogue` (a spec names a bot, so the catalogue and the specs are one
module); their names stay importable from here.
"""
from metro_ai.bots.catalogue import RESERVED, BotSpec, BotSpecError, format_value, parse_specs, parse_value

__all__ = ["RESERVED", "BotSpec", "BotSpecError", "format_value", "parse_specs", "parse_value"]
