"""Security headers on every answer of a real ``arena serve``, errors and the viewer included,
and the pages working under their Content-Security-Policy in chromium (the live polling, the
viewer) while a script injected into a page is refused."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from playwright.sync_api import Browser
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from arena.web.http import Site, csp, security_headers
from tests.web.competitions import write_competition
from tests.web.servers import Serve, get_json, until

EXPECTED = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def _headers(url: str, method: str = "GET", body: bytes | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, body, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}


def _policy(text: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in text.split(";") if d.strip()}


def test_every_route_and_error_carries_the_security_headers(
    tmp_path: Path, served: Serve, browser: Browser
) -> None:
    _, url = served(write_competition(tmp_path / "comp", house=3))
    until(lambda: get_json(url + "/api/queue")["status"] == "idle", what="the ladder")
    match = get_json(url + "/api/queue")["done_today"][0]
    routes = [
        ("GET", "/", 200), ("GET", "/api/standings", 200), ("GET", "/api/queue", 200),
        ("GET", "/api/changes", 200), ("GET", "/queue", 200), ("GET", "/bots/house-greedy", 200),
        ("GET", f"/matches/{match}", 200), ("GET", f"/matches/{match}?seat=1", 200),
        ("GET", f"/matches/{match}/replay.json", 200), ("GET", "/static/live.js", 200),
        ("GET", "/static/site.css", 200), ("GET", "/favicon.ico", 204),
        ("GET", "/bots/nobody", 404), ("GET", "/matches/nope", 404),
        ("GET", "/matches/nope/replay.json", 404), ("GET", "/no/such/page", 404),
        ("GET", "/static/nothing.js", 404), ("GET", "/api/bots/mine", 401),
        ("GET", "/api/bots/alice@1", 401), ("POST", "/api/bots", 401),
        ("POST", "/api/bots/alice@1/recheck", 401), ("GET", "/api/bots", 405),
        ("DELETE", "/", 405),
    ]  # fmt: skip
    for method, path, code in routes:
        status, headers = _headers(url + path, method, b"" if method == "POST" else None)
        assert status == code, (method, path, status)
        for name, value in EXPECTED.items():
            assert headers.get(name) == value, (path, name, headers)
        policy = _policy(headers["content-security-policy"])
        assert policy["default-src"] == ["'none'"], path
        assert policy["frame-ancestors"] == ["'none'"], path
        assert policy["script-src"][0] == "'self'", path
        assert all(s.startswith("'sha256-") for s in policy["script-src"][1:]), path
        assert "'unsafe-inline'" not in policy["script-src"] + policy["style-src"], path

    # In chromium: the pages work under the policy (any refusal would be a console error) ...
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        with page.expect_request(lambda r: r.url.endswith("/api/changes"), timeout=30_000):
            page.goto(url + "/")  # the live polling script runs: it asks for the version
        assert page.locator("#standings tbody tr").count() == 3
        page.goto(f"{url}/matches/{match}")
        page.wait_for_selector("#viewer *")  # the viewer's inlined scripts ran
        assert errors == [], errors
        # ... and a script injected into a page is refused.
        refused = page.evaluate(
            """() => new Promise(resolve => {
                document.addEventListener("securitypolicyviolation",
                                          e => resolve(e.effectiveDirective));
                const s = document.createElement("script");
                s.textContent = "window.pwned = 1";
                document.body.append(s);
            })"""
        )
        assert refused == "script-src-elem"
        assert page.evaluate("window.pwned") is None
    finally:
        context.close()


def test_an_unhandled_error_is_answered_with_the_headers_too() -> None:
    """Starlette answers an unhandled exception (500) outside its other middleware: the
    headers are added outside that too."""

    def boom(_request: Request) -> Response:
        raise RuntimeError("boom")

    app = Site(security_headers(csp()), routes=[Route("/boom", boom)])
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/boom")
    assert response.status_code == 500
    assert {k: response.headers[k] for k in EXPECTED} == EXPECTED
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
