"""``render_mode="rgb_array"``: the board as an RGB image (H×W×3 uint8), for video recorders and SB3.

Only public information is drawn (claimed routes, stations, built rails, start markers), so the
frame is the same for every seat. matplotlib with the Agg backend draws the static board (cities,
free routes or lines) once per board and keeps the pixels (``copy_from_bbox``); a frame restores
them and draws the owned pieces on top (one ``LineCollection`` and one scatter), about a millisecond
or two instead of tens for a full redraw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SEAT_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
_CARD_COLORS = {"pink": "#e377c2", "white": "#dddddd", "blue": "#1f77b4", "yellow": "#e5c100",
                "orange": "#ff7f0e", "black": "#333333", "red": "#d62728", "green": "#2ca02c"}


class BoardRenderer:
    """Draws one game family's board; one instance per environment (the figure is reused)."""

    def __init__(self, game: Any, size: tuple[int, int] = (640, 420)) -> None:
        import matplotlib

        if matplotlib.get_backend().lower() != "agg":
            matplotlib.use("Agg", force=True)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import LineCollection
        from matplotlib.figure import Figure

        self.board = game.board
        self.trans = not hasattr(game.state, "route_owner")  # Trans: rails on grid lines, no routes
        dpi = 100
        self.fig = Figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)
        self.canvas = FigureCanvasAgg(self.fig)
        ax = self.fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        self.ax = ax
        if self.trans:
            xy = np.array([(x, -y * 1.732) for x, y in self.board.xy], dtype=float)
            a, b = np.asarray(self.board.edge_a), np.asarray(self.board.edge_b)
            self.segments = np.stack([xy[a], xy[b]], axis=1)
            ax.add_collection(LineCollection(list(self.segments), colors="#cccccc", linewidths=0.6))
            cities = np.array([xy[c.point] for c in self.board.cities])
            ax.scatter(cities[:, 0], cities[:, 1], s=18, c="#444444", zorder=3)
            self.points = xy
        else:
            xy = np.array([(x, -y) for x, y in self.board.city_xy], dtype=float)
            self.segments = np.array([(xy[r.a], xy[r.b]) for r in self.board.routes], dtype=float)
            colors = self.board.colors
            base = [_CARD_COLORS.get(colors[r.color], "#aaaaaa") if 0 <= r.color < len(colors) else "#aaaaaa"
                    for r in self.board.routes]
            ax.add_collection(LineCollection(list(self.segments), colors=base, linewidths=1.2, alpha=0.35))
            ax.scatter(xy[:, 0], xy[:, 1], s=10, c="#444444", zorder=3)
            self.points = xy
        pad = 0.04 * (self.points.max(axis=0) - self.points.min(axis=0))
        ax.set_xlim(self.points[:, 0].min() - pad[0], self.points[:, 0].max() + pad[0])
        ax.set_ylim(self.points[:, 1].min() - pad[1], self.points[:, 1].max() + pad[1])
        self.owned = LineCollection([], linewidths=3.0, zorder=2)
        ax.add_collection(self.owned)
        self.pieces = ax.scatter([], [], s=40, marker="s", zorder=4)
        self.text = ax.text(0.01, 0.99, "", transform=ax.transAxes, va="top", fontsize=8, zorder=5)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(self.fig.bbox)

    def frame(self, game: Any, caption: str = "") -> np.ndarray:
        """The board of ``game`` now, as a new H×W×3 uint8 array."""
        state = game.state
        if self.trans:
            owners = np.asarray(state.owner)
            pieces = [(self.points[p], seat) for seat, p in enumerate(state.markers) if p is not None and p >= 0]
        else:
            owners = np.asarray(state.route_owner)
            pieces = [(self.points[c], seat) for c, seat in enumerate(state.station_owner) if seat >= 0]
        built = np.flatnonzero(owners >= 0)
        self.owned.set_segments(list(self.segments[built]))  # the stubs take a sequence of lines
        self.owned.set_color([SEAT_COLORS[int(owners[i]) % len(SEAT_COLORS)] for i in built])
        if pieces:
            self.pieces.set_offsets(np.array([p for p, _ in pieces]))
            self.pieces.set_color([SEAT_COLORS[s % len(SEAT_COLORS)] for _, s in pieces])
        else:
            self.pieces.set_offsets(np.empty((0, 2)))
        self.text.set_text(caption)
        self.canvas.restore_region(self.background)
        for artist in (self.owned, self.pieces, self.text):
            self.ax.draw_artist(artist)
        self.canvas.blit(self.fig.bbox)
        return np.asarray(self.canvas.buffer_rgba())[:, :, :3].copy()


def caption(game: Any, steps: int) -> str:
    """One line under the frame: move count and the player to move."""
    who = game.current_player
    return f"move {steps}" + ("  game over" if who is None else f"  to move: player_{who}")
