// Small DOM helpers shared by the player and the games' renderers (window.ArenaKit).
// Everything is built with createElement and textContent: data never becomes markup.
window.ArenaKit = (function () {
  "use strict";

  // el("div", {class: "x", text: "words", "data-seat": "1"}, [child, "text", null])
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else if (k === "color") node.style.background = v;
      else node.setAttribute(k, String(v));
    }
    for (const child of children || []) {
      if (child !== null && child !== undefined) {
        node.append(typeof child === "string" ? document.createTextNode(child) : child);
      }
    }
    return node;
  }

  function scalar(v) {
    return typeof v === "string" ? v : JSON.stringify(v);
  }

  // "key=value key=value" of a small map (options, events), ``skip`` left out.
  function fields(map, skip) {
    return Object.entries(map || {})
      .filter(([k]) => k !== skip)
      .map(([k, v]) => k + "=" + scalar(v))
      .join(" ");
  }

  // A readable tree of any value: the generic renderer, and the omniscient position.
  function tree(value) {
    if (value === null || typeof value !== "object") return el("span", { text: scalar(value) });
    if (Array.isArray(value)) {
      if (value.every((v) => v === null || typeof v !== "object")) {
        return el("span", { text: value.length ? value.map(scalar).join(", ") : "(none)" });
      }
      return el("ol", { class: "tree", start: "0" }, value.map((v) => el("li", {}, [tree(v)])));
    }
    const dl = el("dl", { class: "tree" });
    for (const [k, v] of Object.entries(value)) dl.append(el("dt", { text: k }), el("dd", {}, [tree(v)]));
    return dl;
  }

  // A labelled area of the table: zone("hand", "zone-hand", [cards]).
  function zone(label, cls, children) {
    return el("div", { class: "zone " + (cls || "") }, [el("div", { class: "label", text: label }), ...children]);
  }

  // A row of cards; ``card`` maps an item to {text, title, color, attrs}.
  function cards(items, card, cls) {
    const row = el("div", { class: "cards " + (cls || "") });
    if (!items || items.length === 0) row.append(el("span", { class: "muted", text: "(none)" }));
    for (const item of items || []) {
      const c = card(item);
      row.append(el("span", Object.assign({ class: "card " + (c.cls || ""), text: c.text, title: c.title, color: c.color }, c.attrs || {})));
    }
    return row;
  }

  // ``n`` cards this seat may not see, drawn face down (one card and a count beyond a few).
  function hidden(n, cls) {
    const row = el("div", { class: "cards " + (cls || ""), "data-hidden": n });
    if (n === 0) row.append(el("span", { class: "muted", text: "(none)" }));
    else if (n > 5) row.append(el("span", { class: "card hidden", text: "? × " + n, title: n + " cards face down" }));
    else for (let i = 0; i < n; i++) row.append(el("span", { class: "card hidden", text: "?" }));
    return row;
  }

  function table(headers, rows, attrs) {
    return el("table", attrs || {}, [
      el("tr", {}, headers.map((h) => el("th", { text: h }))),
      ...rows.map((r) => el("tr", r.attrs || {}, r.cells.map((c) => (typeof c === "object" && c !== null ? el("td", {}, [c]) : el("td", { text: scalar(c) }))))),
    ]);
  }

  return { el, scalar, fields, tree, zone, cards, hidden, table };
})();
