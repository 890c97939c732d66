// Mai-Star in the replay viewer: every seat's geisha and reputation, advertisers and guests, the
// seat's own hand (others as counts), deck and discard. Cards are customer ids (data.customers).
(function () {
  "use strict";
  const COLOURS = { red: "#f6d0cc", blue: "#cfe0f5", green: "#d3efd0", black: "#d5d5d5" };

  const byId = new WeakMap(); // data -> {customer id: customer}, built once

  function customers(data) {
    if (!byId.has(data)) byId.set(data, Object.fromEntries(data.customers.map((c) => [c.id, c])));
    return byId.get(data);
  }

  // What a customer asks and pays, printed on its chip: "needs 3 (colour) · income 2".
  function values(c) {
    if (c.requirement === undefined) return "";
    const needs = c.requirement_type === "none" ? "never a guest" : "needs " + c.requirement + (c.requirement_type === "colour" ? " (colour)" : " (any)");
    return " · " + needs + " · income " + c.income;
  }

  function card(data) {
    return (id) => {
      const c = customers(data)[id] || { name: id, color: "" };
      return {
        text: c.name + values(c),
        title: id + (c.requirement !== undefined ? ": needs " + c.requirement + " " + c.requirement_type + ", income " + c.income + (c.effect ? "; " + c.effect : "") : ""),
        color: COLOURS[c.color] || "#fff",
        attrs: { "data-card": id },
      };
    };
  }

  function reputation(r) {
    if (!r) return "(no geisha yet)";
    return "performance " + r.performance + " · service " + r.service + " · intelligence " + r.intelligence;
  }

  // A seat's table; its hand in full when ``mine`` (drawn from its own view), else a count.
  function seatBox(K, view, data, s, mine, you) {
    const t = view.tables[s];
    const box = K.el("div", { class: "maistar-seat" + (you ? " mine" : ""), "data-seat": s }, [
      K.el("h4", { text: "seat " + s + (s === view.active ? " · to play" : "") + (you ? " · you" : "") + " · total " + t.total + (t.round_vp && t.round_vp.length ? " (rounds " + t.round_vp.join(", ") + ")" : "") }),
      K.zone("geisha", "geisha", [K.el("span", { class: "geisha-name", text: (t.geisha || "–") + " — " + reputation(t.reputation) })]),
      K.zone("advertisers (" + t.advertisers.length + ")", "advertisers", [K.cards(t.advertisers, card(data))]),
      K.zone("guests (" + t.guests.length + ")", "guests", [K.cards(t.guests, card(data))]),
    ]);
    if (mine) box.append(K.zone("hand (" + view.hand.length + ")", "hand", [K.cards(view.hand, card(data))]));
    else box.append(K.zone("hand (" + t.hand_size + ")", "hand", [K.hidden(t.hand_size)]));
    return box;
  }

  // The table around the seats' boxes; ``seatOf(K, s)`` draws seat s.
  function layout(view, data, seatOf) {
    const K = window.ArenaKit;
    const box = K.el("div", { class: "maistar" }, [
      K.el("p", { text: "round " + view.round + " · " + view.phase + " · deck " + view.deck_size + " · discard " + view.discard.length }),
    ]);
    if (view.available_geishas) box.append(K.zone("geishas to choose from", "available", [K.el("span", { text: view.available_geishas.join(", ") })]));
    for (let s = 0; s < view.tables.length; s++) box.append(seatOf(K, s));
    box.append(K.zone("discard (oldest first)", "discard", [K.cards(view.discard, card(data))]));
    return box;
  }

  function panel(view, data, seat) {
    return layout(view, data, (K, s) => seatBox(K, view, data, s, s === seat, s === seat));
  }

  // The omniscient table: each seat once, its hand from its own view.
  function table(views, data) {
    const first = views[Object.keys(views)[0]];
    return layout(first, data, (K, s) => seatBox(K, views[s] || first, data, s, s in views, false));
  }

  function event(e, data) {
    const K = window.ArenaKit;
    const nm = (id) => (customers(data)[id] ? customers(data)[id].name + " (" + customers(data)[id].color + ")" : id);
    switch (e.type) {
      case "geisha":
        return "seat " + e.seat + " takes geisha " + e.geisha;
      case "turn":
        return "seat " + e.seat + "'s turn" + (e.extra ? " (extra)" : "");
      case "guest":
        return "seat " + e.seat + " welcomes " + nm(e.card) + " as a guest (" + e.source + ")";
      case "advertise":
        return "seat " + e.seat + " advertises " + nm(e.card) + " (" + e.source + ")";
      case "draw":
        return "seat " + e.seat + " draws " + (e.cards ? e.cards.map(nm).join(", ") : e.count + " card(s)") + " (" + e.reason + ")";
      case "discard":
        return "seat " + e.seat + " discards " + e.cards.map(nm).join(", ") + " (" + e.reason + ")";
      case "round_score":
        return "round " + e.round + " scored: " + e.scores.map((x) => "seat " + x.seat + " +" + x.vp + " = " + x.total).join(", ");
      case "game_over":
        return "game over: scores " + K.scalar(e.scores);
      default:
        return (e.type + " " + K.fields(e, "type")).trim();
    }
  }

  window.ArenaRenderers.mai_star = { panel, table, event };
})();
