"""Ticket to Ride boards: map data validated and turned into integer-indexed, immutable tables.

The engine's hot paths (legal actions, claims, scoring) index lists by small ints, so names are
resolved once here. Europe and New York differ only in the data: which features exist (tunnels,
ferries, stations, longest path, attractions), constants, and the ticket variants.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracklayer.core.errors import MapError
from tracklayer.core.names import NameIndex
from tracklayer.maps.loader import get_field, load_cached, need, read_header
from tracklayer.ttr.actions import ActionTable

if TYPE_CHECKING:
    from tracklayer.ttr.rules import Rules

GRAY = -1
RETURN_MODES = ("box", "under", "under_shuffled")


@dataclass(frozen=True, slots=True)
class Route:
    index: int  # position in Board.routes (the engine's id)
    data_id: int  # id in the map file
    a: int
    b: int
    length: int
    color: int  # colour index, or GRAY
    tunnel: bool
    locomotives: int  # ferry locomotive symbols (0 = not a ferry)
    twins: tuple[int, ...]  # other lanes of the same double route (engine ids)
    identical_to: int  # lowest-id twin with the same colour/length/kind, else own index


@dataclass(frozen=True, slots=True)
class Ticket:
    index: int
    id: str
    a: int
    b: int
    points: int
    long: bool
    logos: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DealStep:
    """One offer of the starting deal. A player sees a step's tickets only after choosing from the
    step before (Mega Europe: first 2 long tickets, then 5 regular ones), so a choice is never made
    with knowledge of tickets the rules deal later."""

    long: int  # long tickets offered (only the first step may deal them: the rest go to the box at setup)
    regular: int  # regular tickets offered, from the top of the ticket deck
    min_keep: int  # tickets of this offer to keep at least
    max_keep_long: int  # long tickets of this offer to keep at most
    min_held: int  # starting tickets to hold in all after this step (earlier steps' included): Mega 3

    @property
    def size(self) -> int:
        return self.long + self.regular

    def least(self, held: int, offered: int) -> int:
        """Tickets to keep at least of an offer of ``offered`` when ``held`` are kept already."""
        return min(max(self.min_keep, self.min_held - held), offered)


@dataclass(frozen=True, slots=True)
class InitialDeal:
    steps: tuple[DealStep, ...]
    returned: str  # "box" | "under" | "under_shuffled": where the returned regular tickets go

    @property
    def long(self) -> int:
        return sum(step.long for step in self.steps)

    @property
    def regular(self) -> int:
        return sum(step.regular for step in self.steps)


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    title: str
    logos: tuple[str, ...]
    long_tickets: bool
    initial: InitialDeal
    draw_count: int
    draw_min_keep: int


@dataclass(frozen=True, slots=True)
class Features:
    tunnels: bool
    ferries: bool
    stations: bool
    longest_path: bool
    attractions: bool


@dataclass(eq=False)
class Board:
    key: str
    name: str
    source: str
    min_players: int
    max_players: int
    cities: tuple[str, ...]
    city_display: tuple[str, ...]
    city_xy: tuple[tuple[float, float], ...]
    attractions: frozenset[int]
    big_cities: frozenset[int]
    city_index: NameIndex
    colors: tuple[str, ...]
    per_color: int
    locomotives: int
    locomotive_name: str
    piece_name: str  # what players place on routes: "wagon", "taxi"
    routes: tuple[Route, ...]
    route_points: Mapping[int, int]
    tickets: tuple[Ticket, ...]
    wagons: int
    stations: int
    station_costs: tuple[int, ...]
    unused_station_points: int
    longest_path_bonus: int
    attraction_points: int
    starting_hand: int
    face_up: int
    loco_reset: int
    end_trigger: int
    closed_with_players: frozenset[int]
    features: Features
    variants: Mapping[str, Variant]
    default_variant: str
    city_routes: tuple[tuple[int, ...], ...] = field(init=False)
    routes_between: Mapping[tuple[int, int], tuple[int, ...]] = field(init=False)
    route_score: tuple[int, ...] = field(init=False)  # points by route index
    ticket_by_id: Mapping[str, int] = field(init=False)
    route_labels: tuple[str, ...] = field(init=False)  # notation label per route (see route_label)
    loco: int = field(init=False)  # card index of the wild card (locomotive / taxi): after the colours
    _actions: ActionTable | None = field(default=None, init=False, repr=False)
    # the rules object of each variant, made and kept by ``ttr.rules.rules_for``
    _rules: dict[str, Rules] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        per_city: list[list[int]] = [[] for _ in self.cities]
        between: dict[tuple[int, int], list[int]] = {}
        for r in self.routes:
            per_city[r.a].append(r.index)
            per_city[r.b].append(r.index)
            between.setdefault((min(r.a, r.b), max(r.a, r.b)), []).append(r.index)
        self.city_routes = tuple(tuple(x) for x in per_city)
        self.routes_between = {k: tuple(v) for k, v in between.items()}
        self.route_score = tuple(self.route_points[r.length] for r in self.routes)
        self.ticket_by_id = {t.id.casefold(): t.index for t in self.tickets}
        self.loco = len(self.colors)
        self.route_labels = tuple(self._label(r.index) for r in self.routes)


    @property
    def actions(self) -> ActionTable:
        """The board's interned action table (built on first use; see ``ttr.actions``)."""
        if self._actions is None:
            self._actions = ActionTable(self)
        return self._actions

    def card_name(self, card: int) -> str:
        return self.locomotive_name if card == self.loco else self.colors[card]

    def color_name(self, color: int) -> str:
        return "gray" if color == GRAY else self.colors[color]

    def route_label(self, index: int) -> str:
        """Notation of a route: ``A-B``, plus ``/colour`` where lanes of a double differ."""
        return self.route_labels[index]

    def _label(self, index: int) -> str:
        r = self.routes[index]
        text = f"{self.cities[r.a]}-{self.cities[r.b]}"
        if r.twins and any(self.routes[t].identical_to != r.identical_to for t in r.twins):
            text += f"/{self.color_name(r.color)}"
        return text

    def tickets_for(self, variant: Variant, extra: Iterable[Ticket] = ()) -> tuple[list[int], list[int]]:
        """(long, regular) ticket indices that a variant plays with."""
        long: list[int] = []
        regular: list[int] = []
        for t in (*self.tickets, *extra):
            if not set(t.logos) & set(variant.logos):
                continue
            if t.long:
                if variant.long_tickets:
                    long.append(t.index)
            else:
                regular.append(t.index)
        return long, regular


