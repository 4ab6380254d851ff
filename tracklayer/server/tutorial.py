"""Tutorial games ("Learn to play"): a real game against a bot, on a deck chosen for its lesson.

The lesson's situations (for Ticket to Ride a face-up locomotive on the first turns, a claim soon
after, tunnels and stations within reach; for Trans the first start marker and rails) come from the
game's seed, so each lesson has a fixed seed, the player moves first and the bot plays with a fixed
seed too: the same moves replay the same game (the engine and the registry bots are deterministic,
docs/engine.md and tracklayer/server/botpool.py). The guide on the game page
(tracklayer/web/static/tutorial.js) reads the seat's ``lesson`` to show its steps.

A tutorial game is unrated: its person's seat is never linked to an account (the creator's, or a
logged-in player's who opens the link), so it has one rated entrant at most (the bot).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracklayer.server.creation import bad, new_record
from tracklayer.server.db import GameRecord

if TYPE_CHECKING:
    from tracklayer import Game


@dataclass(frozen=True)
class Lesson:
    seed: int  # the deck: chosen so that the lesson's situations come up on the first turns
    bot: str  # a registry bot that chooses as a function of (seed, view)
    bot_seed: int


LESSONS: dict[str, Lesson] = {
    # seed 1: a locomotive face up at the start and still there at the player's second turn, a tunnel and
    # a claim within reach of the first hand (searched with a scripted learner against the bot)
    "ttr-europe": Lesson(seed=1, bot="greedy", bot_seed=1),
    "ttr-new-york": Lesson(seed=0, bot="greedy", bot_seed=1),  # a taxi face up at the start
    "trans-europa": Lesson(seed=1, bot="greedy", bot_seed=1),
    "trans-america": Lesson(seed=1, bot="greedy", bot_seed=1),
}


def lesson_of(seat: dict[str, Any]) -> str | None:
    """The lesson a seat plays (the game's name), or None for a seat of an ordinary game."""
    lesson = seat.get("lesson")
    return lesson if isinstance(lesson, str) else None


def tutorial_record(game: str, player: object = None, bot_name: object = None) -> tuple[GameRecord, Game]:
    """A private two-seat game of ``game``'s lesson: the person (seat 0) moves first against the bot."""
    lesson = LESSONS.get(game)
    if lesson is None:
        raise bad(f"no tutorial for {game!r}; tutorials: {', '.join(LESSONS)}")
    body = {"game": game, "private": True, "first_player": 0,
            "seats": [{"kind": "human", "name": player if isinstance(player, str) and player.strip() else "Player"},
                      {"kind": "bot", "bot": lesson.bot,
                       "name": bot_name if isinstance(bot_name, str) and bot_name.strip() else "Tutor"}]}
    rec, game_obj = new_record(body, seed=lesson.seed)
    rec.seats[0]["lesson"] = game
    rec.seats[1]["seed"] = lesson.bot_seed
    return rec, game_obj
