"""Hostile authors against a real ``arena serve``: how many attempts were contained.

Starts a real ``arena serve`` on loopback (a Happy Mochi competition with two house bots, in a
temporary folder) with two authors, alice and mallory; alice submits an honest bot, then every
attempt of ``ATTEMPTS`` runs against the live server over HTTP (archives made here, as an
attacker makes them: ``tests/web/hostile_uploads.py``). An attempt is a small function given the
server that says whether it was **contained** and gives one line of evidence. Besides the
uploads, the attempts replay the availability and secrecy attacks of the tests
(``test_availability.py``, ``test_headers.py``, ``test_live_sets.py``) against the same live
server: half-sent requests, a trickled upload, a gate flood, a 100 MB build log, missing security
headers, and a stored rotation of a set still being played (read from the ladder's database, and
counted only if its set was still incomplete once every request was answered).

    .venv/bin/python bench/hostile_server.py [--only TITLE ...] [--out FILE.json]

prints one line per attempt, then ``attempts N`` and ``contained M``, and saves each attempt's
outcome, evidence and wall time, and the server's peak memory
(``bench/results/hostile_server.json`` by default). A new attempt is one function
added to ``ATTEMPTS``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ladder.published import published_ids  # noqa: E402
from arena.ladder.store import NoDatabase, Store  # noqa: E402
from arena.registry.store import REPORT_BYTES  # noqa: E402
from arena.web.client import ClientError, mine  # noqa: E402
from arena.web.competition import load_competition  # noqa: E402
from tests.registry.helpers import arena  # noqa: E402
from tests.web import hostile_uploads as hostile  # noqa: E402
from tests.web.competitions import author_token, bot_archive, write_competition  # noqa: E402
from tests.web.servers import (  # noqa: E402
    closed,
    get,
    get_json,
    post_archive,
    serving,
    until,
    uploaded,
)

MATCH_WAIT_S = 240  # a generous bound for the ladder's first match on a loaded machine
UPLOAD_TIMEOUT_S = 5  # the competition's: an upload's body must arrive whole within it


@dataclass
class Server:
    """The live server and what the attempts share."""

    url: str
    path: Path  # the competition file
    folder: Path  # everything of this run: the competition, the server's log, bot folders
    tokens: dict[str, str]  # alice's and mallory's
    pid: int
    secret: Path  # a root-only host file holding hostile.SECRET

    def post(self, author: str, body: bytes, name: str | None = None) -> tuple[int, Any]:
        """Upload ``body``; a stored version's answer once its gate has spoken (with its
        reports), a refusal as it came."""
        return uploaded(self.url, self.tokens[author], body, name)

    def archive(self, name: str, **build: str) -> bytes:
        """An honest bot folder called ``name`` (a ``build`` when given), packed."""
        return bot_archive(self.folder / "bots" / f"{name}-{time.monotonic_ns()}", name, **build)

    def peak_mib(self) -> float:
        """The server process's peak resident memory (VmHWM)."""
        status = Path(f"/proc/{self.pid}/status").read_text().splitlines()
        return next(int(x.split()[1]) / 1024 for x in status if x.startswith("VmHWM:"))


Outcome = tuple[bool, str]  # contained, one line of evidence


def refused(answer: tuple[int, Any], status: int, words: str = "") -> Outcome:
    """Contained when the answer is ``status`` with ``words`` in its error and no host secret."""
    code, body = answer
    error = body.get("error", "") if isinstance(body, dict) else str(body)
    clean = hostile.SECRET not in json.dumps(body)
    return code == status and words in error and clean, f"{code}: {error or body}"[:160]


def bad_name(name: str) -> Callable[[Server], Outcome]:
    def attempt(s: Server) -> Outcome:
        return refused(s.post("mallory", s.archive(name)), 400, "name: expected")

    attempt.__doc__ = f"a bot named {name!r}"
    return attempt


def look_alike(name: str, other: str) -> Callable[[Server], Outcome]:
    def attempt(s: Server) -> Outcome:
        return refused(s.post("mallory", s.archive(name)), 403, f"existing {other!r}")

    attempt.__doc__ = f"a bot named {name!r} beside {other!r}"
    return attempt


def author_look_alike(s: Server) -> Outcome:
    """an author named 'Alice' beside 'alice'"""
    done = arena("serve", str(s.path), "--add-author", "Alice")
    return done.returncode == 2 and "too close" in done.stderr, done.stderr.strip()[:160]


def build_log_link(s: Server) -> Outcome:
    """a build that makes its log a link to a root-only file"""
    body = hostile.log_link_archive(s.folder / "evil", s.secret, "evil")
    code, answer = s.post("mallory", body)
    seen = json.dumps(answer) + json.dumps(mine(s.url, s.tokens["mallory"]))
    contained = code == 201 and "build-ran" in answer.get("build_log", "")
    return contained and hostile.SECRET not in seen, f"{code}: {answer.get('status')}, log " + (
        "holds the secret" if hostile.SECRET in seen else "is the build's own output"
    )


