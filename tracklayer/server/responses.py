"""The answers of the JSON API, as pydantic models: /openapi.json and /docs describe what each route
returns, and FastAPI checks each answer against its model before sending it.

The models describe the wire format as the handlers build it and must keep it byte for byte: a field
the model lacks would be dropped, so every key a handler sends is a field here, in the order the
handler writes it. A key that is only sometimes present is an optional field, and its route is
declared with ``response_model_exclude_unset=True`` so that an absent key stays absent (a ``null``
the handler sends stays ``null``). Payloads whose keys depend on the game family (a seat's view of
the game, a game record, a board's geometry, a score report) are ``dict[str, Any]`` with a
description rather than a schema that would drop keys. Numbers that may arrive as an integer or a
float are ``Number``, so an integer is not re-encoded as ``1.0``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, RootModel, WithJsonSchema

# a number sent as the handler has it: an int stays an int, a float a float (a plain ``float`` field
# would turn 3 into 3.0); the schema says "number"
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]


# ---------------------------------------------------------------------------------------- shared
class Link(BaseModel):
    token: str = Field(description="the secret that opens this view of the game (send it as a bearer token)")
    link: str = Field(description="the game page's address with the token after '#' (never sent to the server)")


class SeatLink(BaseModel):
    seat: int = Field(description="the seat's number, from 0")
    name: str = Field(description="the player's name")
    kind: str = Field(description="'human', 'bot' or 'open' (a seat still to be taken)")
    token: str | None = Field(None, description="the seat's token: human and open seats only")
    link: str | None = Field(None, description="the seat's link: human and open seats only")
    held: bool | None = Field(None, description="whether an account holds the seat (in the creator's links only)")


class Ok(BaseModel):
    ok: bool = Field(description="always true: the action was done")


class Presence(BaseModel):
    online: bool = Field(description="signed in and seen in the last minutes")
    last_seen: Number | None = Field(description="when the account was last seen (Unix seconds); null: never")
    in_game: bool | None = Field(None, description="true while online in a game that has not ended")
    game: str | None = Field(None, description="that game's name, when it is public")
    watch: str | None = Field(None, description="the spectator link of that game, when it is public")


class FamilyRating(BaseModel):
    rating: Number = Field(description="the ladder's number: mu - 3 sigma")
    mu: Number = Field(description="the skill estimate")
    sigma: Number = Field(description="its uncertainty")
    games: int = Field(description="rated games played in this family")


# ---------------------------------------------------------------------------------------- games
class Choice(BaseModel):
    name: str = Field(description="the value to send")
    title: str = Field(description="the English label")


class GameOption(BaseModel):
    name: str = Field(description="the option's key in 'options' of a new game")
    title: str = Field(description="the English label")
    choices: list[Choice] = Field(description="its values")


class BotLevel(BaseModel):
    level: str = Field(description="the lobby's difficulty name")
    bot: str = Field(description="the bot that plays it")


class CatalogGame(BaseModel):
    name: str = Field(description="the game's name, as sent in 'game'")
    title: str = Field(description="the board's English title")
    family: str = Field(description="'ttr' or 'trans': the rules and the rating ladder it belongs to")
    min_players: int = Field(description="the fewest seats of a game")
    max_players: int = Field(description="the most seats of a game")
    variants: list[Choice] = Field(description="the rule variants")
    default_variant: str = Field(description="the variant of a game that names none")
    options: list[GameOption] = Field(description="further choices of a new game")
    bot_levels: list[BotLevel] = Field(description="the lobby's bot levels, weakest first")
    default_level: str | None = Field(description="the level the lobby preselects")
    bots: list[str] = Field(description="the bots the lobby's advanced list offers for this family")


class Catalog(BaseModel):
    games: list[CatalogGame] = Field(description="the games this server offers")
    bots: list[str] = Field(description="every bot a seat may name")


class BoardData(RootModel[dict[str, Any]]):
    """A board's geometry and labels for drawing it (keys depend on the game family; public map data)."""


