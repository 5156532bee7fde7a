"""Marking the core's words for translation, without importing any translation library.

``N_("text")`` returns the text unchanged; the message extractor (``babel.cfg``)
collects every ``N_`` string, and the web layer translates them when it shows
them. The core itself always speaks English (the CLI, the match file).
"""

from __future__ import annotations


def N_(text: str) -> str:  # noqa: N802 - the gettext convention for "translate later"
    """Mark ``text`` for translation and return it unchanged."""
    return text
