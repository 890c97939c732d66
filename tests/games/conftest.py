"""The game tests' markers: ``bots`` marks a test that plays through the sandboxed referee with
real bot processes; the mutation check (bench/mutate.py) leaves those out, as its copies of the
project are not what the sandboxed bots import."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "bots: plays through the sandboxed referee with bots")