class BoardTickets(RootModel[dict[str, Any]]):
    """A board's tickets and decks, for the score page (keys depend on the game family)."""


class ClockSummary(BaseModel):
    preset: str | None = Field(description="the clock preset's name; null: custom")
    turn_seconds: Number | None = Field(description="seconds a turn")
    bank_seconds: Number | None = Field(description="seconds of each player's time bank")


class SeatName(BaseModel):
    name: str = Field(description="the player's name")
    kind: str = Field(description="'human', 'bot' or 'open'")


class ListedGame(BaseModel):
    id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    variant: str | None = Field(description="its variant")
    status: str = Field(description="'waiting' (open seats), 'open', 'running' or 'over'")
    moves: int = Field(description="moves played")
    created_at: Number = Field(description="Unix seconds")
    updated_at: Number = Field(description="Unix seconds of the last move or change")
    seats: list[SeatName] = Field(description="the players")
    watch: str | None = Field(None, description="the spectator link, for a public game")
    clock: ClockSummary | None = Field(description="its clock; null: none")


class GameList(BaseModel):
    games: list[ListedGame] = Field(description="newest first; private games are not listed")


class CreatorLink(BaseModel):
    token: str = Field(description="the creator token: the game's links, invitations, seat hand-over")
    link: str = Field(description="the 'My games' page holding that token")


class CreatedGame(BaseModel):
    id: str = Field(description="the new game's id")
    game: str = Field(description="the game's name")
    variant: str | None = Field(description="its variant")
    seats: list[SeatLink] = Field(description="every seat, with the links of the human ones")
    spectator: Link = Field(description="the spectator link")
    hotseat: Link | None = Field(None, description="the table link of a hot-seat game (every human seat on one screen)")
    private: bool = Field(description="a private game is not listed in the lobby")
    creator: CreatorLink | None = Field(None, description="the creator's token and link")
    clock: dict[str, Any] | None = Field(description="the clock's settings; null: none")


class CreatedTutorial(BaseModel):
    id: str = Field(description="the tutorial game's id")
    game: str = Field(description="the game's name")
    token: str = Field(description="the player's seat token")
    link: str = Field(description="the player's link")


class SeatInfo(BaseModel):
    seat: int = Field(description="the seat's number, from 0")
    name: str = Field(description="the player's name")
    kind: str = Field(description="'human', 'bot' or 'open'")
    bot: str | None = Field(None, description="the bot that plays a bot seat")
    lesson: Any = Field(None, description="a tutorial seat's lesson")
    online: bool = Field(description="a bot, or a human connected now")
    standin: bool | None = Field(None, description="true while a stand-in bot plays the seat")
    resigned: bool | None = Field(None, description="true once the player resigned")
    handover_in: Number | None = Field(None, description="seconds until the others may hand the seat to a bot (0: now)")


class GameSummary(BaseModel):
    id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    variant: str | None = Field(description="its variant")
    status: str = Field(description="'waiting', 'open', 'running' or 'over'")
    moves: int = Field(description="moves played")
    seats: list[SeatInfo] = Field(description="the seats")
    current_player: int | None = Field(description="the seat to move; null once the game is over")


class StateMessage(BaseModel):
    """A seat's or spectator's view of a game: the websocket's ``state`` message (docs/protocol.md)."""

    type: str = Field(description="always 'state'")
    game_id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    role: str = Field(description="'seat', 'table' (hot-seat) or 'spectator'")
    seat: int | None = Field(description="the seat whose eyes the view has; null: a spectator's")
    controls: list[int] = Field(description="the seats this token plays")
    moves: int = Field(description="moves played")
    over: bool = Field(description="whether the game is over")
    seats: list[SeatInfo] = Field(description="the seats")
    view: dict[str, Any] = Field(description="the game as this seat sees it (keys depend on the game family)")
    log_from: int = Field(description="the index of the first entry of view.log")
    legal: list[str] | None = Field(None, description="the legal moves, when this token is to move")
    broken: str | None = Field(None, description="why the game cannot go on, if it cannot")
    can_undo: bool | None = Field(None, description="true when this token may take back its last move")
    waiting: bool | None = Field(None, description="true while seats are still open")
    clock: dict[str, Any] | None = Field(None, description="the clock's state, for a game with a clock")