def build_log_link_dots(s: Server) -> Outcome:
    """a bot named '..' whose build links its log to a root-only file"""
    body = hostile.log_link_archive(s.folder / "dots", s.secret, "..")
    return refused(s.post("mallory", body), 400, "name: expected")


LINK_OUT = "arena-bot.toml: symlink leads outside the bot folder through other links"


def chain_to_secret(s: Server) -> Outcome:
    """issue 23's chain l -> ., m -> l/.., arena-bot.toml -> m/<root-only file>"""
    return refused(s.post("mallory", hostile.issue_chain(s.secret.name)), 400, LINK_OUT)


def chain_oracle(s: Server) -> Outcome:
    """the chain as an oracle: does a host file exist?"""
    there = s.post("mallory", hostile.deep_chain(str(s.secret)))
    missing = s.post("mallory", hostile.deep_chain("/no/such/file"))
    same = there == missing
    return same and there[0] == 400, "the same answer for both" if same else f"{there} {missing}"


def chain_to_dev_zero(s: Server) -> Outcome:
    """a chain to /dev/zero (the audit's server grew to 2.4 GB)"""
    before = s.peak_mib()
    contained, evidence = refused(s.post("mallory", hostile.deep_chain("/dev/zero")), 400)
    grew = s.peak_mib() - before
    return contained and grew < 256, f"{evidence}; server peak +{grew:.0f} MiB"


def chain_to_environ(s: Server) -> Outcome:
    """a chain to /proc/self/environ (the server's own environment)"""
    return refused(s.post("mallory", hostile.deep_chain("/proc/self/environ")), 400, LINK_OUT)


def huge_manifest_field(s: Server) -> Outcome:
    """a 30 MiB manifest field"""
    body = hostile.manifest_with("huge", language="x" * (30 << 20))
    return refused(s.post("mallory", body), 400, "over 64 KiB")


def long_member_name(s: Server) -> Outcome:
    """an archive member named with 300 bytes"""
    return refused(s.post("mallory", hostile.named_member("x" * 300)), 400, "over 255 bytes")


def undecodable_member_name(s: Server) -> Outcome:
    """an archive member whose name is not UTF-8"""
    body = hostile.named_member("x\udcff.py")
    return refused(s.post("mallory", body), 400, "not printable UTF-8")


def refused_then_taken(s: Server) -> Outcome:
    """an upload refused after naming its bot, then the name taken by another author"""
    first, _ = s.post("mallory", hostile.chain_beside("shared"))
    second, answer = s.post("alice", s.archive("shared"))
    return (first, second) == (400, 201), f"mallory's {first}, then alice's {second}: " + str(
        answer.get("version", answer.get("error"))
    )


def _match(s: Server) -> str:
    """A stored match of the ladder (alice's bot and the house bots play once it is active)."""
    found = until(lambda: get_json(s.url + "/api/queue")["done_today"], MATCH_WAIT_S, "a match")
    return str(found[0])


def page(url: str, status: int) -> Outcome:
    """Contained when the page answers ``status``; its first paragraph as evidence."""
    code, text = get(url)
    said = re.search(r"<p>(.*?)</p>", text)
    return code == status, f"{code}: {said.group(1) if said else text[:100]}"


def seat_parameter(seat: str, status: int) -> Callable[[Server], Outcome]:
    def attempt(s: Server) -> Outcome:
        return page(f"{s.url}/matches/{_match(s)}?seat={seat}", status)

    attempt.__doc__ = f"/matches/ID?seat={seat[:20]}{'...' if len(seat) > 20 else ''}"
    return attempt


def long_bot_page(s: Server) -> Outcome:
    """/bots/<5000 characters>"""
    return page(f"{s.url}/bots/{'a' * 5000}", 404)


# -- availability and secrecy: the attacks of tests/web/test_availability.py, test_headers.py
# and test_live_sets.py, made against the live server -------------------------------------

HALF_SENT = 200
SECURITY_HEADERS = ("content-security-policy", "x-frame-options", "x-content-type-options",
                    "referrer-policy")  # fmt: skip


def _port(s: Server) -> int:
    return int(s.url.rpartition(":")[2])


