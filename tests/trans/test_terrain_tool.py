"""``tools/trans_terrain.py``, which derived the water/mountain labels of the double lines: its TopoJSON
decoding and its fit, on tiny inputs (no npm fetch); re-running it on the shipped land data must
reproduce the shipped labels (checked by hand: ``python tools/trans_terrain.py`` reports the agreement)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

_PATH = Path(__file__).resolve().parents[2] / "tools" / "trans_terrain.py"
_spec = importlib.util.spec_from_file_location("trans_terrain", _PATH)
assert _spec and _spec.loader
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)


def test_topojson_arcs_are_decoded_delta_quantized_and_reversed():
    topo = {"transform": {"scale": [0.5, 0.25], "translate": [10, 40]},
            "arcs": [[[0, 0], [4, 0], [0, 4]], [[0, 0], [4, 0], [0, 4]]],  # (0,0)->(4,0)->(4,4) in quanta
            "objects": {"land": {"type": "GeometryCollection", "geometries": [
                {"type": "Polygon", "arcs": [[0, ~1]]}]}}}
    (ring,) = tool.topojson_rings(topo)
    # arc 0: (10,40) (12,40) (12,41); arc ~1 is arc 1 reversed, its first point (shared) dropped
    assert ring.tolist() == [[10, 40], [12, 40], [12, 41], [12, 40], [10, 40]]


def test_the_affine_fit_recovers_an_exact_map_and_reports_residuals():
    grid = np.array([[0, 0], [1, 0], [0, 1], [2, 3], [5, 1]], dtype=float)
    real = grid @ np.array([[200.0, 10.0], [-5.0, -190.0]]) + np.array([7.0, 3.0])
    fit = tool.Fit(grid, real)
    assert np.allclose(fit(grid), real) and fit.residuals.max() < 1e-9
    assert abs(fit.spacing_km - np.hypot(200, 10)) < 1e-9


def test_the_city_lists_match_the_boards():
    import json

    for game, cities in tool.CITIES.items():
        data = json.loads((tool.DATA / f"{game}.json").read_text(encoding="utf-8"))
        assert sorted(c["name"] for c in data["cities"]) == sorted(cities)
        assert all(-180 <= lon <= 180 and -90 <= lat <= 90 for lon, lat in cities.values())