# ---------------------------------------------------------------------------------------- lobby
class GameLinks(BaseModel):
    id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    status: str = Field(description="'waiting', 'open', 'running' or 'over'")
    seats: list[SeatLink] = Field(description="every seat, with the links of the human and open ones")
    spectator: Link = Field(description="the spectator link")
    hotseat: Link | None = Field(None, description="the table link of a hot-seat game")


class Joined(BaseModel):
    id: str = Field(description="the game's id")
    seat: int = Field(description="the seat taken")
    token: str = Field(description="its token")
    link: str = Field(description="its link")


class QuickPlayed(Joined):
    new: bool = Field(description="true: a new waiting game; false: a seat in a waiting one")


class StatusItem(BaseModel):
    game: str | None = Field(None, description="the game's id (absent for a malformed item)")
    title: str | None = Field(None, description="the game's name")
    variant: str | None = Field(None, description="its variant")
    status: str | None = Field(None, description="'waiting', 'open', 'running' or 'over'")
    role: str | None = Field(None, description="what the token grants: 'seat', 'table', 'spectator' or 'creator'")
    seat: int | None = Field(None, description="the seat, for a seat token")
    controls: list[int] | None = Field(None, description="the seats the token plays")
    moves: int | None = Field(None, description="moves played")
    players: list[SeatName] | None = Field(None, description="the players")
    turn: int | None = Field(None, description="the seat to move; null while waiting or over")
    your_turn: bool | None = Field(None, description="whether the token plays the seat to move")
    updated_at: Number | None = Field(None, description="Unix seconds of the last change")
    error: str | None = Field(None, description="'bad-item', 'no-game' or 'unknown-token' instead of the rest")


class StatusBatch(BaseModel):
    items: list[StatusItem] = Field(description="one per item asked, in order")


# ---------------------------------------------------------------------------------------- seats
class SeatChanged(BaseModel):
    ok: bool = Field(description="always true")
    seat: int = Field(description="the seat")
    standin: bool | None = Field(None, description="true while a stand-in bot plays it")
    resigned: bool | None = Field(None, description="true once its player resigned")


# ---------------------------------------------------------------------------------------- replays
class GameRecordDoc(RootModel[dict[str, Any]]):
    """A finished game's full record: seed, options and moves (``tracklayer replay`` reads it)."""


class ReplaySeat(BaseModel):
    seat: int = Field(description="the seat's number")
    name: str = Field(description="the player's name")
    kind: str = Field(description="'human' or 'bot'")


class ReplayPosition(BaseModel):
    game_id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    variant: str | None = Field(description="its variant")
    move: int = Field(description="the moves played in this position")
    moves: int = Field(description="the moves of the whole game")
    seat: int | None = Field(description="whose eyes the view has; null: a spectator's")
    seats: list[ReplaySeat] = Field(description="the seats")
    last: str | None = Field(description="the move that led here; null at the start")
    over: bool = Field(description="whether the game is over in this position")
    view: dict[str, Any] = Field(description="the game as that seat sees it (keys depend on the game family)")


# ---------------------------------------------------------------------------------------- score
class ScoreReport(RootModel[dict[str, Any]]):
    """The scoring of a score file: ``tracklayer score --json``'s answer (docs/score-files.md)."""


# ---------------------------------------------------------------------------------------- ratings
class LadderEntry(BaseModel):
    name: str = Field(description="the player's or bot's name")
    kind: str = Field(description="'human' or 'bot'")
    identity: str = Field(description="the rated identity ('acct:N' for an account)")
    mu: Number = Field(description="the skill estimate")
    sigma: Number = Field(description="its uncertainty")
    rating: Number = Field(description="the displayed rating")
    games: int = Field(description="rated games played")
    account: bool | None = Field(None, description="true for a bot account (an outside program)")
    owner: str | None = Field(None, description="the person who owns that bot account")
    rank: int = Field(description="the place on this ladder, from 1")
    level: str | None = Field(None, description="the lobby's level played by this bot of the server's own")


