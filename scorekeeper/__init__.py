"""Chicago Scorekeeper: the rules of Swedish Chicago, and a table to score it on."""

__version__ = "0.1.0"