def half_sent_requests(s: Server) -> Outcome:
    """200 half-sent requests from one address while others read the site"""
    attackers = []
    for _ in range(HALF_SENT):
        try:
            sock = socket.create_connection(("127.0.0.1", _port(s)), 10, ("127.0.0.2", 0))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: arena\r\nX-Slow: ")  # never finished
        except OSError:  # refused past the per-address bound: contained too
            continue
        sock.setblocking(False)
        attackers.append(sock)
    started = time.monotonic()
    try:
        answered = sum(bool(get_json(s.url + "/api/changes")["version"]) for _ in range(10))
        until(lambda: all(closed(x) for x in attackers), 120, "the half-sent requests closed")
        took = time.monotonic() - started
    finally:
        for sock in attackers:
            sock.close()
    return answered == 10, (
        f"{len(attackers)} connections held, all closed after {took:.0f} s; "
        f"{answered}/10 honest answers meanwhile"
    )


def trickled_upload(s: Server) -> Outcome:
    """an upload whose body trickles in a byte at a time"""
    slow = socket.create_connection(("127.0.0.1", _port(s)), 60)
    head = (f"POST /api/bots HTTP/1.1\r\nHost: arena\r\nContent-Length: 100000\r\n"
            f"Authorization: Bearer {s.tokens['mallory']}\r\n\r\n")  # fmt: skip
    answer = b""
    with slow:
        slow.sendall(head.encode() + b"\x1f\x8b")
        with contextlib.suppress(OSError):
            for _ in range(UPLOAD_TIMEOUT_S * 4):  # a byte now and then, never the whole body
                time.sleep(0.5)
                slow.sendall(b"x")
        with contextlib.suppress(OSError):
            while chunk := slow.recv(1 << 16):
                answer += chunk
    line = answer.split(b"\r\n", 1)[0].decode(errors="replace")
    return answer.startswith(b"HTTP/1.1 408 ") and b"did not arrive whole" in answer, line


def gate_flood(s: Server) -> Outcome:
    """three slow builds at once from one author (at most 2 in the gate)"""
    answers = []
    for n in range(3):
        body = s.archive(f"sleeper{n}", build=f"sleep 20 #{n}")
        answers.append(post_archive(s.url, s.tokens["mallory"], body))
    honest = sum(bool(get_json(s.url + "/api/changes")["version"]) for _ in range(10))
    codes = [code for code, _ in answers]
    third = answers[2][1].get("error", "")
    contained = codes == [201, 201, 429] and "in the gate queue" in third and honest == 10
    return contained, f"{codes}: {third[:80]}; {honest}/10 honest answers meanwhile"


def huge_build_log(s: Server) -> Outcome:
    """a build printing 100 MB to its log"""
    before = s.peak_mib()
    build = "yes 'all work and no play' | head -c 100000000; echo; echo done"
    code, answer = s.post("mallory", s.archive("loud", build=build))
    log = answer.get("build_log", "")
    grew = s.peak_mib() - before
    kept = len(log.encode())
    contained = code == 201 and kept <= REPORT_BYTES + 100 and "bytes cut" in log and grew < 256
    return contained, f"{answer.get('status')}, log kept {kept} bytes; server peak +{grew:.0f} MiB"


def security_headers(s: Server) -> Outcome:
    """every answer, errors and redirects included, carries the security headers"""
    match = _match(s)
    paths = [
        *("/", "/queue", f"/matches/{match}", f"/matches/{match[:12]}"),
        *(f"/matches/{match}/replay.json", "/matches/nope", "/api/bots/mine", "/no/such/page"),
    ]
    missing = []
    for path in paths:
        request = urllib.request.Request(s.url + path)
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            with opener.open(request, timeout=30) as response:
                headers = {k.lower() for k in response.headers}
        except urllib.error.HTTPError as exc:
            headers = {k.lower() for k in exc.headers}
        missing += [f"{path}: {h}" for h in SECURITY_HEADERS if h not in headers]
    return not missing, f"{len(paths)} answers, " + (", ".join(missing) or "none missing")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None


def unpublished_rotation(s: Server) -> Outcome:
    """a rotation stored while its duplicate set is still being played"""
    more = s.post("alice", s.archive("alice-two"))  # new matches to play: sets in progress
    if more[1].get("status") != "active":
        return False, f"the honest second bot was not accepted: {more}"
    cfg = load_competition(s.path)
    deadline = time.monotonic() + MATCH_WAIT_S
    while time.monotonic() < deadline:
        early = _incomplete(cfg)
        if early:
            match = early[0]
            pages = [f"/matches/{match}", f"/matches/{match}/replay.json",
                     f"/matches/{match[:12]}", "/", "/queue", "/api/queue"]  # fmt: skip
            answers = [get(s.url + p) for p in pages]
            if match in _incomplete(cfg):  # still incomplete after every request was answered
                shown = [
                    p
                    for p, (code, text) in zip(pages, answers, strict=True)
                    if (p.startswith("/matches/") and code != 404) or match[:12] in text
                ]
                return not shown, f"match {match[:12]}, set incomplete: " + (
                    f"shown by {shown}" if shown else "404 and on no page"
                )
        time.sleep(0.1)
    return False, "no rotation of an incomplete set was seen stored"


