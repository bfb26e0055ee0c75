"""The version of metro-ai, in a module of its own so that any floor can name it without
importing the facade (:mod:`metro_ai`)."""

__version__ = "0.1.0"
