"""Error types of metro-ai. They live at the bottom floor so engines, bots and the API share them."""


class MetroAIError(Exception):
    """Base class of every error metro-ai raises on purpose."""


class IllegalActionError(MetroAIError, ValueError):
    """An action that is not legal in the state it was applied to; the state is left unchanged."""


class StateFormatError(MetroAIError, ValueError):
    """A serialised state (JSON) that is malformed or inconsistent with the rules."""


class DataError(MetroAIError, ValueError):
    """A game data file (tiles, stations, charts, card set) that is malformed or cannot be read.

    Files are read by ``metro_ai.engine.datafile``; the message names the file as given, the line
    and the column or field, and never quotes the file's contents."""


#: The longest quotation of an outside value in an error message.
BRIEF = 60


def brief(value) -> str:
    """`value`'s repr for an error message, cut to about `BRIEF` characters: a loader names the
    field that is wrong and may show what it holds, but never echoes a list of a thousand entries
    or a number of five thousand digits back."""
    try:
        text = repr(value)
    except ValueError:                  # an int too long for repr: say so, without the digits
        return "a number too long to print"
    return text if len(text) <= BRIEF else text[:BRIEF - 3] + "..."


class PythonGameError(MetroAIError, RuntimeError):
    """A game written in plain Python (``metro_ai.engine.python_game``) broke the contract: one of
    its methods raised inside a search or a play-out (the original exception is the
    ``__cause__``), gave a value of the wrong kind (an action outside the action space, a score
    that is not a finite number, a return outside [0, 1], a mover that is not a seat...), did not
    end within its ``max_game_length``, or did not return when its search had to stop. The
    message names the game and the method."""
