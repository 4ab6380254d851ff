"""Derive the terrain (water / mountain) of the Trans boards' double lines from real geography.

Why: special cards 4 (water doubles count single) and 5 (mountain doubles count single) need to
know which double line crosses water and which crosses mountains, on both boards. No transcription
labels Trans Europa's 151 doubles (``shared/data/README.md``), and one Trans America double has no
label. This script derives them in a way anyone can re-run, and writes them into the board data
(``tracklayer/maps/data/trans-*.json``): the engine reads data, there are no labels in code.

Method:
1. Real-world lon/lat of the 35 cities of each board (``CITIES`` below, city centres) are projected
   onto a plane (Lambert azimuthal equal-area, centred on the board's cities, kilometres).
2. A least-squares affine map from the board's grid (point ``x,row`` drawn at ``(x/2, row*sqrt(3)/2)``)
   to that plane is fitted to the 35 cities; the residuals (how far each city's grid point lands from
   the real city) are reported.
3. Land polygons: Natural Earth 1:50m land (public domain) as shipped by the npm package
   ``world-atlas`` (ISC licence), fetched with ``npm pack`` into a temporary directory; the TopoJSON
   arcs are decoded here (delta-encoded, quantized) into rings, projected the same way, and tested
   with ``matplotlib.path`` (even-odd over all rings, so holes such as the Caspian work).
4. Each double line is sampled at ``SAMPLES`` evenly spaced points (end points included); its
   ``water`` fraction is the share of samples off land. A line is ``water`` when that share is at least
   ``WATER_AT`` (half), or when it passes within ``LAKE_NEAR_KM`` of the middle of a large lake (over
   1000 km^2, ``LAKES``: Natural Earth's land polygons keep lakes as land), else ``mountain``. Lines whose
   share lies between 0.3 and 0.7 are listed as close calls.

Known limit: rivers are not water here (the land polygons have none), though some double lines on
the boards follow rivers (Trans America's transcribed water doubles are mostly rivers: the report
shows how few of them this method finds).

Trans America already carries labels from a transcription: only lines with ``terrain: null`` are
filled there; the derived call for every other double is compared with the transcribed one and the
agreement is reported (rivers are ``water`` on that board and land here, so the agreement mostly
measures how many water doubles are rivers).

    python tools/trans_terrain.py                    # report only
    python tools/trans_terrain.py --write            # write labels into the data files
    python tools/trans_terrain.py --png /tmp/te.png  # also draw each board over the land polygons
    python tools/trans_terrain.py --topojson land-50m.json   # use a file already at hand (no npm)
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.path import Path as MplPath

PACKAGE = "world-atlas@2.0.2"
LAND_FILE = "land-50m.json"
DATASET = "Natural Earth 4.1.0 land 1:50m (public domain), TopoJSON from npm world-atlas 2.0.2 (ISC)"
SAMPLES = 21
WATER_AT = 0.5
CLOSE = (0.3, 0.7)
DATA = Path(__file__).resolve().parent.parent / "tracklayer" / "maps" / "data"

# City centres, (longitude east, latitude north), degrees: the board's spelling first.
CITIES: dict[str, dict[str, tuple[float, float]]] = {
    "trans-europa": {
        "Glasgow": (-4.25, 55.86), "Oslo": (10.75, 59.91), "Stockholm": (18.07, 59.33),
        "Helsinki": (24.94, 60.17), "St. Petersburg": (30.32, 59.94), "Riga": (24.11, 56.95),
        "Dublin": (-6.26, 53.35), "Malmö": (13.00, 55.60), "Moscow": (37.62, 55.76),
        "London": (-0.13, 51.51), "Vilnius": (25.28, 54.69), "Plymouth": (-4.14, 50.38),
        "Amsterdam": (4.90, 52.37), "Minsk": (27.56, 53.90), "Brest": (-4.49, 48.39),
        "Berlin": (13.40, 52.52), "Warsaw": (21.01, 52.23), "Paris": (2.35, 48.86),
        "Kyiv": (30.52, 50.45), "Kharkiv": (36.23, 49.99), "Bilbao": (-2.93, 43.26),
        "Zürich": (8.54, 47.38), "Vienna": (16.37, 48.21), "Budapest": (19.04, 47.50),
        "Odesa": (30.72, 46.48), "Madrid": (-3.70, 40.42), "Marseille": (5.37, 43.30),
        "Florence": (11.26, 43.77), "Bucharest": (26.10, 44.43), "Barcelona": (2.17, 41.39),
        "Sofia": (23.32, 42.70), "Rome": (12.50, 41.90), "Tirana": (19.82, 41.33),
        "Istanbul": (28.98, 41.01), "Thessaloniki": (22.94, 40.64),
    },
    "trans-america": {
        "Seattle": (-122.33, 47.61), "Portland": (-122.68, 45.52), "Helena": (-112.04, 46.59),
        "Bismarck": (-100.78, 46.81), "Duluth": (-92.10, 46.79), "Minneapolis": (-93.27, 44.98),
        "Buffalo": (-78.88, 42.89), "Boston": (-71.06, 42.36), "Medford": (-122.87, 42.33),
        "Chicago": (-87.63, 41.88), "Salt Lake City": (-111.89, 40.76), "Omaha": (-95.94, 41.26),
        "New York": (-74.01, 40.71), "Sacramento": (-121.49, 38.58), "Denver": (-104.99, 39.74),
        "Cincinnati": (-84.51, 39.10), "Washington": (-77.04, 38.91), "San Francisco": (-122.42, 37.77),
        "Kansas City": (-94.58, 39.10), "St. Louis": (-90.20, 38.63), "Richmond": (-77.44, 37.54),
        "Santa Fe": (-105.94, 35.69), "Oklahoma City": (-97.52, 35.47), "Winston": (-80.24, 36.10),
        "Los Angeles": (-118.24, 34.05), "Phoenix": (-112.07, 33.45), "Memphis": (-90.05, 35.15),
        "San Diego": (-117.16, 32.72), "Dallas": (-96.80, 32.78), "Atlanta": (-84.39, 33.75),
        "Charleston": (-79.93, 32.78), "El Paso": (-106.49, 31.76), "Houston": (-95.37, 29.76),
        "New Orleans": (-90.07, 29.95), "Jacksonville": (-81.66, 30.33),
    },
}
EARTH_KM = 6371.0
# Natural Earth's land polygons keep lakes as land. Large lakes (over 1000 km^2) on or near the boards, (lon, lat)
# of their middle: a double line passing within LAKE_NEAR_KM of one crosses "a large lake" and is water.
LAKES: dict[str, dict[str, tuple[float, float]]] = {
    "trans-europa": {"Ladoga": (31.5, 60.8), "Onega": (35.4, 61.7), "Peipus": (27.5, 58.7), "Vänern": (13.3, 58.9),
                     "Vättern": (14.5, 58.3)},
    "trans-america": {"Superior": (-87.5, 47.7), "Michigan": (-87.0, 44.0), "Huron": (-82.4, 44.8),
                      "Erie": (-81.2, 42.2), "Ontario": (-77.9, 43.7), "Great Salt Lake": (-112.5, 41.2)},
}
LAKE_NEAR_KM = 60.0


# ---------------------------------------------------------------------------------------------- land data
def fetch_topojson() -> dict[str, Any]:
    """``npm pack world-atlas@2.0.2`` into a temporary directory and read ``land-50m.json`` from it."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, check=True, capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
        with tarfile.open(Path(tmp) / out) as tar:
            member = tar.extractfile(f"package/{LAND_FILE}")
            assert member is not None, f"{LAND_FILE} is not in {out}"
            return json.load(member)


