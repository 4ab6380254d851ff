// @ts-check
// Ticket to Ride on the game page: the market, the hand and the tickets; the choices a turn asks for (a
// payment, the tickets to keep, a tunnel's extra cards); claims and stations by clicking the board; the
// final screen's tickets and longest path.
import { h, icon, chip, token, paymentChips, parsePayment, CARD_LETTER, colorName, cards } from "./common.js";
import { TTRBoard, routeNeed } from "./board.js";
import { t, list } from "./i18n.js";
import { describePayment, routeText, cityText } from "./moves.js";
import { $, ui, legal, view, mySeat, name, box, toast, ticketText } from "./gamepage.js";

/**
 * @param {import("./gamepage.js").PageActions} page
 * @returns {import("./gamepage.js").Family}
 */
export function ttrFamily({ send, render }) {
  function claimsFor(routeIndex) {
    const label = ui.board.routes[routeIndex].label;
    return legal().filter((m) => m.startsWith(`claim ${label}: `));
  }

  function cheapestFirst(moves) {
    const cost = (m) => {
      const pay = parsePayment(m.split(": ").slice(1).join(": "));
      const loco = pay.filter(([c]) => c === ui.board.loco).reduce((a, [, n]) => a + n, 0);
      const total = pay.reduce((a, [, n]) => a + n, 0);
      return loco * 100 + total;
    };
    return [...moves].sort((a, b) => cost(a) - cost(b) || a.localeCompare(b));
  }

  function onRoute(i) {
    if (!ui.st || ui.st.over) return;
    const r = ui.board.routes[i];
    const owner = view().route_owner[i];
    const A = ui.board.cities[r.a].display,
      B = ui.board.cities[r.b].display;
    if (owner !== null && owner !== undefined) {
      toast(t("claim.taken", { a: A, b: B, name: name(owner) }));
      return;
    }
    if (!legal().length) {
      toast(
        ui.st.seat === null && ui.st.role !== "table"
          ? t("claim.spectator")
          : t("claim.not_your_turn", { name: name(view().current_player) }),
      );
      return;
    }
    const moves = claimsFor(i);
    if (!moves.length) {
      const hand = view().hand || {};
      const loco = ui.board.loco;
      const best = Math.max(0, ...ui.board.colors.map((c) => hand[c] ?? 0));
      const have = r.color === "gray" ? t("claim.have_best", { count: best }) : cards(r.color, hand[r.color] ?? 0);
      const anyDraw = legal().every((m) => m.startsWith("draw"));
      toast(
        anyDraw
          ? t("claim.second_card")
          : t("claim.cannot", {
              a: A,
              b: B,
              need: routeNeed(ui.board, r),
              have,
              locos: cards(loco, hand[loco] ?? 0),
            }),
      );
      return;
    }
    ui.selectedRoute = i;
    ui.selectedCity = null;
    render();
    /** @type {HTMLElement | null} */ (document.querySelector("#action input[name=payment]"))?.focus();
  }

  function onCity(i) {
    if (!ui.st || ui.st.over) return;
    const city = ui.board.cities[i];
    const moves = legal().filter((m) => m.startsWith(`station ${city.name}: `));
    if (!moves.length) {
      const tix = (view().tickets || [])
        .concat(view().offer || [])
        .filter((tk) => tk.from === city.name || tk.to === city.name);
      if (tix.length) ui.drawing.highlight([city.name]);
      return;
    }
    ui.selectedCity = i;
    ui.selectedRoute = null;
    render();
  }

  function cardButton(color, attrs = {}, count = null) {
    const letter = CARD_LETTER[color] ?? color[0].toUpperCase();
    return h(
      attrs.onclick ? "button" : "div",
      {
        class: `card c-${color} ${count === 0 ? "zero" : ""}`,
        title: colorName(color),
        "aria-label": count !== null ? cards(color, count) : colorName(color),
        ...attrs,
      },
      h("span", { class: "sym" }, letter),
      h("span", { class: "lbl" }, t(`card_short.${color}`, {}, color)),
      count !== null ? h("span", { class: "n" }, count) : null,
    );
  }

  function ttrBoxes() {
    const v = view();
    const L = legal();
    const out = [];
    const market = v.market.map((c, slot) => {
      if (c === null) return h("div", { class: "card zero", "aria-label": t("market.empty_slot") }, "–");
      const move = `draw ${c}`;
      return cardButton(c, {
        type: "button",
        "data-draw": c,
        "data-slot": slot,
        disabled: !L.includes(move),
        onclick: () => send(move),
      });
    });
    const deck = h(
      "button",
      {
        class: "card deck",
        type: "button",
        "data-draw": "deck",
        disabled: !L.includes("draw deck"),
        onclick: () => send("draw deck"),
        "aria-label": t("market.draw_deck", { count: v.deck }),
      },
      h("span", { class: "sym" }, icon("deck", 22)),
      h("span", { class: "lbl" }, t("market.deck")),
      h("span", { class: "n" }, v.deck),
    );
    const tix = h(
      "button",
      {
        class: "card tix",
        type: "button",
        id: "draw-tickets",
        disabled: !L.includes("tickets"),
        onclick: () => send("tickets"),
        "aria-label": t("market.draw_tickets", { count: v.ticket_deck }),
      },
      h("span", { class: "sym" }, icon("ticket", 22)),
      h("span", { class: "lbl" }, t("market.tickets")),
      h("span", { class: "n" }, v.ticket_deck),
    );
    out.push(
      box(
        [t("market.title"), h("span", {}, t("market.discard", { count: v.discard }))],
        h("div", { class: "cards", id: "market" }, market, deck, tix),
      ),
    );
    out[out.length - 1].id = "market-box";
    if (v.hand && mySeat() !== null) {
      const colors = [...ui.board.colors, ui.board.loco];
      out.push(
        box(
          [
            t("hand.title"),
            h(
              "span",
              {},
              t("hand.count", {
                count: Object.values(v.hand).reduce((a, b) => a + b, 0),
              }),
            ),
          ],
          h(
            "div",
            { class: "cards", id: "hand" },
            colors.map((c) => cardButton(c, {}, v.hand[c] ?? 0)),
          ),
        ),
      );
      out[out.length - 1].id = "hand-box";
    }
    if (v.tickets && mySeat() !== null) {
      const rows = v.tickets.map((tk) =>
        h(
          "div",
          {
            class: `ticket ${tk.long ? "long" : ""} ${tk.completed ? "done" : ""}`,
            tabindex: 0,
            onmouseenter: () => ui.drawing.highlight([tk.from, tk.to]),
            onmouseleave: () => ui.drawing.highlight([]),
            onfocus: () => ui.drawing.highlight([tk.from, tk.to]),
            onblur: () => ui.drawing.highlight([]),
          },
          h(
            "div",
            {},
            h("b", {}, ticketText(tk)),
            h(
              "div",
              { class: "state" },
              tk.completed ? [icon("check", 12), " ", t("tickets.connected")] : t("tickets.not_connected"),
            ),
          ),
          h("span", { class: "pts" }, tk.points),
        ),
      );
      const done = v.tickets.filter((tk) => tk.completed);
      out.push(
        box(
          [
            t("tickets.title"),
            h(
              "span",
              {},
              t("tickets.summary", {
                done: done.length,
                total: v.tickets.length,
                points: done.reduce((a, tk) => a + tk.points, 0),
              }),
            ),
          ],
          h(
            "div",
            { class: "tickets", id: "tickets" },
            rows.length ? rows : h("span", { class: "empty" }, t("tickets.none")),
          ),
        ),
      );
      out[out.length - 1].id = "tickets-box";
    }
    return out;
  }

  function keepChoice() {
    const v = view();
    // the rule of this choice comes with the view: at least N, at most M long (Mega: first 1 long or none)
    const rule = v.keep_rule || { at_least: 1, at_most_long: v.offer.length };
    const L = legal().filter((m) => m.startsWith("keep "));
    const key = v.offer.map((tk) => tk.id).join(" ");
    const longs = v.offer.filter((tk) => tk.long).map((tk) => tk.id);
    const tooManyLong = longs.length > rule.at_most_long;
    if (ui.keepKey !== key) {
      // start from everything the rule allows: all tickets, but no long one when they cannot all be kept
      ui.keepKey = key;
      ui.tickets = new Set(v.offer.filter((tk) => !(tk.long && tooManyLong)).map((tk) => tk.id));
    }
    const allowed = new Set(
      L.filter((m) => m !== "keep all").map((m) => (m === "keep none" ? "" : m.slice(5).split(" ").sort().join(" "))),
    );
    const picked = () => [...ui.tickets].sort().join(" ");
    const confirm = h("button", {
      class: "btn primary",
      id: "confirm",
      type: "button",
      onclick: () => send(`keep ${picked() || "none"}`),
    });
    const boxes = {};
    const sync = () => {
      for (const [id, input] of Object.entries(boxes)) input.checked = ui.tickets.has(id);
      confirm.disabled = !allowed.has(picked());
      confirm.textContent = t("keep.button", { count: ui.tickets.size });
    };
    const tick = (tk, on) => {
      if (!on) ui.tickets.delete(tk.id);
      else {
        ui.tickets.add(tk.id);
        // at most M long tickets: ticking one more long ticket unticks the others
        const kept = longs.filter((id) => ui.tickets.has(id) && id !== tk.id);
        if (tk.long && kept.length >= rule.at_most_long)
          for (const id of kept.slice(0, kept.length - rule.at_most_long + 1)) ui.tickets.delete(id);
      }
      sync();
    };
    const rows = v.offer.map((tk) => {
      const input = (boxes[tk.id] = h("input", {
        type: "checkbox",
        "data-ticket": tk.id,
        checked: ui.tickets.has(tk.id),
        onchange: (e) => tick(tk, e.target.checked),
      }));
      return h(
        "label",
        {
          class: `ticket ${tk.long ? "long" : ""}`,
          onmouseenter: () => ui.drawing.highlight([tk.from, tk.to]),
        },
        input,
        h("div", {}, h("b", {}, ticketText(tk)), tk.long ? h("div", { class: "state" }, t("keep.long")) : null),
        h("span", { class: "pts" }, tk.points),
      );
    });
    sync();
    const said =
      rule.at_least === 0
        ? [t("keep.long_or_none", { count: rule.at_most_long })]
        : [
            t("keep.at_least", { count: rule.at_least }),
            ...(tooManyLong ? [t("keep.at_most_long", { count: rule.at_most_long })] : []),
          ];
    return h(
      "section",
      { class: "box actionbox", id: "action" },
      h("h2", {}, t("keep.title"), h("span", { id: "keep-rule" }, said.join(", "))),
      h("div", { class: "choices" }, rows),
      h("div", { class: "row" }, confirm),
    );
  }

  function paymentChoice(title, moves, prefixLen, cancel, extra = null) {
    const sorted = cheapestFirst(moves);
    let chosen = sorted[0];
    const rows = sorted.map((m, k) => {
      const pay = m.slice(prefixLen);
      const input = h("input", {
        type: "radio",
        name: "payment",
        value: m,
        checked: k === 0,
        onchange: () => {
          chosen = m;
        },
      });
      return h(
        "label",
        { class: "choice" },
        input,
        paymentChips(pay),
        h("span", { class: "sr-only" }, describePayment(pay)),
        k === 0
          ? h(
              "span",
              {
                class: "state",
                style: "margin-left:auto;font-size:12px;color:#5d6b70",
              },
              t("pay.cheapest"),
            )
          : null,
      );
    });
    return h(
      "section",
      { class: "box actionbox", id: "action" },
      h("h2", {}, title),
      extra,
      h("div", { class: "choices", role: "radiogroup" }, rows),
      h(
        "div",
        { class: "row" },
        h(
          "button",
          {
            class: "btn primary",
            id: "confirm",
            type: "button",
            onclick: () => send(chosen),
          },
          t("pay.confirm"),
        ),
        h("button", { class: "btn ghost", type: "button", onclick: cancel }, t("pay.cancel")),
      ),
    );
  }

  function ttrAction() {
    const v = view();
    const L = legal();
    if (!L.length) {
      if (v.tunnel)
        return box(
          t("tunnel.title"),
          h(
            "div",
            {},
            t("tunnel.digging", {
              name: name(v.current_player),
              route: routeText(v.tunnel.route, ui.board),
            }),
            " ",
            v.tunnel.revealed.map((c) => chip(c, 1)),
            " → ",
            t("tunnel.more", { count: v.tunnel.extra }),
          ),
        );
      return null;
    }
    if (L.some((m) => m.startsWith("keep ")) && v.offer?.length) return keepChoice();
    if (v.tunnel && (L.includes("decline") || L.some((m) => m.startsWith("pay:")))) {
      const pays = L.filter((m) => m.startsWith("pay: "));
      const tn = v.tunnel;
      const panel = paymentChoice(
        t("tunnel.pay_title", {
          route: routeText(tn.route, ui.board),
          count: tn.extra,
        }),
        pays.length ? pays : [],
        5,
        () => send("decline"),
      );
      panel.querySelector(".choices").before(
        h(
          "div",
          {},
          t("tunnel.revealed"),
          " ",
          tn.revealed.map((c) => chip(c, 1)),
          h("br"),
          t("tunnel.you_laid"),
          " ",
          paymentChips(tn.played),
        ),
      );
      const cancel = panel.querySelector(".btn.ghost");
      cancel.textContent = t("tunnel.decline");
      cancel.id = "decline";
      if (!pays.length) panel.querySelector("#confirm").remove();
      return panel;
    }
    if (ui.selectedRoute !== null) {
      const moves = claimsFor(ui.selectedRoute);
      if (moves.length) {
        const r = ui.board.routes[ui.selectedRoute];
        const title = t(r.tunnel ? "claim.title_tunnel" : "claim.title", {
          a: ui.board.cities[r.a].display,
          b: ui.board.cities[r.b].display,
        });
        // the other lanes of a double route that may be claimed too: one tap away (a finger picks a lane badly)
        const lanes = r.twins.filter((j) => claimsFor(j).length);
        const switcher = lanes.length
          ? h(
              "div",
              { class: "row lanes" },
              lanes.map((j) =>
                h(
                  "button",
                  {
                    class: "btn",
                    type: "button",
                    "data-lane": j,
                    onclick: () => {
                      ui.selectedRoute = j;
                      render();
                    },
                  },
                  t("claim.other_lane", { color: colorName(ui.board.routes[j].color) }),
                ),
              ),
            )
          : null;
        return paymentChoice(
          title,
          moves,
          moves[0].indexOf(": ") + 2,
          () => {
            ui.selectedRoute = null;
            render();
          },
          switcher,
        );
      }
      ui.selectedRoute = null;
    }
    if (ui.selectedCity !== null) {
      const c = ui.board.cities[ui.selectedCity];
      const moves = L.filter((m) => m.startsWith(`station ${c.name}: `));
      if (moves.length)
        return paymentChoice(t("station.title", { city: c.display }), moves, moves[0].indexOf(": ") + 2, () => {
          ui.selectedCity = null;
          render();
        });
      ui.selectedCity = null;
    }
    if (L.length === 1 && L[0] === "pass")
      return box(
        t("pass.none"),
        h("button", { class: "btn primary", type: "button", onclick: () => send("pass") }, t("pass.button")),
      );
    return null;
  }

  function showLongest() {
    const res = view().result;
    const best = Math.max(...res.players.map((p) => p.longest_path || 0));
    const idx = [];
    res.players.forEach((p, seat) => {
      if (!p.longest_path || p.longest_path !== best) return;
      for (const label of p.longest_path_routes || []) {
        const r =
          ui.board.routes.find((x) => x.label === label && view().route_owner[x.i] === seat) ||
          ui.board.routes.find((x) => x.label === label);
        if (r) idx.push([r.i, seat]);
      }
    });
    const bySeat = new Map();
    idx.forEach(([i, seat]) => {
      if (!bySeat.has(seat)) bySeat.set(seat, []);
      bySeat.get(seat).push(i);
    });
    for (const [seat, list] of bySeat) ui.drawing.showLongest(list, seat);
  }

  // The tickets of one player drawn on the map (game over): completed solid, failed dashed.
  function showTicketsOf(seat) {
    ui.ticketsOf = seat;
    render();
  }

  function hint(L) {
    if (L.some((m) => m.startsWith("keep"))) return t("turn.keep");
    if (L.some((m) => m.startsWith("pay:")) || L.includes("decline")) return t("turn.tunnel");
    if (L.every((m) => m.startsWith("draw"))) return t("turn.second_card");
    return ui.board.features.stations ? t("turn.options_stations") : t("turn.options");
  }

  function draw(v, L, last) {
    const labels = new Set(L.filter((m) => m.startsWith("claim ")).map((m) => m.slice(6).split(": ")[0]));
    const claimable = new Set(ui.board.routes.filter((r) => labels.has(r.label)).map((r) => r.i));
    ui.drawing.update(v, claimable, ui.selectedRoute);
    ui.drawing.showLastMoves(
      ui.st.over
        ? []
        : last.map((x) => ({
            seat: x.seat,
            key: x.key,
            routes: x.routes,
            cities: x.cities,
          })),
    );
    const res = v.result;
    ui.drawing.showTickets(res && ui.ticketsOf !== null ? res.players[ui.ticketsOf]?.tickets : null, ui.ticketsOf);
  }

  // A claim halos the lane the player took (none: a tunnel given up), a station its city.
  function placed(move, seat) {
    let m;
    if ((m = move.match(/^claim (.+?): /))) {
      const label = m[1];
      const r = ui.board.routes.find((x) => x.label === label && view().route_owner[x.i] === seat);
      return r ? { route: r.i } : null;
    }
    if ((m = move.match(/^station (.+?): /))) return { city: m[1] };
    return null;
  }

  // The choice first, then the market and the hand in the dock; the tickets after the clock.
  function sections() {
    const dock = [];
    const after = [];
    const action = ttrAction();
    if (action) dock.push(action);
    for (const b of ttrBoxes()) (b.id === "market-box" || b.id === "hand-box" ? dock : after).push(b);
    return { before: [], dock, after };
  }

  /** @returns {Array<[Node, number, string] | null>} icon, count and message key of each counter */
  function playerStats(p) {
    return [
      [icon("wagon"), p.wagons, `stat.${ui.board.piece}`],
      [icon("cards"), p.cards, "stat.cards"],
      [icon("ticket"), p.tickets, "stat.tickets"],
      p.stations_left !== undefined && ui.board.features.stations
        ? [icon("station"), p.stations_left, "stat.stations_left"]
        : null,
    ];
  }

  // At the end: a button that draws the player's tickets on the map.
  function playerExtra(p, seat) {
    const final = view().result?.players?.[seat];
    if (!final?.tickets?.length) return [];
    return [
      h(
        "button",
        {
          class: "btn small ghost tix-on-map",
          type: "button",
          "data-tickets-of": seat,
          "aria-pressed": ui.ticketsOf === seat ? "true" : "false",
          onclick: () => showTicketsOf(ui.ticketsOf === seat ? null : seat),
        },
        icon("ticket", 12),
        " ",
        t("final.tickets_on_map"),
      ),
    ];
  }

  // At the end the real totals (tickets, stations, longest path included), not the route points of the table.
  function playerScore(p, seat) {
    const final = view().result?.players?.[seat];
    return final
      ? { value: final.total, title: t("players.total") }
      : { value: p.route_points, title: t("players.route_points") };
  }

  function scoresHeading(v) {
    return v.result ? t("players.final_points") : t("players.points");
  }

  // Each player's tickets, completed or missed, with a button that draws them on the map.
  function finalParts(res) {
    const onMap = (seat) =>
      h(
        "button",
        {
          class: "btn small",
          type: "button",
          "data-tickets-of": seat,
          onclick: () => {
            $("overlay").hidden = true;
            showTicketsOf(seat);
            $("show-result")?.focus();
          },
        },
        icon("ticket", 12),
        " ",
        t("final.tickets_on_map"),
      );
    const details = res.players.map((p, seat) =>
      box(
        [h("span", {}, token(seat), " ", p.name), h("span", {}, t("final.points", { count: p.total }))],
        (p.tickets || []).length ? onMap(seat) : null,
        h(
          "div",
          { class: "tickets" },
          (p.tickets || []).map((tk) =>
            h(
              "div",
              { class: `ticket ${tk.completed ? "done" : ""}` },
              h(
                "div",
                {},
                h("b", {}, ticketText(tk)),
                h(
                  "div",
                  { class: "state" },
                  tk.completed
                    ? [icon("check", 12), " ", t("final.completed")]
                    : [icon("cross", 12), " ", t("final.missed")],
                ),
              ),
              h("span", { class: "pts" }, `${tk.completed ? "+" : "−"}${tk.points}`),
            ),
          ),
        ),
        (p.stations || []).length
          ? h(
              "div",
              { class: "state" },
              t("final.station_list", {
                cities: list(p.stations.map((x) => cityText(x.city, ui.board))),
              }),
            )
          : null,
        (p.attractions || []).length
          ? h(
              "div",
              { class: "state" },
              t("final.attraction_list", {
                cities: list(p.attractions.map((x) => cityText(x, ui.board))),
              }),
            )
          : null,
      ),
    );
    const rule = ui.board.features.longest_path ? t("final.longest_shown") : "";
    return { rule, details: h("div", { class: "detail" }, details) };
  }

  return {
    makeDrawing: (board) =>
      new TTRBoard(board, {
        route: onRoute,
        aimedRoute: (i) => onRoute([i, ...ui.board.routes[i].twins].find((j) => claimsFor(j).length) ?? i),
        city: onCity,
        citiesTakeTaps: () => legal().some((m) => m.startsWith("station ")),
      }),
    hint,
    beforeRender: () => {},
    draw,
    placed,
    sections,
    playerStats,
    playerExtra,
    playerScore,
    scoresHeading,
    finalParts,
    onFinalOpen: showLongest,
  };
}
