"""Load test of the game server through its real websocket API (loopback only, bounded).

Starts ``tracklayer serve`` in a subprocess on 127.0.0.1 with a fresh SQLite file (or
``--database-url``), then for each level plays that many concurrent bot-vs-bot games: every seat is
a websocket client running the random bot on the legal moves the server sends. Every move is
validated by the engine, committed to the database and pushed to both seats before it is
acknowledged. Prints moves/s and the move latency (send -> ack) p50/p99 per level.

    python benchmarks/server_load.py                      # 10, 100, 500 concurrent games
    python benchmarks/server_load.py --levels 10 --max-moves 40 --seconds 20

Bounded: each game stops after ``--max-moves`` moves (or at its end), each level after
``--seconds``; the server is stopped at the end. Traffic goes only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from tracklayer.bots import make_bot

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db_url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "tracklayer.cli", "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--database-url", db_url, "--bot-delay", "0", "--rate-limit", "0"],
                            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                            env={k: v for k, v in os.environ.items() if not k.startswith("TRACKLAYER_")})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        if proc.poll() is not None:
            raise SystemExit(f"server failed to start: {log.read_text()[-2000:]}")
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start within 30 s")


async def seat_client(url: str, token: str, seed: int, max_moves: int, stop_at: float,
                      latencies: list[float], counter: list[int]) -> None:
    bot = make_bot("random", seed)
    async with connect(url, max_size=2**22, open_timeout=30) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at: float | None = None
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.05, stop_at - time.monotonic()))
            except TimeoutError:
                return
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "ack":
                if sent_at is not None:
                    latencies.append(time.perf_counter() - sent_at)
                    counter[0] += 1
                sent_at = None
            elif kind == "error":
                sent_at = None  # e.g. stale after a reconnect: the next state tells what to do
            elif kind == "state":
                if msg["over"] or msg["moves"] >= max_moves:
                    return
                legal = msg.get("legal")
                if legal and sent_at is None:
                    move = bot.choose(msg["view"], legal)
                    sent_at = time.perf_counter()
                    await ws.send(json.dumps({"type": "move", "move": move, "expect": msg["moves"]}))


async def run_level(base: str, n_games: int, max_moves: int, seconds: float, game: str) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        created = []
        for i in range(n_games):
            r = await client.post("/api/games", json={"game": game, "first_player": 0,
                                                      "seats": [{"name": f"A{i}"}, {"name": f"B{i}"}]})
            r.raise_for_status()
            created.append(r.json())
    latencies: list[float] = []
    counter = [0]
    ws_base = base.replace("http://", "ws://")
    start = time.monotonic()
    stop_at = start + seconds
    tasks = [seat_client(f"{ws_base}/ws/{g['id']}", s["token"], k * 7919 + j, max_moves, stop_at, latencies, counter)
             for k, g in enumerate(created) for j, s in enumerate(g["seats"])]
    await asyncio.gather(*tasks, return_exceptions=False)
    elapsed = time.monotonic() - start
    lat = sorted(latencies)

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else float("nan")

    return {"games": n_games, "moves": counter[0], "seconds": elapsed, "moves_per_s": counter[0] / elapsed,
            "p50_ms": pct(0.50), "p99_ms": pct(0.99), "mean_ms": statistics.fmean(lat) * 1000 if lat else float("nan")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default="10,100,500", help="concurrent games per level (comma-separated)")
    ap.add_argument("--max-moves", type=int, default=60, help="moves per game at most")
    ap.add_argument("--seconds", type=float, default=40.0, help="time limit per level")
    ap.add_argument("--game", default="ttr-new-york")
    ap.add_argument("--database-url", default=None, help="default: a fresh SQLite file in a temporary folder")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        db_url = args.database_url or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
        port = free_port()
        proc = start_server(db_url, port, Path(tmp) / "server.log")
        try:
            print(f"server: 127.0.0.1:{port}, database {db_url.split('://')[0]}, game {args.game}, "
                  f"<= {args.max_moves} moves/game, <= {args.seconds:.0f} s/level")
            print(f"{'games':>6} {'moves':>7} {'seconds':>8} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
            for n in levels:
                r = asyncio.run(run_level(f"http://127.0.0.1:{port}", n, args.max_moves, args.seconds, args.game))
                print(f"{r['games']:>6} {r['moves']:>7} {r['seconds']:>8.1f} {r['moves_per_s']:>8.1f} "
                      f"{r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f}", flush=True)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