class Leaderboard(BaseModel):
    family: str = Field(description="the game family: 'ttr' or 'trans'")
    players: list[LadderEntry] = Field(description="best first")


# ---------------------------------------------------------------------------------------- accounts
class Session(BaseModel):
    username: str = Field(description="the account's name")
    csrf: str = Field(description="the CSRF token to send as X-CSRF-Token with every change")


class AccountName(BaseModel):
    username: str = Field(description="the account's name")


class Me(BaseModel):
    account: AccountName | None = Field(description="the signed-in account; null: a guest")
    csrf: str | None = Field(None, description="the session's CSRF token (signed in only)")


class RatingPoint(BaseModel):
    game_id: str = Field(description="the rated game")
    family: str = Field(description="its family")
    rank: int | None = Field(description="the place the player finished")
    players: int | None = Field(description="the number of players")
    rating: Number = Field(description="the rating after that game")
    at: Number = Field(description="Unix seconds")


class PlayedGame(BaseModel):
    id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    variant: str | None = Field(description="its variant")
    status: str = Field(description="'waiting', 'open', 'running' or 'over'")
    seat: int = Field(description="the account's seat")
    rank: int | None = Field(description="the place it finished; null while running")
    players: int | None = Field(description="the number of players")
    updated_at: Number = Field(description="Unix seconds")
    rated: bool = Field(description="whether the game changed the rating")
    rating: Number | None = Field(None, description="the rating after it, for a rated game")
    stats: dict[str, Any] | None = Field(None, description="the account's statistics of a finished game")


class Relation(BaseModel):
    self_: bool | None = Field(None, alias="self", description="true on one's own profile (and nothing else)")
    following: bool | None = Field(None, description="the visitor follows this player")
    follows_you: bool | None = Field(None, description="this player follows the visitor")
    friend: bool | None = Field(None, description="both")


class Profile(BaseModel):
    username: str = Field(description="the account's name")
    joined: Number = Field(description="Unix seconds")
    bot: bool | None = Field(None, description="true for a bot account")
    owner: str | None = Field(None, description="the person who owns a bot account")
    description: str | None = Field(None, description="a bot account's description")
    ratings: dict[str, FamilyRating] = Field(description="per game family")
    history: list[RatingPoint] = Field(description="the rating after each rated game, oldest first")
    games: list[PlayedGame] = Field(description="the account's games, newest first (at most 200)")
    stats: dict[str, dict[str, Any]] = Field(description="per family, the statistics of its finished games added up")
    presence: Presence | None = Field(None, description="a person's online status")
    relation: Relation | None = Field(None, description="for a signed-in visitor: who follows whom")


# ---------------------------------------------------------------------------------------- bots
class CreatedBot(BaseModel):
    name: str = Field(description="the bot account's name")
    owner: str = Field(description="the person who owns it")
    profile: str = Field(description="its profile page")


class BotAccount(BaseModel):
    name: str = Field(description="the bot account's name")
    created_at: Number = Field(description="Unix seconds")
    description: str | None = Field(description="its description")


class BotList(BaseModel):
    bots: list[BotAccount] = Field(description="the signed-in person's bot accounts, oldest first")


class DeletedBot(Ok):
    name: str = Field(description="the deleted bot account")


class NewApiToken(BaseModel):
    id: str = Field(description="the token's id (to revoke it)")
    label: str = Field(description="its label")
    created_at: Number = Field(description="Unix seconds")
    token: str = Field(description="the secret, shown this once only (it is not stored)")


class ApiToken(BaseModel):
    id: str = Field(description="the token's id")
    label: str = Field(description="its label")
    created_at: Number = Field(description="Unix seconds")
    last_used_at: Number | None = Field(description="Unix seconds; null: never used")
    revoked: bool = Field(description="whether it was revoked")


