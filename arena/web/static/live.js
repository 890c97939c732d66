// The page keeps itself up to date while open: every POLL_MS (its <main>'s data-poll-ms, the
// competition's page_poll_s) it asks /api/changes for the
// version of what it shows and, when that differs from its <main>'s, fetches itself again and
// swaps in the new <main> (the server's own escaped HTML, parsed, never executed). A swap
// rather than a reload: no flash, the scroll and the rest of the page stay. Nothing is asked
// while the tab is hidden; shown again, it asks at once. A failed poll (the server restarting)
// is retried quietly, each wait twice the last up to MAX_MS.
(() => {
  const POLL_MS = Number(document.querySelector("main").dataset.pollMs) || 5000;
  const MAX_MS = 60000;
  let wait = POLL_MS, timer = 0, busy = false;

  function schedule(ms) {
    clearTimeout(timer);
    if (!document.hidden && !busy) timer = setTimeout(poll, ms);
  }

  async function refresh() {
    const answer = await fetch(location.href, { cache: "no-store" });
    if (answer.status >= 500) throw new Error(`${answer.status}`);
    const page = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = page.querySelector("main");
    if (fresh === null) location.reload(); // gone (a 404 page): show it as it is
    else document.querySelector("main").replaceWith(document.adoptNode(fresh));
  }

  async function poll() {
    busy = true;
    try {
      const answer = await fetch("/api/changes", { cache: "no-store" });
      if (!answer.ok) throw new Error(`${answer.status}`);
      const { version } = await answer.json();
      if (version !== document.querySelector("main").dataset.version) await refresh();
      document.getElementById("offline").hidden = true;
      wait = POLL_MS;
    } catch {
      document.getElementById("offline").hidden = false;
      wait = Math.min(wait * 2, MAX_MS);
    } finally {
      busy = false;
    }
    schedule(wait);
  }

  document.addEventListener("visibilitychange", () => schedule(0));
  schedule(POLL_MS);
})();
