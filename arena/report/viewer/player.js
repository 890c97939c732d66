// The generic replay player: controls, timeline, decision, events, and the game's panels.
// It reads the JSON embedded by arena/report/viewer.py and draws with a renderer registered
// as window.ArenaRenderers[game id] = {panel(view, data, seat) -> HTMLElement, event(e, data)
// -> string, optional option(o, data) -> string, optional table(views, data) -> HTMLElement:
// the omniscient table, each seat drawn once from its own view (views: {seat: view})};
// without one, views are drawn as trees. "#d=N" in the address opens decision N ("#d=end" the
// end of the game), and the address follows the decision shown, so it can be passed on.
// Everything is built with createElement and textContent (window.ArenaKit, kit.js): a bot's
// words never become markup.
(function () {
  "use strict";

  const R = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = R.steps;
  const last = steps.length - 1; // the final step is the end of the game
  const OMNI = "omniscient";

  const { el, scalar, fields, tree } = window.ArenaKit;

  const generic = {
    panel: (view) => tree(view),
    event: (e) => (e.type + " " + fields(e, "type")).trim(),
  };
  const game = Object.assign({}, generic, (window.ArenaRenderers || {})[R.game.id] || {});
  const optionText = (o) => (game.option ? game.option(o, R.data) : fields(o));

  function eventText(e) {
    try {
      return game.event(e, R.data);
    } catch (err) {
      return generic.event(e);
    }
  }

  // Fold the per-step patches back into whole views (and positions) once, so any step is at
  // hand. An operation is [path, value] (set) or [path] (delete); copies are made along the path
  // only, so steps share what did not change.
  function apply(value, path, op) {
    if (path.length === 0) return op.length > 1 ? op[1] : undefined;
    const copy = Array.isArray(value) ? value.slice() : Object.assign({}, value);
    const [head, ...tail] = path;
    if (tail.length === 0 && op.length === 1) delete copy[head];
    else copy[head] = apply(copy[head], tail, op);
    return copy;
  }
  function fold(pick) {
    let current = {};
    return steps.map((step) => {
      for (const op of pick(step) || []) current = apply(current, op[0], op);
      return current;
    });
  }
  const views = {};
  // What every seat shares is stored once, under "*".
  const shared = (map, seat) => [...((map || {})["*"] || []), ...((map || {})[seat] || [])];
  for (const seat of R.seats) views[seat] = fold((s) => shared(s.views, seat));
  const positions = R.omniscient ? fold((s) => s.position) : null;
  const hasPosition = R.omniscient && steps.some((s) => s.position);

  const name = (seat) => "seat " + seat + " (" + R.players[seat].name + ")";

  // -- the page -------------------------------------------------------------------------------
  const root = document.getElementById("viewer");
  const buttons = {};
  const controls = el("div", { id: "controls" });
  for (const [id, label, title] of [
    ["first", "« first", "first decision (Home)"],
    ["back", "‹ back", "step back (←)"],
    ["play", "play", "play"],
    ["pause", "pause", "pause"],
    ["forward", "forward ›", "step forward (→)"],
    ["last", "end »", "end of the game (End)"],
  ]) {
    buttons[id] = el("button", { id: id, type: "button", title: title, text: label });
    controls.append(buttons[id]);
  }
  const jump = el("input", { id: "jump", type: "number", min: "1", max: String(last), value: "1" });
  const go = el("button", { id: "go", type: "button", text: "go" });
  const speed = el("select", { id: "speed", title: "decisions per second" });
  for (const s of [1, 2, 4, 8, 16]) speed.append(el("option", { value: String(s), text: s + "/s" }));
  speed.value = "4";
  const seatSelect = el("select", { id: "seat" });
  if (R.omniscient) seatSelect.append(el("option", { value: OMNI, text: "omniscient" }));
  for (const seat of R.seats) seatSelect.append(el("option", { value: String(seat), text: name(seat) }));
  const timeline = el("input", { id: "timeline", type: "range", min: "0", max: String(last), value: "0" });
  const where = el("span", { id: "where" });
  controls.append(
    el("label", {}, ["decision ", jump]), go,
    el("label", {}, ["speed ", speed]),
    el("label", {}, ["view ", seatSelect]),
    timeline, where,
  );

  const decisionBox = el("section", { id: "decision", class: "box" });
  const eventsBox = el("section", { id: "events", class: "box" });
  const tableBox = el("section", { id: "table" });
  root.append(controls, el("div", { class: "layout" }, [el("div", {}, [decisionBox, eventsBox]), tableBox]));

  let index = 0;
  let timer = null;

  function describeDecision(step) {
    const d = step.decision;
    if (!d) return finalResult();
    const parts = [el("h2", { text: "Decision " + (index + 1) + " of " + last })];
    const chosen = seatSelect.value;
    if (!d.options || (chosen !== OMNI && Number(chosen) !== d.seat)) {
      parts.push(el("p", { class: "who", text: name(d.seat) + " decides" }));
      parts.push(el("p", { class: "muted", text: "(another seat's decision: not shown to this seat)" }));
    } else {
      parts.push(...answered(d));
    }
    // The last answer ends the game: its result follows at once (typing its number shows it).
    if (index === last - 1) parts.push(...finalResult());
    return parts;
  }

  function answered(d) {
    const parts = [
      el("p", { class: "who", text: name(d.seat) + " · " + d.kind }),
      el("p", { class: "prompt", text: R.prompts[d.prompt] }),
    ];
    const list = el("ol", { id: "options", start: "0" });
    d.options.map((k) => R.options[k]).forEach((o, i) => {
      list.append(el("li", { class: i === d.choice ? "chosen" : "", "data-index": String(i), text: optionText(o) }));
    });
    parts.push(list);
    let spent;
    if (d.by === "bot") spent = "answered by the bot in " + Number(d.ms).toFixed(1) + " ms";
    else if (d.by === "auto") spent = "answered by the referee (a single option)";
    else spent = "answered by a substitute (a seeded random choice: the seat was forfeited)";
    parts.push(el("p", { id: "spent", text: spent }));
    if (d.info !== undefined) parts.push(el("p", { id: "info" }, [el("span", { class: "label", text: "its note: " }), d.info]));
    if (d.incidents) parts.push(incidentList(d.incidents));
    return parts;
  }

  function incidentList(incidents) {
    return el("ul", { id: "incidents" }, incidents.map((x) =>
      el("li", { class: "incident" }, [
        (x.fatal ? "fatal " : "") + x.code + " (" + name(x.seat) + "): " + (x.detail || ""),
        x.message ? el("pre", { class: "log", text: "it sent: " + x.message }) : null,
      ])));
  }

  function finalResult() {
    const rows = R.result.map((r) => el("tr", { "data-seat": String(r.seat) }, [
      el("td", { text: name(r.seat) }),
      el("td", { text: String(r.rank + 1) }),
      el("td", { text: scalar((R.outcome.scores || [])[r.seat]) }),
      el("td", { text: r.status + (r.detail ? ": " + r.detail : "") }),
    ]));
    const parts = [
      el("h2", { text: "End of the game" }),
      el("table", { id: "result" }, [
        el("tr", {}, ["seat", "place", "score", "status"].map((h) => el("th", { text: h }))),
        ...rows,
      ]),
    ];
    if (R.incidents.length) parts.push(incidentList(R.incidents));
    for (const r of R.result) {
      if (r.log && r.log.length) {
        parts.push(el("h3", { text: "stderr of " + name(r.seat) }), el("pre", { class: "log", text: r.log.join("\n") }));
      }
    }
    return parts;
  }

  function eventItems(step, chosen) {
    if (chosen !== OMNI) return shared(step.events, chosen).map((e) => el("li", { text: eventText(e) }));
    return (step.log || []).map((entry) => {
      const li = el("li", { text: eventText(entry.event) });
      if (entry.only) li.append(el("span", { class: "seen", text: "  [seen by seat " + entry.only.join(", ") + "]" }));
      for (const [seat, extra] of Object.entries(entry.private || {})) {
        li.append(el("span", {
          class: "seen",
          text: "  [seat " + seat + " sees: " + eventText(Object.assign({}, entry.event, extra)) + "]",
        }));
      }
      return li;
    });
  }

  function seatPanel(seat) {
    const step = steps[index];
    const asked = step.decision && step.decision.seat === seat;
    const box = el("div", { class: "seat-panel" + (asked ? " asked" : ""), "data-seat": String(seat) }, [
      el("h3", { text: name(seat) + (asked ? " · to act" : "") }),
    ]);
    let drawn;
    try {
      drawn = game.panel(views[seat][index], R.data, seat);
    } catch (err) {
      console.warn("renderer failed, drawing the view as a tree:", err);
      drawn = tree(views[seat][index]);
    }
    box.append(drawn);
    return box;
  }

  // Every seat once, each from its own view (a seat's view holds the others' public parts).
  function omniscientTable() {
    const byseat = Object.fromEntries(R.seats.map((seat) => [seat, views[seat][index]]));
    let drawn;
    try {
      drawn = game.table(byseat, R.data);
    } catch (err) {
      console.warn("renderer failed, drawing each seat's panel:", err);
      return el("div", { class: "panels" }, R.seats.map(seatPanel));
    }
    return el("div", { class: "panels" }, [el("div", { class: "table-panel" }, [drawn])]);
  }

  function show(i) {
    index = Math.max(0, Math.min(last, i));
    const step = steps[index];
    const chosen = seatSelect.value;
    decisionBox.replaceChildren(...describeDecision(step));
    const items = eventItems(step, chosen);
    eventsBox.replaceChildren(
      el("h2", { text: index === last ? "Events since the last decision" : "Events since the previous decision" }),
      items.length ? el("ul", {}, items) : el("p", { class: "muted", text: "(none)" }),
    );
    tableBox.replaceChildren(chosen === OMNI && game.table ? omniscientTable() : el("div", { class: "panels" }, (chosen === OMNI ? R.seats : [Number(chosen)]).map(seatPanel)));
    if (chosen === OMNI && hasPosition) {
      tableBox.append(el("details", { id: "position", class: "box" }, [
        el("summary", { text: "the full position (hidden cards included)" }),
        tree(positions[index]),
      ]));
    }
    where.textContent = index === last ? "end of the game" : "decision " + (index + 1) + " of " + last;
    jump.value = String(Math.min(index + 1, last));
    timeline.value = String(index);
    document.body.dataset.step = String(index);
    const fragment = "#d=" + (index === last ? "end" : index + 1);
    if (location.hash !== fragment) {
      try {
        history.replaceState(null, "", fragment);
      } catch (err) {
        // a page opened where its address cannot change: it still shows the decision
      }
    }
  }

  // "#d=N": decision N (from 1), "#d=end": the end of the game; null for anything else.
  function fromFragment() {
    const m = /^#d=(\d{1,9}|end)$/.exec(location.hash);
    if (!m) return null;
    return m[1] === "end" ? last : Number(m[1]) - 1;
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  function play() {
    pause();
    if (index === last) show(0);
    timer = setInterval(() => {
      if (index >= last) pause();
      else show(index + 1);
    }, 1000 / Number(speed.value));
  }

  buttons.first.addEventListener("click", () => { pause(); show(0); });
  buttons.back.addEventListener("click", () => { pause(); show(index - 1); });
  buttons.forward.addEventListener("click", () => { pause(); show(index + 1); });
  buttons.last.addEventListener("click", () => { pause(); show(last); });
  buttons.play.addEventListener("click", play);
  buttons.pause.addEventListener("click", pause);
  speed.addEventListener("change", () => { if (timer !== null) play(); });
  go.addEventListener("click", () => { pause(); show(Number(jump.value) - 1); });
  jump.addEventListener("keydown", (e) => { if (e.key === "Enter") { pause(); show(Number(jump.value) - 1); } });
  timeline.addEventListener("input", () => { pause(); show(Number(timeline.value)); });
  seatSelect.addEventListener("change", () => show(index));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type === "number") return;
    const moves = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: last };
    if (e.key in moves) {
      e.preventDefault();
      pause();
      show(moves[e.key]);
    }
  });

  // For tests and the curious: the whole view of a seat at a step (from 0), as folded.
  window.arenaViewer = {
    view: (seat, step) => views[seat][step], steps: steps.length, show: show, game: R.game.id, data: R.data,
  };

  window.addEventListener("hashchange", () => {
    const at = fromFragment();
    if (at !== null && at !== index) { pause(); show(at); }
  });
  show(fromFragment() ?? 0);
})();
