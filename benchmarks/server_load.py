"""Load test of the game server through its real websocket API (loopback only, bounded).

Starts ``tracklayer serve`` in a subprocess on 127.0.0.1 with a fresh SQLite file (or
``--database-url``), then for each level plays that many concurrent bot-vs-bot games: every seat is
a websocket client running the random bot on the legal moves the server sends. Every move is
validated by the engine, committed to the database and pushed to both seats before it is
acknowledged. Prints moves/s, the move latency (send -> ack, the bot's choice not included) p50/p99
and the CPU time per move of the server process and of the load clients per level. The clients run in
``--client-procs`` processes of their own, but on the same machine: they compete with the server
for its cores, which the figures must be read with (the CPU columns tell how much).

``--processes 1,2,4`` (PostgreSQL only) runs every level against 1, then 2, then 4 server processes
on one database, and puts the figures side by side. Seat ``j`` of game ``k`` connects to process
``(k + j) mod P``, so with several processes every move is stored by one and reaches the other seat
through another (LISTEN/NOTIFY); the latency reported then is the time from sending a move until
*every* seat's client has the state after it ("all seats"), besides send -> ack.

    python benchmarks/server_load.py                      # 10, 100, 500 concurrent games
    python benchmarks/server_load.py --levels 10 --max-moves 40 --seconds 20
    python benchmarks/server_load.py --levels 100 --think 1     # players who look ~1 s before each move
    python benchmarks/server_load.py --database-url postgresql://u:p@127.0.0.1/bench --processes 1,2,4
    python benchmarks/server_load.py --mode bots               # 20 games of 5 mcts bots + one human

``--mode bots`` asks whether bots can slow the server down for others: it starts ``--bot-games``
bot-only games (``--bots`` seats of ``--bot`` each, Ticket to Ride Europe, no bot delay unless
``--bot-delay``), lets them play ``--warmup`` seconds, then, while they play, one human client (a
hot-seat table of two human seats) plays random legal moves over the websocket every
``--human-think`` seconds on average, and a lobby client lists ``GET /api/games`` every half
second. It prints the human's move latency (send -> ack, and send -> the state after it)
p50/p99/max, the lobby list's latency p50/p99/max, the bot moves the bot games made meanwhile and
the fallback moves of the run (bots without an answer within the server's time cap). The server
runs without the per-address game creation limits where it has them (``--games-per-minute 0
--bot-games 0``), so the same command measures an older server too.

Bounded: each game stops after ``--max-moves`` moves (or at its end), each level after
``--seconds``; the server is stopped at the end. Traffic goes only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing
import os
import random
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


def serve_options() -> str:
    """The ``tracklayer serve`` options of the server under test (an older server lacks the limits)."""
    return subprocess.run([sys.executable, "-m", "tracklayer.cli", "serve", "--help"], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "200"}).stdout


def start_server(db_url: str, port: int, log: Path, bot_delay: float = 0.0) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    extra = ["--games-per-minute", "0", "--bot-games", "0"] if "--games-per-minute" in serve_options() else []
    proc = subprocess.Popen([sys.executable, "-m", "tracklayer.cli", "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--database-url", db_url, "--bot-delay", str(bot_delay),
                             "--rate-limit", "0", *extra],
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


class Track:
    """One game's moves as its seats' clients see them (both seats' clients are in one process, so
    one clock): when each move was sent, and when the last seat got the state after it."""

    def __init__(self, seats: int, out: list[float]) -> None:
        self.seats = seats
        self.sent: dict[int, float] = {}
        self.arrived: dict[int, int] = {}
        self.out = out

    def arrive(self, first: int, upto: int, now: float) -> None:
        """A seat's client has the state after moves ``first`` .. ``upto - 1``."""
        for idx in range(first, upto):
            k = self.arrived[idx] = self.arrived.get(idx, 0) + 1
            if k == self.seats:
                del self.arrived[idx]
                sent = self.sent.pop(idx, None)
                if sent is not None:
                    self.out.append(now - sent)


