"""What the lobby may offer (registered games, their variants and options) and the board geometry
that the browser draws. Everything here is public: map data, never a game's state.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import tracklayer
from tracklayer.bots import bot_names, cannot_play, resolve_bot

if TYPE_CHECKING:
    from tracklayer.trans.board import Board as TransBoard
    from tracklayer.ttr.board import Board as TTRBoard

TRANS_VARIANTS = {
    "standard": ("Standard", None),
    "special-cards": ("Special cards: a new one every round", "each-round"),
}


# The lobby's bot levels, weakest first: level -> bot of that family (docs/bots.md, "Strength").
# Ticket to Ride: greedy is the weakest baseline (the planner beats it 86%), routes the strongest one,
# the planner beats every baseline, mcts beats the planner. Trans has three bots: random (never
# connects anything: a table to learn the rules at), steiner, lookahead (beats steiner 74%); so
# Trans has no "hard" level rather than two levels playing the same bot.
BOT_LEVELS: dict[str, list[tuple[str, str]]] = {
    "ttr": [("easy", "greedy"), ("medium", "routes"), ("hard", "planner"), ("expert", "mcts")],
    "trans": [("easy", "random"), ("medium", "steiner"), ("expert", "lookahead")],
}
DEFAULT_LEVEL = {"ttr": "medium", "trans": "medium"}
# The raw bot names the lobby's "advanced" list offers per family (each one a bot made for it).
# A bot that plays only some games (``tracklayer.bots.LIMITS``: ``learned``) is listed for a game only where
# it plays one of its table sizes, and never offered as a stand-in (that one must play any seat).
FAMILY_BOTS: dict[str, list[str]] = {
    "ttr": ["random", "greedy", "routes", "hungry", "longroute", "planner", "mcts", "learned"],
    "trans": ["random", "steiner", "lookahead"],
}


def bot_choices(fam: str) -> dict[str, Any]:
    """Levels, default level and raw bot names offered for a game family (bots that work only)."""
    levels = [{"level": lv, "bot": bot} for lv, bot in BOT_LEVELS[fam] if _bot_works(bot)]
    default = DEFAULT_LEVEL[fam] if any(x["level"] == DEFAULT_LEVEL[fam] for x in levels) else \
        (levels[0]["level"] if levels else None)
    return {"bot_levels": levels, "default_level": default,
            "bots": [b for b in FAMILY_BOTS[fam] if _bot_works(b)]}


def family(game: str) -> str:
    return "trans" if game.startswith("trans-") else "ttr"


@cache
def _ttr_board(game: str) -> TTRBoard:
    from tracklayer.ttr.board import load_board

    return load_board(game)


@cache
def _trans_board(game: str) -> TransBoard:
    from tracklayer.trans.board import load_board

    return load_board(game)


def game_entry(game: str) -> dict[str, Any] | None:
    """The lobby's description of one registered game, or None if its engine cannot load it."""
    try:
        if family(game) == "ttr":
            b = _ttr_board(game)
            variants = [{"name": k, "title": v.title} for k, v in b.variants.items()]
            options = [{"name": "tiebreak", "title": "Tie-break",
                        "choices": [{"name": "classic", "title": "Classic (most tickets completed)"},
                                    {"name": "anniversary-de", "title": "Anniversary (German rules)"}]}]
            return _playable({"name": game, "title": b.name, "family": "ttr", "min_players": b.min_players,
                              "max_players": b.max_players, "variants": variants,
                              "default_variant": b.default_variant, "options": options, **bot_choices("ttr")})
        tb = _trans_board(game)
        return {"name": game, "title": tb.name, "family": "trans", "min_players": tb.min_players,
                "max_players": tb.max_players,
                "variants": [{"name": k, "title": t} for k, (t, _) in TRANS_VARIANTS.items()],
                "default_variant": "standard", "options": [], **bot_choices("trans")}
    except Exception:  # an engine in progress that cannot load its board yet is simply not offered
        return None


