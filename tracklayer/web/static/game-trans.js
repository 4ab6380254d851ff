// @ts-check
// Trans Europa and Trans America on the game page: rails and the start marker by clicking the board, the
// player's cities, the round and its special cards, the summary of a finished round.
import { h, icon, chip, token, PLAYER_SYMBOLS } from "./common.js";
import { TransBoard } from "./board.js";
import { t, list } from "./i18n.js";
import { $, ui, legal, view, mySeat, name, box, toast } from "./gamepage.js";

/**
 * @param {import("./gamepage.js").PageActions} page
 * @returns {import("./gamepage.js").Family}
 */
export function transFamily({ send, render }) {
  function onEdge(e) {
    if (!ui.st) return;
    const move = `rail ${e.text}`;
    if (legal().includes(move)) send(move);
    else if (legal().length) toast(t("trans.cannot_rail", { line: e.text }));
  }

  function onPoint(p) {
    if (!ui.st) return;
    const move = `start ${p}`;
    if (legal().includes(move)) send(move);
  }

  function transAction() {
    const v = view();
    const L = legal();
    if (!L.length) return null;
    const buttons = [];
    if (L.includes("end"))
      buttons.push(
        h(
          "button",
          {
            class: "btn primary",
            type: "button",
            id: "end-turn",
            onclick: () => send("end"),
          },
          t("trans.end_turn"),
        ),
      );
    if (L.includes("pass"))
      buttons.push(h("button", { class: "btn", type: "button", onclick: () => send("pass") }, t("pass.button")));
    const cityMoves = L.filter((m) => m.startsWith("return ") || m.startsWith("pass "));
    const choices = cityMoves.map((m) =>
      h(
        "button",
        {
          class: "btn small",
          type: "button",
          "data-move": m,
          onclick: () => send(m),
        },
        m.startsWith("return ")
          ? t("trans.return_city", { city: m.slice(7) })
          : t("trans.pass_city", { city: m.slice(5) }),
      ),
    );
    if (!buttons.length && !choices.length) return null;
    return h(
      "section",
      { class: "box actionbox", id: "action" },
      h(
        "h2",
        {},
        v.choice
          ? t("trans.choose", {
              step: t(`step.${v.choice.step}`, {}, v.choice.step),
            })
          : t("turn.yours"),
      ),
      choices.length ? h("div", { class: "row" }, choices) : null,
      h("div", { class: "row" }, buttons),
    );
  }

  function transBoxes() {
    const v = view();
    const out = [];
    if (v.cities && mySeat() !== null) {
      const n = v.missing_rails;
      out.push(
        box(
          [
            t("trans.cities"),
            n !== undefined ? h("span", {}, n === 0 ? t("trans.all_connected") : t("trans.missing", { count: n })) : "",
          ],
          h(
            "div",
            { class: "tickets" },
            v.cities.map((c) =>
              h(
                "div",
                { class: "ticket" },
                h("div", {}, chip(c.color, ""), " ", h("b", {}, c.name)),
                h("span", { class: "state" }, c.point),
              ),
            ),
          ),
        ),
      );
      out[out.length - 1].id = "trans-cities"; // the tutorial's guide points to it (tutorial.js)
    }
    out.push(
      box(
        t("trans.round_title"),
        h("div", {}, t("trans.round", { round: v.round }), " · ", t("trans.supply", { count: v.supply })),
      ),
    );
    if (v.rounds?.length) {
      const rows = v.rounds.map((r, k) =>
        h(
          "tr",
          {},
          h(
            "td",
            {},
            h(
              "button",
              {
                class: "linkish",
                type: "button",
                "data-round": k,
                "aria-pressed": ui.roundShown === k ? "true" : "false",
                "aria-label": t("round.show", { round: r.round }),
                onclick: () => {
                  ui.roundShown = ui.roundShown === k ? null : k;
                  render();
                },
              },
              t("trans.round", { round: r.round }),
            ),
          ),
          r.players.map((p) => h("td", {}, `${p.prestige >= 0 ? "+" : ""}${p.prestige}`)),
        ),
      );
      out.push(
        box(
          t("trans.finished_rounds"),
          h(
            "table",
            { class: "scores" },
            h(
              "tr",
              {},
              h("th", {}, ""),
              v.players.map((p) => h("th", {}, p.name)),
            ),
            rows,
          ),
        ),
      );
    }
    return out;
  }

  // The special card(s) of this round, spelled out: what each changes, in the words of the card.
  function specialCardsBox() {
    const v = view();
    const specials = v.special_cards || [];
    if (!specials.length && !v.special_deck) return null;
    const items = specials.map((c) =>
      h(
        "li",
        { class: "special", "data-card": c.id },
        h("span", { class: "special-no", "aria-hidden": "true" }, c.id),
        h(
          "div",
          {},
          h("b", {}, t(`special.${c.id}.title`, {}, c.title)),
          h("p", {}, t(`special.${c.id}.text`, {}, c.text)),
        ),
      ),
    );
    return h(
      "section",
      { class: "box", id: "special-cards", "aria-labelledby": "special-h" },
      h(
        "h2",
        { id: "special-h" },
        t("special.heading", { count: Math.max(1, specials.length) }),
        h("span", {}, t("special.left", { count: v.special_deck })),
      ),
      items.length ? h("ul", { class: "specials" }, items) : h("p", { class: "empty" }, t("special.none")),
      h("details", {}, h("summary", {}, t("special.how")), h("p", {}, t("special.explain"))),
    );
  }

  // A Trans round is over: everybody's cities and one cheapest set of missing rails, until the player continues.
  function roundSummaryBox() {
    const v = view();
    const r = v.rounds[ui.roundShown];
    if (!r) return null;
    const rows = r.players.map((p, seat) =>
      h(
        "li",
        { class: "round-player", "data-seat": seat },
        token(seat),
        h(
          "div",
          {},
          h("b", {}, p.name),
          " ",
          h("span", { class: "pts" }, `${p.prestige >= 0 ? "+" : ""}${p.prestige}`),
          h(
            "div",
            { class: "state" },
            p.connected ? t("round.connected") : t("round.missing", { count: p.missing_rails }),
          ),
          h(
            "div",
            { class: "cities" },
            (p.cities || []).map((c) => h("span", { class: "city-tag" }, c)),
          ),
        ),
      ),
    );
    const latest = ui.roundShown === v.rounds.length - 1;
    const close = () => {
      ui.roundShown = null;
      ui.roundsSeen = v.rounds.length;
      render();
      $("board").focus?.();
    };
    return h(
      "section",
      {
        class: "box actionbox round-summary",
        id: "round-summary",
        "aria-labelledby": "round-h",
      },
      h(
        "h2",
        { id: "round-h" },
        t("round.title", { round: r.round }),
        h("span", {}, t(`note.ended.${r.ended_by}`, {}, r.ended_by)),
      ),
      h("p", { class: "state" }, t("round.explain")),
      h("ol", { class: "round-players" }, rows),
      h(
        "div",
        { class: "row" },
        h(
          "button",
          {
            class: "btn primary",
            type: "button",
            id: "round-continue",
            onclick: close,
          },
          latest && !ui.st.over ? t("round.continue") : t("round.close"),
        ),
      ),
    );
  }

  function hint() {
    const v = view();
    if (v.phase === "start") return t("turn.start");
    if (v.phase === "choose") return t("turn.choose");
    if (v.turn) return t("turn.rails", { left: v.turn.left, budget: v.turn.budget });
    return "";
  }

  // Rounds finished before this page opened count as seen, except one that has just ended (no rail laid
  // since) or the one that ended the game; a round that has just ended is shown on the board.
  function beforeRender(v) {
    if (ui.roundsSeen === null)
      ui.roundsSeen = (v.rounds?.length ?? 0) - (v.rounds?.length && (!v.rails?.length || ui.st.over) ? 1 : 0);
    if (v.rounds && v.rounds.length > ui.roundsSeen) ui.roundShown = v.rounds.length - 1;
  }

  function draw(v, L, last) {
    const summary = ui.roundShown !== null ? v.rounds?.[ui.roundShown] : null;
    ui.drawing.update(v, summary ? [] : L, mySeat(), {
      summary,
      last: last.map((x) => ({ seat: x.seat, key: x.key, lines: x.lines })),
    });
  }

  function placed(move) {
    const m = move.match(/^rail (\S+)$/);
    return m ? { line: m[1] } : null;
  }

  // A finished round's summary and the special cards before the clock, the choice in the dock.
  function sections() {
    const summary = ui.roundShown !== null ? roundSummaryBox() : null;
    const action = transAction();
    return {
      before: [summary, specialCardsBox()].filter(Boolean),
      dock: action ? [action] : [],
      after: transBoxes(),
    };
  }

  /** @returns {Array<[Node, number, string] | null>} icon, count and message key of each counter */
  function playerStats(p, seat) {
    return [
      [icon("cards"), p.cities, "stat.city_cards"],
      p.start ? [icon("flag"), p.start, "stat.start"] : null,
      [
        h("span", { class: "sym-rail", "aria-hidden": "true" }, PLAYER_SYMBOLS[seat % 6]),
        view().rails.filter((r) => r.player === seat).length,
        "stat.rails_laid",
      ],
    ];
  }

  function playerExtra(p) {
    return [
      p.open_cities?.length
        ? h("div", { class: "stats open" }, t("players.shows", { cities: list(p.open_cities) }))
        : null,
      p.shares_network_with?.length
        ? h(
            "div",
            { class: "stats" },
            t("players.shares", {
              names: list(p.shares_network_with.map(name)),
            }),
          )
        : null,
    ];
  }

  return {
    makeDrawing: (board) => new TransBoard(board, { edge: onEdge, point: onPoint }),
    hint,
    beforeRender,
    draw,
    placed,
    sections,
    playerStats,
    playerExtra,
    playerScore: (p) => ({ value: p.score, title: t("players.prestige") }),
    scoresHeading: (v) => t("players.goal", { goal: v.goal }),
    finalParts: () => ({ rule: "", details: null }),
    onFinalOpen: () => {},
  };
}
