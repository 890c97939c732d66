// Mottainai in the replay viewer: the floor, and for every seat its task slot, wings (gallery
// and gift shop), helpers, craft bench, sales and hand (its own in full, others as counts).
// A card is {name, material, value}.
(function () {
  "use strict";
  const MATERIALS = { Paper: "#fbf3d5", Cloth: "#f6d6e0", Stone: "#dcdcdc", Clay: "#f0d2b8", Metal: "#cfdced", Wood: "#dcebc9" };

  function card(c) {
    return {
      text: c.name + " · " + c.material + " " + c.value,
      title: c.name + ": " + c.material + ", value " + c.value + (c.copy_of ? " (copy of " + c.copy_of + ")" : ""),
      color: MATERIALS[c.material] || "#fff",
    };
  }

  function row(K, label, cls, list) {
    return K.zone(label + " (" + (list || []).length + ")", cls, [K.cards(list || [], card)]);
  }

  // A seat's table; its hand in full when ``mine`` (drawn from its own view), else a count.
  function seatBox(K, view, s, mine, you) {
    const t = view.seats[s];
    const box = K.el("div", { class: "mottainai-seat" + (you ? " mine" : ""), "data-seat": s }, [
      K.el("h4", { text: "seat " + s + (s === view.current ? " · current player" : "") + (you ? " · you" : "") }),
    ]);
    let task;
    if (t.task) task = K.cards([t.task], card);
    else if (t.task_face_down) task = K.hidden(1);
    else task = K.el("span", { class: "muted", text: "(empty)" });
    box.append(
      K.zone("task slot", "task-slot", [task]),
      K.el("div", { class: "wings" }, [row(K, "gallery (left wing)", "wing gallery", t.gallery), row(K, "gift shop (right wing)", "wing gift-shop", t.gift_shop)]),
      row(K, "helpers", "helpers", t.helpers),
      row(K, "craft bench", "bench", t.bench),
      row(K, "sales", "sales", t.sales),
    );
    if (mine && t.hand) box.append(row(K, "hand", "hand", t.hand));
    else box.append(K.zone("hand (" + t.hand_count + ")", "hand", [K.hidden(t.hand_count)]));
    if (t.waiting_count) {
      box.append(K.zone("waiting area (" + t.waiting_count + ")", "waiting", [t.waiting_known ? K.cards(t.waiting_known, card) : K.hidden(t.waiting_count)]));
    }
    return box;
  }

  function panel(view, data, seat) {
    return layout(view, (K, s) => seatBox(K, view, s, s === seat, s === seat));
  }

  // The omniscient table: each seat once, its hand from its own view.
  function table(views) {
    const first = views[Object.keys(views)[0]];
    return layout(first, (K, s) => seatBox(K, views[s] || first, s, s in views, false));
  }

  // The floor and the turn around the seats' boxes; ``seatOf(K, s)`` draws seat s.
  function layout(view, seatOf) {
    const K = window.ArenaKit;
    const task = view.task ? " · performing " + view.task.task + " (" + view.task.material + ") action " + view.task.action + " of " + view.task.actions : "";
    const box = K.el("div", { class: "mottainai" }, [
      K.el("p", { text: "turn " + view.turn + " · " + view.phase + (view.step ? " / " + view.step : "") + " · seat " + view.current + " plays" + task + " · deck " + view.deck_size + " · wings end the game at " + view.wing_threshold }),
      row(K, "floor", "floor", view.floor),
    ]);
    if (view.deck_top) box.append(K.zone("top of the deck", "deck-top", [K.cards([view.deck_top], card)]));
    const seats = K.el("div", { class: "mottainai-seats" });
    for (let s = 0; s < view.seats.length; s++) seats.append(seatOf(K, s));
    box.append(seats);
    if (view.scores) box.append(K.el("p", { class: "scores", text: "scores " + view.scores.join(" · ") }));
    return box;
  }

  const cardName = (c) => (c && typeof c === "object" ? c.name : c);

  function event(e) {
    const K = window.ArenaKit;
    switch (e.type) {
      case "turn":
        return "seat " + e.seat + " begins turn " + e.turn + (e.extra ? " (extra)" : "");
      case "task":
        return "seat " + e.seat + " performs " + e.task + " with " + cardName(e.card) + (e.owner !== e.seat ? " (seat " + e.owner + "'s task)" : "") + ", " + e.actions + " action(s)";
      case "move":
        return (e.seat !== undefined ? "seat " + e.seat + ": " : "") + cardName(e.card) + " moves from " + e.src + " to " + e.dst + (e.reason ? " (" + e.reason + ")" : "");
      case "complete":
        return "seat " + e.seat + " completes " + cardName(e.card) + " into the " + e.wing + " (" + e.how + ")";
      case "draw":
        return "seat " + e.seat + " draws a card" + (e.reason ? " (" + e.reason + ")" : "");
      case "pick_up":
        return "seat " + e.seat + " picks up " + (e.cards ? e.cards.map(cardName).join(", ") : e.count + " card(s)");
      case "game_over":
        return "game over (" + e.reason + "): scores " + e.scores.join(" · ");
      default:
        return (e.type + " " + K.fields(e, "type")).trim();
    }
  }

  window.ArenaRenderers.mottainai = { panel, table, event };
})();