async def seat_client(url: str, token: str, seed: int, max_moves: int, stop_at: float,
                      latencies: list[float], counter: list[int], think: float = 0.0,
                      track: Track | None = None) -> None:
    bot = make_bot("random", seed)
    rng = random.Random(seed)
    async with connect(url, max_size=2**22, open_timeout=30) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at: float | None = None
        have: int | None = None  # moves in the last state (None before the first)
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
                if track is not None:
                    if have is not None and msg["moves"] > have:
                        track.arrive(have, msg["moves"], time.perf_counter())
                    have = msg["moves"] if have is None else max(have, msg["moves"])
                if msg["over"] or msg["moves"] >= max_moves:
                    return
                legal = msg.get("legal")
                if legal and sent_at is None:
                    if think:  # a player looking at the board before moving: rng-drawn, mean ``think`` s
                        await asyncio.sleep(rng.expovariate(1 / think))
                    move = bot.choose(msg["view"], legal)
                    sent_at = time.perf_counter()
                    if track is not None:
                        track.sent[msg["moves"]] = sent_at
                    await ws.send(json.dumps({"type": "move", "move": move, "expect": msg["moves"]}))


async def play_games(ws_bases: list[str], games: list[dict], max_moves: int, stop_at: float, seed0: int,
                     think: float) -> tuple[list[float], int, list[float]]:
    latencies: list[float] = []
    everyone: list[float] = []
    counter = [0]
    tracks = [Track(len(g["seats"]), everyone) for g in games]
    n = len(ws_bases)
    tasks = [seat_client(f"{ws_bases[(g['k'] + j) % n]}/ws/{g['id']}", s["token"], seed0 + k * 7919 + j, max_moves,
                         stop_at, latencies, counter, think, tracks[k])
             for k, g in enumerate(games) for j, s in enumerate(g["seats"])]
    await asyncio.gather(*tasks, return_exceptions=False)
    return latencies, counter[0], everyone


def client_worker(args: tuple[list[str], list[dict], int, float, int, float]
                  ) -> tuple[list[float], int, float, float, float, list[float]]:
    """One load-client process: its share of the games; returns latencies, moves, its CPU seconds,
    the wall-clock times its play started and ended (process start-up is not play time) and the
    all-seats latencies."""
    ws_bases, games, max_moves, stop_at_wall, seed0, think = args
    gc.freeze()  # as the server does: the client's own GC pauses would count in the latencies it measures
    gc.set_threshold(20_000, 50, 100)
    cpu0 = time.process_time()
    began = time.time()
    stop_at = time.monotonic() + (stop_at_wall - began)
    try:  # the faster event loop where it is installed (uvicorn's server uses it too): less of the
        import uvloop  # shared CPU goes to the clients

        run = uvloop.run
    except ImportError:
        run = asyncio.run
    latencies, moves, everyone = run(play_games(ws_bases, games, max_moves, stop_at, seed0, think))
    return latencies, moves, time.process_time() - cpu0, began, time.time(), everyone


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process, from /proc (Linux); NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_level(bases: list[str], server_pids: list[int], n_games: int, max_moves: int, seconds: float, game: str,
              procs: int, think: float) -> dict[str, float]:
    created = []
    for i in range(n_games):  # created on each process in turn (each then holds its games' leases)
        with httpx.Client(base_url=bases[i % len(bases)], timeout=60) as client:
            r = client.post("/api/games", json={"game": game, "first_player": 0,
                                                "seats": [{"name": f"A{i}"}, {"name": f"B{i}"}]})
            r.raise_for_status()
            created.append({**r.json(), "k": i})
    ws_bases = [base.replace("http://", "ws://") for base in bases]
    shares = [created[k::procs] for k in range(procs) if created[k::procs]]
    cpu0 = sum(process_cpu(pid) for pid in server_pids)
    with multiprocessing.get_context("spawn").Pool(len(shares)) as pool:
        pool.map(abs, range(len(shares)))  # the workers are up (imports done) before the clock starts
        stop_wall = time.time() + seconds
        jobs = [(ws_bases, share, max_moves, stop_wall, k * 1_000_003, think) for k, share in enumerate(shares)]
        results = pool.map(client_worker, jobs)
    elapsed = max(r[4] for r in results) - min(r[3] for r in results)
    server_cpu = sum(process_cpu(pid) for pid in server_pids) - cpu0
    lat = sorted(x for r in results for x in r[0])
    everyone = sorted(x for r in results for x in r[5])
    moves = sum(r[1] for r in results)
    client_cpu = sum(r[2] for r in results)

    def pct(values: list[float], p: float) -> float:
        return values[min(len(values) - 1, int(p * len(values)))] * 1000 if values else float("nan")

    return {"games": n_games, "moves": moves, "seconds": elapsed, "moves_per_s": moves / elapsed,
            "p50_ms": pct(lat, 0.50), "p99_ms": pct(lat, 0.99),
            "mean_ms": statistics.fmean(lat) * 1000 if lat else float("nan"),
            "all_p50_ms": pct(everyone, 0.50), "all_p99_ms": pct(everyone, 0.99),
            "server_cpu_ms": server_cpu / max(moves, 1) * 1000, "client_cpu_ms": client_cpu / max(moves, 1) * 1000}


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] * 1000 if values else float("nan")