def topojson_rings(topo: dict[str, Any]) -> list[np.ndarray]:
    """Every ring of the ``land`` object as an (n, 2) array of lon/lat (TopoJSON arcs decoded: quantized,
    delta-encoded positions; a negative arc index ``~i`` is arc ``i`` reversed)."""
    sx, sy = topo["transform"]["scale"]
    tx, ty = topo["transform"]["translate"]
    arcs = []
    for arc in topo["arcs"]:
        q = np.cumsum(np.asarray(arc, dtype=float), axis=0)
        arcs.append(np.column_stack((q[:, 0] * sx + tx, q[:, 1] * sy + ty)))

    def ring(indices: list[int]) -> np.ndarray:
        parts = []
        for k, i in enumerate(indices):
            a = arcs[i] if i >= 0 else arcs[~i][::-1]
            parts.append(a if k == 0 else a[1:])  # consecutive arcs share their joining point
        return np.concatenate(parts)

    rings = []
    for geom in topo["objects"]["land"]["geometries"]:
        polys = geom["arcs"] if geom["type"] == "MultiPolygon" else [geom["arcs"]]
        for poly in polys:
            rings.extend(ring(r) for r in poly)
    return rings


# ---------------------------------------------------------------------------------------------- geometry
def laea(lonlat: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    """Lambert azimuthal equal-area projection (km) about ``centre`` (lon, lat): distances near the
    board stay true to within a few percent, so the fit residuals read as kilometres."""
    lon, lat = np.radians(lonlat[:, 0]), np.radians(lonlat[:, 1])
    lon0, lat0 = map(math.radians, centre)
    cos_c = math.sin(lat0) * np.sin(lat) + math.cos(lat0) * np.cos(lat) * np.cos(lon - lon0)
    k = np.sqrt(2.0 / np.maximum(1.0 + cos_c, 1e-12))
    x = k * np.cos(lat) * np.sin(lon - lon0)
    y = k * (math.cos(lat0) * np.sin(lat) - math.sin(lat0) * np.cos(lat) * np.cos(lon - lon0))
    return EARTH_KM * np.column_stack((x, y))


def grid_xy(points: np.ndarray) -> np.ndarray:
    """Board grid ``[x, row]`` -> the board's drawing plane (spacing 1; row 0 north, so y grows south)."""
    return np.column_stack((points[:, 0] / 2.0, points[:, 1] * math.sqrt(3) / 2.0))


class Fit:
    """Least-squares affine map grid plane -> projected plane (km), fitted on the cities."""

    def __init__(self, grid: np.ndarray, real: np.ndarray) -> None:
        design = np.column_stack((grid, np.ones(len(grid))))
        self.coef, *_ = np.linalg.lstsq(design, real, rcond=None)
        self.residuals = np.linalg.norm(self(grid) - real, axis=1)

    def __call__(self, grid: np.ndarray) -> np.ndarray:
        return np.column_stack((grid, np.ones(len(grid)))) @ self.coef

    @property
    def spacing_km(self) -> float:
        """Length of one grid line (east-west) on the ground."""
        return float(np.linalg.norm(self.coef[0]))


class Land:
    """Point-in-land test on the projected plane, even-odd over all rings near the board."""

    def __init__(self, rings: list[np.ndarray], centre: tuple[float, float], box: tuple[float, ...]) -> None:
        lon0, lon1, lat0, lat1 = box
        self.paths = []
        for r in rings:
            if r[:, 0].max() < lon0 or r[:, 0].min() > lon1 or r[:, 1].max() < lat0 or r[:, 1].min() > lat1:
                continue  # far from the board (and Antarctica, whose ring would wrap the projection's disc)
            self.paths.append(MplPath(laea(r, centre)))

    def contains(self, xy: np.ndarray) -> np.ndarray:
        inside = np.zeros(len(xy), dtype=int)
        for p in self.paths:
            inside += p.contains_points(xy)
        return inside % 2 == 1


def _dist_to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


# ---------------------------------------------------------------------------------------------- per board
def classify(game: str, rings: list[np.ndarray]) -> dict[str, Any]:
    data = json.loads((DATA / f"{game}.json").read_text(encoding="utf-8"))
    cities = CITIES[game]
    names = [c["name"] for c in data["cities"]]
    assert sorted(names) == sorted(cities), f"{game}: city list differs from the board's"
    lonlat = np.array([cities[n] for n in names])
    centre = (float(lonlat[:, 0].mean()), float(lonlat[:, 1].mean()))
    real = laea(lonlat, centre)
    grid = grid_xy(np.array([c["point"] for c in data["cities"]], dtype=float))
    fit = Fit(grid, real)
    box = (lonlat[:, 0].min() - 25, lonlat[:, 0].max() + 25, lonlat[:, 1].min() - 15, lonlat[:, 1].max() + 15)
    land = Land(rings, centre, box)
    t = np.linspace(0.0, 1.0, SAMPLES)
    lakes = {name: laea(np.array([xy]), centre)[0] for name, xy in LAKES[game].items()}
    lines = []
    for i, e in enumerate(data["edges"]):
        if e["cost"] != 2:
            continue
        a, b = np.array(e["a"], dtype=float), np.array(e["b"], dtype=float)
        pts = fit(grid_xy(a + t[:, None] * (b - a)))
        water = float(1.0 - land.contains(pts).mean())
        near = [name for name, xy in lakes.items() if _dist_to_segment(xy, pts[0], pts[-1]) <= LAKE_NEAR_KM]
        lines.append({"edge": i, "text": f"{e['a'][0]},{e['a'][1]}-{e['b'][0]},{e['b'][1]}", "water": water,
                      "call": "water" if water >= WATER_AT or near else "mountain", "given": e.get("terrain"),
                      "lakes": near})
    return {"game": game, "data": data, "fit": fit, "names": names, "lonlat": lonlat, "centre": centre,
            "real": real, "land": land, "lines": lines}


def report(res: dict[str, Any]) -> str:
    fit, lines = res["fit"], res["lines"]
    r = fit.residuals
    worst = sorted(zip(r, res["names"], strict=True), reverse=True)[:5]
    out = [f"## {res['data']['name']}",
           f"fit: one grid spacing = {fit.spacing_km:.0f} km; city residuals rms {math.sqrt((r ** 2).mean()):.0f} km, "
           f"median {np.median(r):.0f} km, max {r.max():.0f} km",
           "largest residuals: " + ", ".join(f"{n} {d:.0f} km" for d, n in worst)]
    calls = [x["call"] for x in lines]
    out.append(f"doubles: {len(lines)}; derived water {calls.count('water')}, mountain {calls.count('mountain')}")
    given = [x for x in lines if x["given"] in ("water", "mountain")]
    if given:
        agree = sum(1 for x in given if x["given"] == x["call"])
        by = {(g, c): sum(1 for x in given if x["given"] == g and x["call"] == c)
              for g in ("water", "mountain") for c in ("water", "mountain")}
        out.append(f"agreement with the labels already in the data: {agree}/{len(given)} "
                   f"(given->derived: {', '.join(f'{g}->{c} {n}' for (g, c), n in by.items())})")
    filled = [x for x in lines if x["given"] is None]
    out.append("filled (terrain was null): " + (", ".join(f"{x['text']} {x['call']} (water {x['water']:.2f})"
                                                          for x in filled) if len(filled) < 5 else str(len(filled))))
    close = [x for x in lines if CLOSE[0] <= x["water"] <= CLOSE[1]]
    out.append(f"close calls (water share {CLOSE[0]}-{CLOSE[1]}): " + (", ".join(
        f"{x['text']} {x['water']:.2f}->{x['call']}" for x in close) or "none"))
    near = [x for x in lines if x["lakes"]]
    out.append(f"water as within {LAKE_NEAR_KM:.0f} km of a large lake's middle: " + (", ".join(
        f"{x['text']} {'/'.join(x['lakes'])}->{x['given'] or x['call']}" for x in near) or "none"))
    return "\n".join(out)


def write(res: dict[str, Any]) -> None:
    """Fill every double line's ``terrain`` that is null (Trans America's transcribed labels stay)."""
    data = res["data"]
    for x in res["lines"]:
        if data["edges"][x["edge"]].get("terrain") is None:
            data["edges"][x["edge"]]["terrain"] = x["call"]
    path = DATA / f"{res['game']}.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def draw(res: dict[str, Any], png: Path) -> None:
    """The fitted grid over the land polygons: water doubles blue, mountain doubles brown, cities red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import PathPatch

    data, fit = res["data"], res["fit"]
    fig, ax = plt.subplots(figsize=(14, 11))
    for p in res["land"].paths:
        ax.add_patch(PathPatch(p, facecolor="#e8e4d8", edgecolor="#9a9a9a", lw=0.4))
    calls = {x["edge"]: x for x in res["lines"]}
    for i, e in enumerate(data["edges"]):
        ab = fit(grid_xy(np.array([e["a"], e["b"]], dtype=float)))
        if e["cost"] == 1:
            ax.plot(ab[:, 0], ab[:, 1], color="#bbbbbb", lw=0.5)
            continue
        x = calls[i]
        label = x["given"] or x["call"]
        ax.plot(ab[:, 0], ab[:, 1], color="#1f6fd0" if label == "water" else "#8b5a2b", lw=2.4,
                ls="-" if x["given"] in (None, x["call"]) else ":")
        if CLOSE[0] <= x["water"] <= CLOSE[1]:
            mid = ab.mean(axis=0)
            ax.annotate(f"{x['water']:.1f}", mid, fontsize=6, color="k")
    cg = fit(grid_xy(np.array([c["point"] for c in data["cities"]], dtype=float)))
    ax.plot(res["real"][:, 0], res["real"][:, 1], "k+", ms=6)
    for (gx, gy), (rx, ry), n in zip(cg, res["real"], res["names"], strict=True):
        ax.plot([gx, rx], [gy, ry], color="r", lw=0.6)
        ax.plot(gx, gy, "o", color="r", ms=3)
        ax.annotate(n, (gx, gy), fontsize=6, color="r")
    allp = fit(grid_xy(np.array(data["points"], dtype=float)))
    ax.set_xlim(allp[:, 0].min() - 150, allp[:, 0].max() + 150)
    ax.set_ylim(allp[:, 1].min() - 150, allp[:, 1].max() + 150)
    ax.set_aspect("equal")
    ax.set_title(f"{data['name']}: doubles water (blue) / mountain (brown); dotted = transcription differs; "
                 "red = city grid point, + = real city")
    fig.savefig(png, dpi=110, bbox_inches="tight")
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="write the labels into tracklayer/maps/data")
    ap.add_argument("--png", type=Path, help="draw each board to this path (the board name is added)")
    ap.add_argument("--topojson", type=Path, help=f"a {LAND_FILE} at hand instead of npm pack {PACKAGE}")
    args = ap.parse_args()
    topo = json.loads(args.topojson.read_text()) if args.topojson else fetch_topojson()
    rings = topojson_rings(topo)
    print(f"land: {DATASET}; {len(rings)} rings; {SAMPLES} samples per line, water when share >= {WATER_AT}")
    for game in CITIES:
        res = classify(game, rings)
        print(report(res))
        if args.png:
            draw(res, args.png.with_name(f"{args.png.stem}-{game}{args.png.suffix}"))
        if args.write:
            write(res)


if __name__ == "__main__":
    main()