_BOARDS: dict[str, Board] = {}



def _initial_deal(ini: dict[str, Any], where: str) -> InitialDeal:
    """A variant's starting deal: ``{"steps": [step, ...], "returned": mode}``, or one step written inline
    (``{"long": 1, "regular": 3, "min_keep": 2, "max_keep_long": 1, "returned": "box"}``)."""
    raw_steps = ini.get("steps", [ini])
    need(isinstance(raw_steps, list) and bool(raw_steps), where, "steps must be a non-empty list")
    steps = []
    for i, st in enumerate(raw_steps):
        sw = f"{where}.steps[{i}]" if "steps" in ini else where
        need(isinstance(st, dict), sw, "must be an object")
        long, regular = int(st.get("long", 0)), int(st.get("regular", 0))
        step = DealStep(long=long, regular=regular, min_keep=get_field(st, "min_keep", sw, int),
                        max_keep_long=int(st.get("max_keep_long", long)), min_held=int(st.get("min_held", 0)))
        need(long >= 0 and regular >= 0 and step.size >= 1, sw, "a step offers at least one ticket")
        need(0 <= step.min_keep <= step.size, sw, "min_keep must be between 0 and the number of tickets offered")
        need(i == 0 or long == 0, sw, "only the first step may offer long tickets (the rest go to the box)")
        steps.append(step)
    deal = InitialDeal(steps=tuple(steps), returned=get_field(ini, "returned", where, str))
    need(deal.returned in RETURN_MODES, where, f"returned must be one of {RETURN_MODES}")
    need(sum(st.min_keep for st in steps) >= 1 or max(st.min_held for st in steps) >= 1, where,
         "players must keep at least one starting ticket")
    return deal

def load_board(name_or_path: str | Path) -> Board:
    """Load and validate a Ticket to Ride map; built-in maps are parsed once per process."""
    return load_cached(name_or_path, board_from_data, _BOARDS)


