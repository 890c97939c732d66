"""Arena: a tournament runner for bot competitions."""

__version__ = "0.1.0"
