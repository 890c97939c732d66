"""A real browser for the report and viewer tests: Playwright driving Debian's chromium.

Playwright never downloads a browser here: it launches the system executable that
``scripts/install-system-deps`` installs. Console errors of a page fail the test that opened it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.web.servers import Serve, serving

CHROMIUM = shutil.which("chromium")


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is missing (scripts/install-system-deps installs it)")
    with sync_playwright() as pw:
        # Chromium's own sandbox needs user namespaces it cannot have as root in CI.
        instance = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page that records console errors and failed requests; both must stay empty."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
    yield page
    context.close()
    assert errors == [], f"the page reported errors: {errors}"


@pytest.fixture(params=["sqlite", "postgresql"])
def new_database(request: pytest.FixtureRequest) -> Callable[[], str | None]:
    """Where each competition a test makes stores its ladder and authors: None for the default
    SQLite files, else a new database of a real PostgreSQL server."""
    if request.param == "sqlite":
        return lambda: None
    server = request.getfixturevalue("postgres_server")
    return server.database


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Serve]:
    """Start real ``arena serve`` processes (``tests/web/servers.py``), killed at the end.
    A test asks for it before ``page``, so its page closes before the servers die (a live
    page's poll would otherwise fail)."""
    yield from serving(tmp_path)