async def human_client(base: str, seconds: float, think: float, seed: int) -> tuple[list[float], list[float], int]:
    """One person at a hot-seat table (two human seats, so no bot of this game is involved) playing a random
    legal move every ``think`` seconds; returns the send -> ack and send -> next state latencies."""
    rng = random.Random(seed)
    acks: list[float] = []
    states: list[float] = []
    games = 0
    stop_at = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        while time.monotonic() < stop_at:
            r = await http.post("/api/games", json={"game": "ttr-europe", "first_player": 0, "hotseat": True,
                                                    "seats": [{"name": "Ann"}, {"name": "Bob"}]})
            r.raise_for_status()
            out = r.json()
            games += 1
            url = base.replace("http://", "ws://") + f"/ws/{out['id']}"
            async with connect(url, max_size=2**22, open_timeout=60) as ws:
                await ws.send(json.dumps({"type": "hello", "token": out["hotseat"]["token"]}))
                sent_at: float | None = None
                acked = False
                while time.monotonic() < stop_at:
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.05, stop_at - time.monotonic())))
                    except TimeoutError:
                        break
                    if msg.get("type") == "ack" and sent_at is not None:
                        acks.append(time.perf_counter() - sent_at)
                        acked = True
                    elif msg.get("type") == "error":
                        sent_at = None
                    elif msg.get("type") == "state":
                        if sent_at is not None and acked:
                            states.append(time.perf_counter() - sent_at)
                            sent_at = None
                        if msg["over"]:
                            break
                        if msg.get("legal") and sent_at is None:
                            await asyncio.sleep(rng.expovariate(1 / think) if think else 0)
                            sent_at, acked = time.perf_counter(), False
                            await ws.send(json.dumps({"type": "move", "move": rng.choice(msg["legal"]),
                                                      "expect": msg["moves"]}))
    return acks, states, games


async def lobby_client(base: str, seconds: float, every: float = 0.5) -> list[float]:
    """``GET /api/games`` every ``every`` seconds (one at a time); returns the latencies."""
    out: list[float] = []
    stop_at = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        while time.monotonic() < stop_at:
            t0 = time.perf_counter()
            (await http.get("/api/games")).raise_for_status()
            out.append(time.perf_counter() - t0)
            await asyncio.sleep(every)
    return out


