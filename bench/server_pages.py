"""What authors' build logs cost the server's pages: ``/``, a bot page and ``/api/changes`` of a
competition whose registry holds many versions, every one with a build log and a validation
report at the cap (an author's 100 MB log is kept as 256 KiB), against the floor: the same
registry with empty reports, measured in the same run.

Each page is asked through the real app (Starlette's test client, the app's own thread pool),
the median of ``REPEAT`` requests after one warm-up; loaded and floor alternate request by
request so load drifts hit both alike. A ratio near 1 means the logs cost the pages nothing:
listings never read the reports (``Registry.versions``), which are capped when stored. The
registry database's size is shown beside.

    .venv/bin/python bench/server_pages.py [--versions N]

Prints a table and saves bench/results/server_pages.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient
from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' competition files

from arena.ladder.store import Store  # noqa: E402
from arena.registry.manifest import Manifest  # noqa: E402
from arena.registry.store import Registry  # noqa: E402
from arena.web.app import create_app  # noqa: E402
from arena.web.competition import load_competition  # noqa: E402
from tests.web.competitions import write_competition  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "server_pages.json"
REPEAT = 30
HUGE = 100 << 20  # what an author's build printed
PAGES = ("/", "/bots/house-greedy", "/api/changes", "/api/standings")


def _registry(root: Path, versions: int, log: str) -> None:
    """``versions`` active versions over 8 bots, each with ``log`` as build log and report."""
    with Registry(root) as registry:
        for i in range(versions):
            name = f"bot{i % 8}"
            manifest = Manifest(name, "python", ("python", "bot.py"), "make",
                                games=("happy_mochi",))  # fmt: skip
            with registry.locked():
                number = registry.add(name, f"{i:064x}", manifest, root, 2, 100)
            registry.folder(name, number).mkdir(parents=True)
            registry.set_status(f"{name}@{number}", "rejected", "the build failed",
                                build_log=log, validation=log)  # fmt: skip


def _time(client: TestClient, page: str) -> float:
    started = time.perf_counter()
    response = client.get(page)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, (page, response.status_code)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", type=int, default=200)
    args = parser.parse_args()
    log = "all work and no play\n" * (HUGE // 21)
    with tempfile.TemporaryDirectory() as tmp:
        sites: dict[str, Any] = {}
        for kind, text in (("loaded", log), ("floor", "")):
            path = write_competition(Path(tmp) / kind, house=3, rounds=1)
            competition = load_competition(path)
            Store.create(competition.database, "happy_mochi").close()  # no match yet
            _registry(competition.registry, args.versions, text)
            sites[kind] = (competition, sum(f.stat().st_size for f in
                                            competition.registry.glob("registry.db*")))  # fmt: skip
        clients = {k: TestClient(create_app(c, run_ladder=False)) for k, (c, _) in sites.items()}
        results = {}
        for page in PAGES:
            times: dict[str, list[float]] = {"loaded": [], "floor": []}
            for kind in times:
                _time(clients[kind], page)  # warm-up (the standings computed once)
            for _ in range(REPEAT):
                for kind in times:
                    times[kind].append(_time(clients[kind], page))
            medians = {k: statistics.median(v) for k, v in times.items()}
            results[page] = {
                "ms_loaded": medians["loaded"] * 1000,
                "ms_floor": medians["floor"] * 1000,
                "ratio": medians["loaded"] / medians["floor"],
            }
        for client in clients.values():
            client.close()
    rows = [[p, f"{r['ms_loaded']:.1f}", f"{r['ms_floor']:.1f}", f"{r['ratio']:.2f}"]
            for p, r in results.items()]  # fmt: skip
    print(f"{args.versions} versions, each with a {HUGE >> 20} MB build log and report (kept "
          f"capped); registry database {sites['loaded'][1] / 2**20:.1f} MiB against "
          f"{sites['floor'][1] / 2**20:.1f} MiB with empty reports")  # fmt: skip
    print(tabulate(rows, headers=["page", "ms (logs)", "ms (no logs)", "ratio"]))
    meta = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "versions": args.versions,
        "repeat": REPEAT,
        "log_mb": HUGE >> 20,
        "database_mib": {k: s / 2**20 for k, (_, s) in sites.items()},
        "load_average": os.getloadavg()[0],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
