"""Bridges from metro-ai games to other frameworks.

``metro_ai.interop.openspiel`` registers the games with OpenSpiel (optional extra ``openspiel``).
Sub-modules are imported explicitly, so importing this package needs nothing optional.
"""