def _incomplete(competition: Any) -> list[str]:
    """The stored matches whose duplicate set is not complete, read from the database."""
    try:
        store = Store.read(competition.database, str(competition.data["game"]))
    except NoDatabase:
        return []
    try:
        stored = {r[0] for r in store.conn.execute("SELECT id FROM matches").fetchall()}
        return sorted(stored - published_ids(store))
    finally:
        store.close()


def no_traceback(s: Server) -> Outcome:
    """the server's log after every attempt: no error of its own"""
    log = (s.folder / "serve-0.log").read_text()
    return "Traceback" not in log, f"{log.count('Traceback')} tracebacks in its log"


ATTEMPTS: list[Callable[[Server], Outcome]] = [
    *(bad_name(n) for n in ("..", ".", "-x", ".hidden")),
    look_alike("House-Greedy", "house-greedy"),
    look_alike("ALICE", "alice"),
    author_look_alike,
    build_log_link_dots,
    build_log_link,
    chain_to_secret,
    chain_oracle,
    chain_to_dev_zero,
    chain_to_environ,
    huge_manifest_field,
    long_member_name,
    undecodable_member_name,
    refused_then_taken,
    seat_parameter("%C2%B2", 400),
    seat_parameter("9" * 5000, 400),
    long_bot_page,
    security_headers,
    half_sent_requests,
    trickled_upload,
    huge_build_log,
    unpublished_rotation,
    gate_flood,  # late: its slow builds hold mallory's gate places
    no_traceback,  # last: it reads what every attempt left in the log
]


def title(attempt: Callable[[Server], Outcome]) -> str:
    return (attempt.__doc__ or attempt.__name__).strip()


def run(folder: Path, attempts: list[Callable[[Server], Outcome]]) -> list[dict[str, Any]]:
    """Serve a competition in ``folder``, let alice submit an honest bot, then every attempt."""
    path = write_competition(folder / "comp", house=2, expanded_mb=40, uploads_per_hour=1000,
                             upload_timeout_s=UPLOAD_TIMEOUT_S, header_timeout_s=5)  # fmt: skip
    tokens = {who: author_token(path, who) for who in ("alice", "mallory")}
    secret = hostile.root_only_file(Path(tempfile.gettempdir()))  # where the server unpacks
    results = []
    try:
        with contextlib.contextmanager(serving)(folder) as start:
            proc, url = start(path)
            server = Server(url, path, folder, tokens, proc.pid, secret)
            code, answer = server.post("alice", server.archive("alice"))
            if answer.get("status") != "active":
                raise SystemExit(f"alice's honest bot was not accepted: {code} {answer}")
            for attempt in attempts:
                started = time.monotonic()
                try:
                    contained, evidence = attempt(server)
                except (AssertionError, ClientError, OSError, ValueError) as exc:
                    contained, evidence = False, f"the attempt failed: {exc}"
                wall = round(time.monotonic() - started, 2)
                outcome = {"attempt": title(attempt), "contained": contained,
                           "evidence": evidence, "wall_s": wall}  # fmt: skip
                results.append(outcome)
                mark = "contained" if contained else "NOT CONTAINED"
                print(f"{mark:13}  {outcome['attempt']}: {evidence}", flush=True)
            results.append({"server_peak_mib": round(server.peak_mib(), 1)})
    finally:
        secret.unlink()
    registry = load_competition(path).registry
    stray = [p.name for p in registry.iterdir() if p.name not in REGISTRY_FILES]
    # The server unpacks each upload in a folder of its own under uploads/, removed after it.
    stray += [f"uploads/{p.name}" for p in (registry / "uploads").glob("*")]
    if stray:
        results.append({"attempt": "registry layout", "contained": False,
                        "evidence": f"unexpected entries: {stray}"})  # fmt: skip
    return results


REGISTRY_FILES = ("bots", "logs", "uploads", "registry.db", "registry.db-wal", "registry.db-shm",
                  "registry.lock")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="run only the attempts with these titles")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/hostile_server.json")
    args = parser.parse_args()
    chosen = [a for a in ATTEMPTS if not args.only or title(a) in args.only]
    with tempfile.TemporaryDirectory(prefix="arena-hostile-server-") as tmp:
        results = run(Path(tmp), chosen)
    attempts = [r for r in results if "attempt" in r]
    contained = sum(r["contained"] for r in attempts)
    print(f"attempts {len(attempts)}")
    print(f"contained {contained}")
    peak = next((r["server_peak_mib"] for r in results if "server_peak_mib" in r), None)
    summary = {"attempts": len(attempts), "contained": contained, "server_peak_mib": peak,
               "cases": attempts}  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