async def bot_mode(base: str, args: argparse.Namespace, log: Path) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        ids = []
        for _ in range(args.bot_games):
            r = await http.post("/api/games", json={"game": "ttr-europe", "seats": [{"kind": "bot", "bot": args.bot}]
                                                     * args.bots})
            r.raise_for_status()
            ids.append(r.json()["id"])
        await asyncio.sleep(args.warmup)  # the bots are thinking by now

        async def bot_moves() -> int:
            listed = (await http.get("/api/games")).json()["games"]
            return sum(g["moves"] for g in listed if g["id"] in ids)

        before = await bot_moves()
        t0 = time.monotonic()
        (acks, states, games), lobby = await asyncio.gather(
            human_client(base, args.seconds, args.human_think, 7), lobby_client(base, args.seconds))
        elapsed = time.monotonic() - t0
        made = await bot_moves() - before
    print(f"{args.bot_games} bot-only games of {args.bots} {args.bot!r} bots (bot delay {args.bot_delay:g} s), "
          f"{elapsed:.0f} s, {os.cpu_count()} cores")
    print(f"human: {len(acks)} moves in {games} game(s); send->ack p50 {_pct(acks, .5):.1f} ms, "
          f"p99 {_pct(acks, .99):.1f} ms, max {_pct(acks, 1):.1f} ms; send->state p50 {_pct(states, .5):.1f} ms, "
          f"p99 {_pct(states, .99):.1f} ms")
    print(f"lobby list: {len(lobby)} requests; p50 {_pct(lobby, .5):.1f} ms, p99 {_pct(lobby, .99):.1f} ms, "
          f"max {_pct(lobby, 1):.1f} ms")
    fallbacks = log.read_text(errors="replace").count("a fallback move is played")
    print(f"bot games: {made} moves meanwhile ({made / elapsed:.1f} moves/s); fallback moves (no answer within "
          f"the time cap) over the whole run: {fallbacks}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default="10,100,500", help="concurrent games per level (comma-separated)")
    ap.add_argument("--max-moves", type=int, default=60, help="moves per game at most")
    ap.add_argument("--seconds", type=float, default=40.0, help="time limit per level")
    ap.add_argument("--game", default="ttr-new-york")
    ap.add_argument("--database-url", default=None, help="default: a fresh SQLite file in a temporary folder")
    ap.add_argument("--client-procs", type=int, default=1,
                    help="load-client processes (separate from the server's; they share its cores)")
    ap.add_argument("--think", type=float, default=0.0,
                    help="mean seconds a seat waits before moving (0: move at once, a throughput test)")
    ap.add_argument("--processes", default="1",
                    help="server processes, e.g. 1,2,4: each level against each count (more than 1: PostgreSQL)")
    ap.add_argument("--mode", choices=("throughput", "bots"), default="throughput",
                    help="throughput: the levels above; bots: bot-only games while one human plays")
    ap.add_argument("--bot-games", type=int, default=20, help="--mode bots: bot-only games")
    ap.add_argument("--bots", type=int, default=5, help="--mode bots: bot seats per game")
    ap.add_argument("--bot", default="mcts", help="--mode bots: which bot")
    ap.add_argument("--bot-delay", type=float, default=0.0,
                    help="--mode bots: the server's --bot-delay (0: the games reach their end games, where mcts "
                         "searches, within a minute)")
    ap.add_argument("--human-think", type=float, default=0.2, help="--mode bots: mean seconds between human moves")
    ap.add_argument("--warmup", type=float, default=10.0, help="--mode bots: seconds the bots play before measuring")
    args = ap.parse_args()
    if args.mode == "bots":
        with tempfile.TemporaryDirectory() as tmp:
            db_url = args.database_url or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
            port = free_port()
            proc = start_server(db_url, port, Path(tmp) / "server.log", args.bot_delay)
            try:
                asyncio.run(bot_mode(f"http://127.0.0.1:{port}", args, Path(tmp) / "server.log"))
            finally:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        return
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    counts = [int(x) for x in args.processes.split(",") if x.strip()]
    if max(counts) > 1 and not (args.database_url or "").startswith(("postgresql://", "postgres://")):
        raise SystemExit("--processes above 1 needs --database-url postgresql://... (SQLite serves one process)")
    table: dict[tuple[int, int], dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db_url = args.database_url or f"sqlite:///{Path(tmp) / 'load.sqlite3'}"
        print(f"database {db_url.split('://')[0]}, game {args.game}, <= {args.max_moves} moves/game, "
              f"<= {args.seconds:.0f} s/level, {args.client_procs} client process(es), think {args.think:g} s, "
              f"{os.cpu_count()} cores")
        for count in counts:
            ports = [free_port() for _ in range(count)]
            procs: list[subprocess.Popen[bytes]] = []
            try:
                for k, port in enumerate(ports):
                    procs.append(start_server(db_url, port, Path(tmp) / f"server-{count}-{k}.log"))
                print(f"\n{count} server process(es) on 127.0.0.1:{','.join(map(str, ports))}")
                print(f"{'games':>6} {'moves':>7} {'seconds':>8} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
                      f"{'all p50':>8} {'all p99':>8} {'server CPU ms/move':>19} {'client CPU ms/move':>19}")
                for n in levels:
                    r = run_level([f"http://127.0.0.1:{port}" for port in ports], [p.pid for p in procs], n,
                                  args.max_moves, args.seconds, args.game, args.client_procs, args.think)
                    table[count, n] = r
                    print(f"{r['games']:>6} {r['moves']:>7} {r['seconds']:>8.1f} {r['moves_per_s']:>8.1f} "
                          f"{r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f} {r['all_p50_ms']:>8.1f} {r['all_p99_ms']:>8.1f} "
                          f"{r['server_cpu_ms']:>19.2f} {r['client_cpu_ms']:>19.2f}", flush=True)
            finally:
                stop(procs)
    if len(counts) > 1:  # side by side: moves/s and the all-seats latency p50/p99 (ms) per process count
        print("\nmoves/s, p50/p99 ms until every seat has the new state")
        print(f"{'games':>6} " + " ".join(f"{f'{c} process(es)':>26}" for c in counts))
        for n in levels:
            cells = [table[c, n] for c in counts]
            print(f"{n:>6} " + " ".join(f"{r['moves_per_s']:>8.0f}/s {r['all_p50_ms']:>7.1f} {r['all_p99_ms']:>7.1f}"
                                        for r in cells))


if __name__ == "__main__":
    main()
