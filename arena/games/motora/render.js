// Motora in the replay viewer: the island board (tiles, villages, placed members, idols), every
// tribe's stock and members, the fight's dice, and the seat's own cards. Member, idol and tribe
// rows are lists whose field names come in data.member_fields / idol_fields / tribe_fields.
(function () {
  "use strict";
  const TRIBES = ["#f4c7c3", "#c6dbf7", "#cdeccd", "#f7e6a8", "#e3cdf2", "#f9d4b0"];

  function rows(list, names) {
    return (list || []).map((r, id) => {
      const o = { id: id };
      names.forEach((n, i) => { o[n] = r[i]; });
      return o;
    });
  }

  const byId = new WeakMap(); // data -> {tile id: tile}, built once

  function tileNames(data) {
    if (!byId.has(data)) byId.set(data, Object.fromEntries(data.tiles.map((t) => [t.id, t])));
    return byId.get(data);
  }

  function board(K, view, data, members, idols) {
    const tiles = tileNames(data);
    const b = view.board;
    const grid = K.el("table", { class: "grid board" });
    // The open sea around the island is left out: rows and columns with nothing but sea.
    const land = (ch) => ch !== "~";
    const cols = [...data.map[0]].map((_, c) => data.map.some((line) => land(line[c])));
    data.map.forEach((line, r) => {
      if (![...line].some(land)) return;
      const tr = K.el("tr");
      [...line].forEach((ch, c) => {
        if (!cols[c]) return;
        const pos = "r" + r + "c" + c;
        const cls = [];
        const parts = [];
        if (ch === "~") cls.push("sea");
        else if (ch === "f") { cls.push("sea"); parts.push(K.el("div", { text: "fishing" })); }
        else if (ch === "X") parts.push(K.el("div", { text: "volcano" }));
        const tile = b.tile[pos];
        if (tile) parts.push(K.el("div", { text: tiles[tile] ? tiles[tile].name : tile, title: tile + (tiles[tile] && tiles[tile].d6.length ? ", d6 " + tiles[tile].d6.join("/") : "") }));
        if (pos in b.owner) { cls.push("village"); parts.push(K.el("div", { text: "village of " + b.owner[pos] })); }
        if (b.destroyed.includes(pos)) cls.push("destroyed");
        if (b.restricted.includes(pos)) cls.push("restricted");
        if (b.ruined.includes(pos)) parts.push(K.el("div", { text: "ruins" }));
        const here = members.filter((m) => m.position === pos);
        if (here.length) {
          parts.push(K.el("div", { class: "tokens" }, here.map((m) => K.el("span", { class: "token", color: TRIBES[m.tribe % TRIBES.length], title: "member " + m.id + " of seat " + m.tribe + ", " + m.state, text: String(m.tribe) }))));
        }
        idols.filter((i) => i.position === pos).forEach((i) => parts.push(K.el("div", { class: "idol", text: "idol " + i.id + (i.owner !== null ? " (seat " + i.owner + ")" : "") })));
        const td = K.el("td", { class: cls.join(" "), "data-position": ch === "~" ? null : pos }, parts);
        if (cls.includes("destroyed")) td.title = pos + " destroyed";
        tr.append(td);
      });
      grid.append(tr);
    });
    return grid;
  }

  function panel(view, data, seat) {
    const K = window.ArenaKit;
    const members = rows(view.members, data.member_fields);
    const idols = rows(view.idols, data.idol_fields);
    const tribes = rows(view.tribes, data.tribe_fields);
    const box = K.el("div", { class: "motora" }, [
      K.el("p", { text: "turn " + view.turn + " · " + view.phase + " · order " + view.turn_order.join(", ") + " · idols to win " + view.idols_required + (view.current_event ? " · event " + view.current_event : "") }),
      K.zone("island", "island", [board(K, view, data, members, idols)]),
    ]);
    const tribeRows = tribes.map((t) => {
      const mine = members.filter((m) => m.tribe === t.seat);
      const states = {};
      for (const m of mine) states[m.state] = (states[m.state] || 0) + 1;
      return {
        attrs: { "data-seat": t.seat, class: t.seat === seat ? "mine" : null },
        cells: [t.seat + (t.eliminated ? " (out)" : ""), t.food, t.water, t.shelter, t.tribe_size, t.idols_life + " / " + t.idols_death, Object.entries(states).map(([k, n]) => k + " " + n).join(", "), t.face_down_craftsmen + t.face_down_temple],
      };
    });
    box.append(K.zone("tribes", "tribes", [K.table(["seat", "food", "water", "shelter", "size", "idols life / death", "members", "cards"], tribeRows)]));
    box.append(K.zone("idols", "idols", [K.table(["idol", "where", "owner", "shrine"], idols.map((i) => ({ cells: [i.id, i.position || "on a shrine", i.owner === null ? "–" : i.owner, i.shrine || "–"] })))]));
    const fight = view.fight;
    const dice = fight
      ? K.table(["side", "dice", "modifier", "rerolls"], fight.sides.map((s) => ({ cells: [s.side === "npe" ? "the island" : s.side, s.dice.join(" + "), s.modifier, s.rerolls] })))
      : K.el("span", { class: "muted", text: "no fight now (die rolls are listed with the events)" });
    box.append(K.zone("dice" + (fight ? " · fight at " + fight.site : ""), "dice", [dice]));
    if (seat !== null) box.append(hand(K, view, data, seat));
    return box;
  }

  const byCard = new WeakMap(); // data -> {card id: printed card}, built once

  function printed(data, id) {
    if (!byCard.has(data)) byCard.set(data, Object.fromEntries(data.cards.map((c) => [c.card, c])));
    return byCard.get(data)[id] || {};
  }

  // A seat's cards, from its own view; each chip names its kind, its title the card's text.
  function hand(K, view, data, seat) {
    return K.zone("cards of seat " + seat, "hand", [K.cards(view.hand, (c) => ({
      text: c.name + " · " + c.kind,
      title: c.card + (printed(data, c.card).text ? ": " + printed(data, c.card).text : "") + (c.carried_by !== null ? " (carried by member " + c.carried_by + ")" : ""),
      attrs: { "data-card": c.card },
    }))]);
  }

  // The omniscient table: the island once, then each seat's cards from its own view.
  function table(views, data) {
    const K = window.ArenaKit;
    const box = panel(views[Object.keys(views)[0]], data, null);
    for (const [seat, view] of Object.entries(views)) box.append(hand(K, view, data, Number(seat)));
    return box;
  }

  function event(e) {
    const K = window.ArenaKit;
    switch (e.type) {
      case "die":
        return "die roll " + e.roll + " for " + e.for + (e.seat !== null && e.seat !== undefined ? " (seat " + e.seat + ")" : "");
      case "placed":
        return "seat " + e.seat + " places member " + e.member + " at " + e.position + (e.cost ? " (cost " + e.cost + ")" : "");
      case "resource":
        return "seat " + e.seat + " " + (e.change >= 0 ? "+" : "") + e.change + " " + e.resource + " (" + e.why + "), now " + e.total;
      case "member":
        return "seat " + e.seat + "'s member " + e.member + " is now " + e.to + " (" + e.why + ")";
      case "turn":
        return "turn " + e.turn + " begins";
      case "fight_roll":
        return "fight at " + e.site + ": " + e.dice.map((d) => (d.side === "npe" ? "the island" : "seat " + d.side) + " rolls " + d.dice.join(" + ")).join(", ");
      case "card_played":
        return "seat " + e.seat + " plays " + (e.card && e.card.name ? e.card.name : K.scalar(e.card));
      default:
        return (e.type + " " + K.fields(e, "type")).trim();
    }
  }

  window.ArenaRenderers.motora = { panel, table, event };
})();