def _playable(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with only the raw bots that play its game at one of its table sizes or more (default variant)."""
    sizes = range(entry["min_players"], entry["max_players"] + 1)
    entry["bots"] = [bot for bot in entry["bots"]
                     if any(cannot_play(bot, entry["name"], entry["default_variant"], n) is None for n in sizes)]
    return entry


@cache
def _bot_works(name: str) -> bool:
    from tracklayer.bots import make_bot

    try:
        make_bot(name, 0)
    except Exception:  # a bot still being written is not offered
        return False
    return True


def catalog() -> dict[str, Any]:
    games = [e for e in (game_entry(g) for g in tracklayer.games()) if e is not None]
    bots = sorted({resolve_bot(n) or n for n in bot_names()} - {None})
    return {"games": games, "bots": [b for b in bots if _bot_works(b)]}


def engine_options(game: str, variant: str | None, options: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for ``tracklayer.new_game`` from the lobby's choices."""
    if family(game) == "ttr":
        out: dict[str, Any] = {}
        if variant:
            out["variant"] = variant
        if options.get("tiebreak"):
            out["tiebreak"] = str(options["tiebreak"])
        return out
    if variant and variant not in TRANS_VARIANTS:
        raise tracklayer.IllegalAction(f"{game} has no variant {variant!r}; variants: {', '.join(TRANS_VARIANTS)}")
    special = TRANS_VARIANTS[variant or "standard"][1]
    return {"special_cards": special} if special else {}


@cache
def board_data(game: str) -> dict[str, Any]:
    """Geometry and labels of a board for the browser (indices match the engine's)."""
    if family(game) == "ttr":
        b = _ttr_board(game)
        xs = [x for x, _ in b.city_xy]
        ys = [y for _, y in b.city_xy]
        return {
            "family": "ttr", "game": game, "name": b.name,
            "bounds": [min(xs), min(ys), max(xs), max(ys)],
            "colors": list(b.colors), "loco": b.locomotive_name, "piece": b.piece_name,
            "wagons": b.wagons, "stations": b.stations,
            "features": {"tunnels": b.features.tunnels, "ferries": b.features.ferries,
                         "stations": b.features.stations, "attractions": b.features.attractions,
                         "longest_path": b.features.longest_path},
            "cities": [{"name": n, "display": b.city_display[i], "x": b.city_xy[i][0], "y": b.city_xy[i][1],
                        "attraction": i in b.attractions, "big": i in b.big_cities}
                       for i, n in enumerate(b.cities)],
            "routes": [{"i": r.index, "a": r.a, "b": r.b, "length": r.length, "color": b.color_name(r.color),
                        "tunnel": r.tunnel, "ferry": r.locomotives, "twins": list(r.twins),
                        "label": b.route_label(r.index), "points": b.route_score[r.index]}
                       for r in b.routes],
        }
    tb = _trans_board(game)
    return {
        "family": "trans", "game": game, "name": tb.name,
        "points": [list(p) for p in tb.xy],
        "edges": [{"i": e, "a": tb.edge_a[e], "b": tb.edge_b[e], "cost": tb.edge_cost[e],
                   "terrain": tb.edge_terrain[e], "text": tb.edge_text(e)} for e in range(len(tb.edge_a))],
        "cities": [{"name": c.name, "color": tb.colors[c.color], "point": c.point,
                    "point_text": tb.point_text(c.point)} for c in tb.cities],
        "colors": list(tb.colors), "rails": tb.rails, "goal": tb.goal,
    }


@cache
def score_data(game: str) -> dict[str, Any]:
    """What the score page (``/score``) needs beyond the drawing: a Ticket to Ride board's tickets with
    the decks (variants) they belong to, and when a double route is closed. Trans boards have no
    tickets; their cities are in :func:`board_data`. Served apart from it so the game page, which
    never shows other players' tickets, does not download them."""
    if family(game) != "ttr":
        tb = _trans_board(game)
        # the special cards' effects, so the page knows from the data which cards change the score and
        # how many passes card 16 makes (a hand may then hold several cities of one colour)
        from tracklayer.trans.cards import load_cards

        cards = [{"id": c.id, "effect": c.effect, **({"times": c.times} if c.times else {})}
                 for c in load_cards().values()]
        return {"game": game, "family": "trans", "max_players": tb.max_players, "tickets": [], "variants": [],
                "special_cards": cards}
    b = _ttr_board(game)
    return {
        "game": game, "family": "ttr", "min_players": b.min_players, "max_players": b.max_players,
        "closed_with_players": sorted(b.closed_with_players),
        "tickets": [{"id": tk.id, "a": tk.a, "b": tk.b, "points": tk.points, "long": tk.long, "logos": list(tk.logos)}
                    for tk in b.tickets],
        "variants": [{"name": k, "title": v.title, "logos": list(v.logos)} for k, v in b.variants.items()],
        "default_variant": b.default_variant,
    }