def board_from_data(data: Mapping[str, Any], source: str, key: str) -> Board:
    """Validate raw map data; every error names the file, the entry and the problem."""
    top = source
    name, min_p, max_p = read_header(data, top, "ttr", "Ticket to Ride")

    cards = get_field(data, "train_cards", top, dict)
    colors = tuple(get_field(cards, "colors", f"{top}: train_cards", list))
    need(len(colors) >= 2 and all(isinstance(c, str) for c in colors), f"{top}: train_cards.colors",
          "must be a list of at least 2 colour names")
    need(len(set(colors)) == len(colors) and "gray" not in colors, f"{top}: train_cards.colors",
          "colour names must be unique and 'gray' is reserved for routes of any colour")
    color_ix = {c: i for i, c in enumerate(colors)}

    raw_cities = get_field(data, "cities", top, list)
    names: list[str] = []
    display: list[str] = []
    xy: list[tuple[float, float]] = []
    attractions: set[int] = set()
    big: set[int] = set()
    alias_entries: list[tuple[str, list[str]]] = []
    for i, c in enumerate(raw_cities):
        where = f"{top}: cities[{i}]"
        need(isinstance(c, dict), where, "must be an object")
        cname = get_field(c, "name", where, str)
        where = f"{top}: cities[{i}] ({cname})"
        need("-" not in cname and "/" not in cname and ":" not in cname and cname.strip() == cname and cname,
              where, "a city name may not contain '-', '/' or ':' (they separate names in the notation)")
        aliases = c.get("aliases", [])
        need(isinstance(aliases, list) and all(isinstance(a, str) for a in aliases), where,
              "aliases must be a list of strings")
        names.append(cname)
        display.append(c.get("display", cname))
        xy.append((float(get_field(c, "x", where, (int, float))), float(get_field(c, "y", where, (int, float)))))
        if c.get("attraction"):
            attractions.add(i)
        if c.get("big_city"):
            big.add(i)
        alias_entries.append((cname, aliases))
    need(len(names) >= 2, top, "a map needs at least 2 cities")
    try:
        index = NameIndex("city", alias_entries)
    except ValueError as exc:
        raise MapError(f"{top}: cities: {exc}") from exc
    city_ix = {n: i for i, n in enumerate(names)}

    def city(value: Any, where: str) -> int:
        need(isinstance(value, str), where, f"city must be a name, got {value!r}")
        canonical = index.get(value)
        if canonical is None:
            hint = index.suggest(value)
            raise MapError(f"{where}: unknown city {value!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
        return city_ix[canonical]

    points_raw = get_field(data, "route_points", top, dict)
    route_points: dict[int, int] = {}
    for k, v in points_raw.items():
        need(k.isdigit() and isinstance(v, int) and not isinstance(v, bool), f"{top}: route_points",
              f"entry {k!r}: {v!r} must map a length to integer points")
        route_points[int(k)] = v

    feats_raw = data.get("features", {})
    features = Features(**{f: bool(feats_raw.get(f, False)) for f in Features.__slots__})

    raw_routes = get_field(data, "routes", top, list)
    seen_ids: set[int] = set()
    groups: dict[Any, list[int]] = {}
    prelim: list[dict[str, Any]] = []
    for i, r in enumerate(raw_routes):
        where = f"{top}: routes[{i}]"
        need(isinstance(r, dict), where, "must be an object")
        rid = get_field(r, "id", where, int)
        where = f"{top}: routes[{i}] (id {rid} {r.get('a')}-{r.get('b')})"
        need(rid not in seen_ids, where, "duplicate route id")
        seen_ids.add(rid)
        a, b = city(r.get("a"), where), city(r.get("b"), where)
        need(a != b, where, "a route must join two different cities")
        length = get_field(r, "length", where, int)
        need(length in route_points, where, f"length {length} has no entry in route_points")
        color_name = get_field(r, "color", where, str)
        need(color_name == "gray" or color_name in color_ix, where,
              f"colour {color_name!r} is neither 'gray' nor one of {', '.join(colors)}")
        tunnel = bool(r.get("tunnel", False))
        locos = r.get("locomotives", 0)
        need(isinstance(locos, int) and 0 <= locos <= length, where,
              f"locomotives must be an integer from 0 to the length, got {locos!r}")
        need(not tunnel or features.tunnels, where, "tunnel on a map whose features say no tunnels")
        need(not locos or (features.ferries and color_name == "gray"), where,
              "ferry locomotives need features.ferries and a gray route")
        group = r.get("double_group")
        if group is not None:
            groups.setdefault(group, []).append(i)
        prelim.append(dict(data_id=rid, a=a, b=b, length=length,
                           color=GRAY if color_name == "gray" else color_ix[color_name],
                           tunnel=tunnel, locomotives=locos))
    twins: dict[int, tuple[int, ...]] = {}
    for group, members in groups.items():
        where = f"{top}: double_group {group!r}"
        need(len(members) >= 2, where, f"has only one route (routes[{members[0]}])")
        ends = {frozenset((prelim[m]["a"], prelim[m]["b"])) for m in members}
        need(len(ends) == 1, where, "routes of one double group must join the same two cities")
        for m in members:
            twins[m] = tuple(x for x in members if x != m)
    routes: list[Route] = []
    for i, p in enumerate(prelim):
        same = [i] + [t for t in twins.get(i, ()) if (prelim[t]["color"], prelim[t]["length"], prelim[t]["tunnel"],
                                                      prelim[t]["locomotives"]) ==
                      (p["color"], p["length"], p["tunnel"], p["locomotives"])]
        routes.append(Route(index=i, twins=twins.get(i, ()), identical_to=min(same), **p))

    raw_tickets = get_field(data, "tickets", top, list)
    tickets: list[Ticket] = []
    seen_t: set[str] = set()
    for i, t in enumerate(raw_tickets):
        where = f"{top}: tickets[{i}]"
        need(isinstance(t, dict), where, "must be an object")
        tid = str(get_field(t, "id", where, (str, int)))
        where = f"{top}: tickets[{i}] ({tid})"
        need(tid.casefold() not in seen_t, where, "duplicate ticket id")
        seen_t.add(tid.casefold())
        a, b = city(t.get("a"), where), city(t.get("b"), where)
        need(a != b, where, "a ticket must join two different cities")
        pts = get_field(t, "points", where, int)
        need(pts > 0, where, f"points must be positive, got {pts}")
        logos = t.get("logos") or [t.get("deck", "default")]
        need(isinstance(logos, list) and all(isinstance(x, str) for x in logos), where,
              "logos must be a list of names")
        tickets.append(Ticket(i, tid, a, b, pts, bool(t.get("long", False)), tuple(logos)))

    raw_variants = get_field(data, "variants", top, dict)
    need(bool(raw_variants), top, "at least one variant is needed")
    variants: dict[str, Variant] = {}
    all_logos = {logo for t in tickets for logo in t.logos}
    for vname, v in raw_variants.items():
        where = f"{top}: variants.{vname}"
        need(isinstance(v, dict), where, "must be an object")
        logos = tuple(get_field(v, "logos", where, list))
        need(bool(logos), where, "needs at least one ticket logo")
        for logo in logos:
            need(logo in all_logos, where, f"no ticket carries the logo {logo!r}")
        initial = _initial_deal(get_field(v, "initial", where, dict), f"{where}.initial")
        draw = get_field(v, "draw", where, dict)
        variants[vname] = Variant(
            name=vname, title=v.get("title", vname), logos=logos, long_tickets=bool(v.get("long_tickets", True)),
            initial=initial, draw_count=get_field(draw, "count", f"{where}.draw", int),
            draw_min_keep=get_field(draw, "min_keep", f"{where}.draw", int))
    default_variant = data.get("default_variant", next(iter(variants)))
    need(default_variant in variants, top, f"default_variant {default_variant!r} is not a variant")

    closed = data.get("double_routes_closed_with_players", [])
    station_costs = tuple(data.get("station_costs", []))
    stations = int(data.get("stations", 0))
    need(not features.stations or len(station_costs) == stations, top,
          f"station_costs must list one cost per station ({stations}), got {list(station_costs)}")
    return Board(
        key=key, name=name, source=source, min_players=min_p, max_players=max_p,
        cities=tuple(names), city_display=tuple(display), city_xy=tuple(xy),
        attractions=frozenset(attractions), big_cities=frozenset(big), city_index=index,
        colors=colors, per_color=get_field(cards, "per_color", f"{top}: train_cards", int),
        locomotives=get_field(cards, "locomotives", f"{top}: train_cards", int),
        locomotive_name=str(cards.get("locomotive_name", data.get("locomotive_name", "locomotive"))),
        piece_name=str(data.get("piece_name", "wagon")),
        routes=tuple(routes), route_points=route_points, tickets=tuple(tickets),
        wagons=get_field(data, "wagons", top, int), stations=stations if features.stations else 0,
        station_costs=station_costs, unused_station_points=int(data.get("unused_station_points", 0)),
        longest_path_bonus=int(data.get("longest_path_bonus", 0)),
        attraction_points=int(data.get("attraction_points", 0)),
        starting_hand=get_field(data, "starting_hand", top, int), face_up=get_field(data, "face_up", top, int),
        loco_reset=get_field(data, "face_up_locomotive_reset", top, int),
        end_trigger=int(data.get("end_trigger_wagons", 2)), closed_with_players=frozenset(closed),
        features=features, variants=variants, default_variant=default_variant,
    )
