// Happy Mochi in the replay viewer: the centre duo (piles T and U), the seat's hand and reserve,
// and every seat's counts. Cards are ids into data.cards ([number, colour, effect]).
(function () {
  "use strict";
  const COLOURS = { pink: "#f9d3e3", purple: "#e2d3f5", blue: "#cfe3f7", green: "#d3f0d5", yellow: "#f8efc0", orange: "#fbdcc0", brown: "#e3d2c0" };

  function card(data, id, extra) {
    const [number, colour, effect] = data.cards[id];
    return {
      text: number + (effect ? " " + effect.replace("_", " ") : ""),
      title: "card " + id + ": " + number + " " + colour + (effect ? ", " + effect : ""),
      color: COLOURS[colour] || "#fff",
      cls: extra,
      attrs: { "data-card": id },
    };
  }

  function pile(K, name, ids, data) {
    const top = ids.length - 1;
    return K.zone("pile " + name + " (bottom to top)", "pile pile-" + name,
      [K.cards(ids, (id) => card(data, id, ids.indexOf(id) === top ? "top" : ""))]);
  }

  // The centre duo and the round, as every seat sees them.
  function centre(K, view, data) {
    const duo = view.main_duo || {};
    return [
      K.el("p", { text: "round " + view.round + " · turn " + view.turn + " · " + view.phase + " · direction " + view.direction + " · seat " + view.active + " to play · draw pile " + view.draw_size }),
      K.zone("centre duo: value " + duo.value + (duo.same_colour ? ", same colour" : ""), "duo", [
        pile(K, "T", view.T || [], data),
        pile(K, "U", view.U || [], data),
      ]),
    ];
  }

  // A seat's own cards, from its own view: hand, reserve, and the card it holds.
  function own(K, view, data, seat) {
    const parts = [
      K.zone("hand of seat " + seat, "hand", [K.cards(view.hand, (id) => card(data, id))]),
      K.zone("reserve of seat " + seat + " (face down)", "reserve", [K.cards(view.reserve, (id) => card(data, id))]),
    ];
    if (view.holding !== undefined && view.holding !== null) {
      parts.push(K.zone("holding", "holding", [K.cards([view.holding], (id) => card(data, id))]));
    }
    return parts;
  }

  function panel(view, data, seat) {
    const K = window.ArenaKit;
    const box = K.el("div", { class: "mochi" }, [...centre(K, view, data), ...own(K, view, data, seat)]);
    return seatsAndRounds(K, box, view, seat, (s) => s === seat);
  }

  // The omniscient table: the centre once, then each seat's own cards from its own view.
  function table(views, data) {
    const K = window.ArenaKit;
    const first = views[Object.keys(views)[0]];
    const box = K.el("div", { class: "mochi" }, centre(K, first, data));
    for (const [seat, view] of Object.entries(views)) {
      box.append(K.el("div", { class: "mochi-seat", "data-seat": seat }, own(K, view, data, Number(seat))));
    }
    return seatsAndRounds(K, box, first, null, (s) => String(s) in views);
  }

  // Every seat's counts and totals (``shown(s)``: its hand is drawn above), and the rounds.
  function seatsAndRounds(K, box, view, seat, shown) {
    const rows = [];
    for (let s = 0; s < view.players; s++) {
      rows.push({
        attrs: { "data-seat": s, class: s === seat ? "mine" : null },
        cells: [s, shown(s) ? view.hand_sizes[s] + " (shown above)" : K.hidden(view.hand_sizes[s]), view.reserve_sizes[s], view.totals[s]],
      });
    }
    box.append(K.zone("seats", "seats", [K.table(["seat", "hand", "reserve", "total"], rows)]));
    if (view.round_scores && view.round_scores.length) {
      box.append(K.zone("round scores", "rounds", [K.table(["round", "scores"], view.round_scores.map((r, i) => ({ cells: [i + 1, r.join(" · ")] })))]));
    }
    return box;
  }

  function name(id, data) {
    if (id === undefined || id === null) return "a card";
    const [number, colour, effect] = data.cards[id];
    return number + " " + colour + (effect ? " (" + effect + ")" : "");
  }

  function event(e, data) {
    switch (e.type) {
      case "play":
        return "seat " + e.seat + " plays " + e.cards.map((c) => name(c, data)).join(" + ") + " (value " + e.value + (e.happy_mochi ? ", happy mochi!" : "") + ")";
      case "draw":
        return "seat " + e.seat + " draws " + (e.card !== undefined ? name(e.card, data) : "a card") + " from " + e.source + (e.forced ? " (forced)" : "");
      case "round_start":
        return "round " + e.round + " starts, seat " + e.starter + " first" + (e.hand ? "; hand: " + e.hand.map((c) => name(c, data)).join(", ") : "");
      case "round_end":
        return "round " + e.round + " ends (" + e.reason + "), winner " + (e.winner === null ? "none" : "seat " + e.winner) + "; scores " + e.scores.join(" · ");
      case "game_end":
        return "game over (" + e.reason + "): totals " + e.totals.join(" · ");
      case "refill":
        return "pile " + e.pile + " refilled with " + name(e.card, data) + " from the draw pile";
      case "pass":
        return "seat " + e.seat + " passes";
      default:
        return (e.type + " " + window.ArenaKit.fields(e, "type")).trim();
    }
  }

  // An option in words, its card ids named: {"action": "draw", "source": "T", "card": 11}.
  function option(o, data) {
    const named = Object.entries(o).map(([k, v]) => {
      if (k === "card") return "card " + name(v, data);
      if (k === "cards") return "cards " + v.map((c) => name(c, data)).join(" + ");
      return k + "=" + window.ArenaKit.scalar(v);
    });
    return named.join(" ");
  }

  window.ArenaRenderers.happy_mochi = { panel, table, event, option };
})();