class TokenList(BaseModel):
    tokens: list[ApiToken] = Field(description="the bot account's tokens, without their secrets")


class RevokedToken(Ok):
    id: str = Field(description="the revoked token's id")


class BotWhoami(BaseModel):
    username: str = Field(description="the bot account the token acts for")
    owner: str | None = Field(description="the person who owns it")
    ratings: dict[str, FamilyRating] = Field(description="per game family")


# ---------------------------------------------------------------------------------------- friends
class Following(BaseModel):
    username: str = Field(description="the player")
    following: bool = Field(description="the signed-in account follows them")
    follows_you: bool = Field(description="they follow the signed-in account")
    friend: bool = Field(description="both")


class Followed(BaseModel):
    username: str = Field(description="the player")
    friend: bool = Field(description="they follow back")
    online: bool = Field(description="signed in and seen in the last minutes")
    last_seen: Number | None = Field(description="when the account was last seen (Unix seconds); null: never")
    in_game: bool | None = Field(None, description="true while online in a game that has not ended")
    game: str | None = Field(None, description="that game's name, when it is public")
    watch: str | None = Field(None, description="the spectator link of that game, when it is public")


class Follower(BaseModel):
    username: str = Field(description="the player")
    friend: bool = Field(description="the signed-in account follows them back")
    invite_mail: bool = Field(description="an invitation can also go to them by e-mail (a verified address, invite "
                                          "mail on, and this server sends mail); the address is never shown")


class Invitation(BaseModel):
    id: str = Field(description="the invitation's id")
    from_: str = Field(alias="from", description="the inviting account")
    game_id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    variant: str | None = Field(description="its variant")
    seat: int = Field(description="the seat offered")
    seat_name: str = Field(description="that seat's player name")
    players: list[str] = Field(description="every seat's player name")
    at: Number = Field(description="Unix seconds")


class FriendsList(BaseModel):
    following: list[Followed] = Field(description="who the account follows, online ones first")
    followers: list[Follower] = Field(description="who follows the account (those it may invite)")
    invitations: list[Invitation] = Field(description="invitations to seats still free, newest first")


class SentInvitation(BaseModel):
    id: str = Field(description="the invitation's id")
    username: str = Field(description="the invited account")
    seat: int = Field(description="the seat offered")
    seat_name: str | None = Field(description="that seat's player name")
    state: str = Field(description="'waiting', 'accepted' or 'declined'")
    at: Number = Field(description="Unix seconds it was sent")


class SentInvitations(BaseModel):
    invitations: list[SentInvitation] = Field(description="the game's invitations, oldest first, with their state")


class Invited(BaseModel):
    id: str = Field(description="the invitation's id")
    username: str = Field(description="the invited account")
    seat: int = Field(description="the seat offered")
    mailed: bool = Field(description="the seat's link was also mailed to them (asked with 'mail')")
    mail_refused: str | None = Field(None, description="why it was not mailed, when 'mail' was asked")


class Accepted(BaseModel):
    id: str = Field(description="the game's id")
    game: str = Field(description="the game's name")
    seat: int = Field(description="the seat taken")
    name: str = Field(description="that seat's player name")
    token: str = Field(description="its token")
    link: str = Field(description="its link")


# ---------------------------------------------------------------------------------------- mail
class MailEnabled(BaseModel):
    enabled: bool = Field(description="whether this server sends e-mail")


class MailState(MailEnabled):
    email: str | None = Field(description="the account's address as typed; null: none")
    verified: bool = Field(description="whether the address is verified")
    pending: bool = Field(description="a verification link is on its way")
    turn_mail: bool = Field(description="mail when it is the account's turn")
    invite_mail: bool = Field(description="other players may mail invitations to the account")
    lang: str = Field(description="the mails' language")


class MailSaved(MailState):
    sent: bool = Field(description="whether a verification link was mailed now")


class MailedInvite(Ok):
    seat: int = Field(description="the seat whose link was mailed")
