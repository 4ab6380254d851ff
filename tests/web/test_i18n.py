"""Languages of the web client: the message catalogs agree with English, the code shows no untranslated
text, the bot levels come from the server's catalog, and a browser in German or Italian sees its language."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.server.helpers import Server
from tracklayer.server.catalog import BOT_LEVELS, FAMILY_BOTS, catalog

STATIC = Path(__file__).resolve().parents[2] / "tracklayer" / "web" / "static"
I18N = STATIC / "i18n"
LANGS = ["en", "de", "it", "fr", "nl"]


def load(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def _closing(text: str, i: int) -> int:
    depth = 0
    for j in range(i, len(text)):
        depth += text[j] == "{"
        depth -= text[j] == "}"
        if depth == 0:
            return j
    return -1


def arguments(message: str) -> set[str]:
    """Names of a message's placeholders: {name} and {name, plural, ...}, and those inside plural forms."""
    names: set[str] = set()
    i = 0
    while (i := message.find("{", i)) >= 0:
        end = _closing(message, i)
        if end < 0:
            return names | {"<unbalanced>"}
        inner = message[i + 1:end]
        m = re.match(r"\s*(\w+)\s*,\s*plural\s*,(.*)$", inner, re.S)
        if m:
            names.add(m.group(1))
            body, k = m.group(2), 0
            while (k := body.find("{", k)) >= 0:
                e = _closing(body, k)
                names |= arguments(body[k + 1:e])
                k = e + 1
        else:
            names.add(inner.strip())
        i = end + 1
    return names


def plural_ok(message: str) -> bool:
    """Balanced braces, and every plural has an 'other' form."""
    depth = 0
    for ch in message:
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            return False
    if depth:
        return False
    for m in re.finditer(r"\{\s*\w+\s*,\s*plural\s*,", message):
        rest = message[m.end():]
        if not re.match(r"(?:\s*(?:=\d+|zero|one|two|few|many|other)\s*\{)", rest) or "other {" not in rest:
            return False
    return True


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_catalog_has_the_english_keys_and_placeholders(lang: str) -> None:
    en, other = load("en"), load(lang)
    assert sorted(set(en) - set(other)) == [], f"{lang}.json lacks keys"
    assert sorted(set(other) - set(en)) == [], f"{lang}.json has keys English does not have"
    wrong = {k: (sorted(arguments(en[k])), sorted(arguments(v))) for k, v in other.items()
             if arguments(v) != arguments(en[k])}
    assert not wrong, f"{lang}.json: placeholders differ from English: {wrong}"
    bad = [k for k, v in other.items() if not plural_ok(v)]
    assert not bad, f"{lang}.json: unbalanced braces or a plural without 'other': {bad}"
    def words(v: str) -> set[str]:
        return set(re.findall(r"[A-Za-z]{3,}", v)) - {"count", "plural", "one", "other"} - arguments(v)

    same = [k for k, v in other.items() if v == en[k] and len(words(v)) >= 3 and not k.startswith("game.")]
    assert not same, f"{lang}.json: long messages left in English: {same}"


def test_english_catalog_is_well_formed() -> None:
    en = load("en")
    assert [k for k, v in en.items() if not plural_ok(v)] == []
    assert all(isinstance(v, str) and v for v in en.values())


def js_sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js"))}


def test_every_key_the_code_names_is_in_english() -> None:
    en = load("en")
    used: set[str] = set()
    for text in js_sources().values():
        used |= set(re.findall(r"\bt\(\s*\"([\w.\- ]+)\"", text))
        for a, b in re.findall(r"\bt\(\s*\w+\s*\?\s*\"([\w.\-]+)\"\s*:\s*\"([\w.\-]+)\"", text):
            used |= {a, b}
    for html in STATIC.glob("*.html"):
        text = html.read_text(encoding="utf-8")
        used |= set(re.findall(r'data-i18n="([\w.\-]+)"', text))
        for attr in re.findall(r'data-i18n-attr="([^"]+)"', text):
            used |= {pair.split(":")[1] for pair in attr.split(",")}
    assert used, "no t(...) calls found"
    assert sorted(used - set(en)) == []


def test_dynamic_keys_cover_the_data() -> None:
    """Keys built from data: levels and bots of each family, special cards, card colours, tie-breaks, games."""
    en = load("en")
    need = set()
    for fam, levels in BOT_LEVELS.items():
        need |= {f"level.{lv}" for lv, _ in levels} | {f"level.{lv}.{fam}" for lv, _ in levels}
        need |= {f"bot.{b}.{fam}" for b in FAMILY_BOTS[fam]}
    cards = json.loads((STATIC.parents[1] / "maps" / "data" / "trans-special-cards.json").read_text(encoding="utf-8"))
    for card in cards["cards"]:
        need |= {f"special.{card['id']}.title", f"special.{card['id']}.text"}
        assert en[f"special.{card['id']}.title"] == card["title"] and en[f"special.{card['id']}.text"] == card["text"]
    from tracklayer.server.catalog import board_data

    for game in catalog()["games"]:
        need |= {f"game.{game['name']}", f"game_short.{game['name']}"}
        b = board_data(game["name"])
        need |= {f"color.{c}" for c in b["colors"]}
        if b["family"] == "ttr":
            cards_ = [*b["colors"], b["loco"]]
            need |= {f"cards.{c}" for c in cards_} | {f"card_short.{c}" for c in cards_}
            need |= {f"stat.{b['piece']}"}
        for o in game["options"]:
            need |= {f"option.{o['name']}"} | {f"option.{o['name']}.{c['name']}" for c in o["choices"]}
    need |= {f"tiebreak.{x}" for x in ("points", "completed tickets", "fewest stations built", "European Express",
                                        "longest path", "shared", "prestige, ties share")}
    need |= {f"err.{c}" for c in ("auth", "no-game", "illegal", "stale", "turn", "conflict", "over", "bad-move",
                                   "rate", "size", "bad-json", "bad-type", "storage", "broken")}
    assert sorted(need - set(en)) == []


# Text a person reads: a capitalised word followed by more words, or a sentence ending in . ! ? … :
SENTENCE = re.compile(r"^[A-Z][a-z]+[ ,:][^<>{}]*[a-z]|\s\S*[a-z]{2,}[.!?…]$")
ATTR_LITERAL = re.compile(r"""(?:\btitle|"aria-label"|"aria-description"|placeholder|\balt|\btext)\s*:\s*"""
                          r"""(["'`])([^"'`]*[A-Za-z]{2}[^"'`]*)\1""")
ASSIGN_LITERAL = re.compile(r"""\.(?:textContent|innerHTML|innerText)\s*=\s*(["'`])([^"'`]*[A-Za-z]{2}[^"'`]*)\1""")
STRING = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")
ALLOWED = {"tracklayer", "tracklayer ", "Bearer"}


def strip_templates(text: str) -> str:
    """A template literal without its ${...} parts (nested braces included)."""
    out, i = "", 0
    while i < len(text):
        if text.startswith("${", i):
            end = _closing(text, i + 1)
            i = end + 1 if end > 0 else len(text)
            continue
        out += text[i]
        i += 1
    return out


def strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return "\n".join(re.sub(r"(^|\s)//.*$", "", line) for line in src.splitlines())


def test_no_user_facing_literals_in_the_js() -> None:
    """Text shown to people goes through t(): no literal sentences, labels or titles in the code."""
    found = []
    for name, src in js_sources().items():
        if name == "i18n.js":  # the module itself: language names are shown in their own language
            continue
        code = strip_comments(src)
        for m in ATTR_LITERAL.finditer(code):
            if m.group(2) not in ALLOWED and re.search(r"[A-Za-z]{2}", strip_templates(m.group(2))):
                found.append((name, m.group(0)))
        for m in ASSIGN_LITERAL.finditer(code):
            found.append((name, m.group(0)))
        for m in STRING.finditer(code):
            text = m.group(2)
            if m.group(1) == "`":  # a template: judge its literal parts
                text = strip_templates(text)
            if SENTENCE.search(text) and text not in ALLOWED and not text.startswith(("/", "#", ".")):
                found.append((name, m.group(0)))
    assert not found, f"literal text in the JS (use t() and the catalogs): {found}"


class _Texts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.bare: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("meta", "link", "br", "input", "img"):
            self.stack.append((tag, any(k == "data-i18n" for k, _ in attrs)))

    def handle_endtag(self, tag: str) -> None:
        if self.stack and tag != "br":
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if data.strip() and not (self.stack and (self.stack[-1][1] or self.stack[-1][0] in ("script", "style"))):
            self.bare.append(data.strip())


@pytest.mark.parametrize("page", ["lobby.html", "game.html", "score.html", "my.html", "rules.html"])
def test_html_text_is_marked_for_translation(page: str) -> None:
    parser = _Texts()
    parser.feed((STATIC / page).read_text(encoding="utf-8"))
    assert parser.bare == []
    text = (STATIC / page).read_text(encoding="utf-8")
    for attr in re.findall(r'aria-label="[^"]*"', text):  # every aria-label is translated too
        assert re.search(re.escape(attr) + r'[^>]*data-i18n-attr="[^"]*aria-label:', text), attr


def test_bot_levels_come_from_the_catalog() -> None:
    """Each game offers levels of its own family's bots only; the default level is a real opponent."""
    from tracklayer.bots import bot_names

    games = catalog()["games"]
    assert games
    for g in games:
        levels = g["bot_levels"]
        assert [x["level"] for x in levels] == [lv for lv, _ in BOT_LEVELS[g["family"]]]
        assert all(x["bot"] in g["bots"] for x in levels)
        assert len({x["bot"] for x in levels}) == len(levels), "two levels play the same bot"
        default = next(x for x in levels if x["level"] == g["default_level"])
        assert default["bot"] != "random"
        assert set(g["bots"]) <= set(bot_names())
        other = "trans" if g["family"] == "ttr" else "ttr"
        assert not set(g["bots"]) & (set(FAMILY_BOTS[other]) - {"random"})


# ---------------------------------------------------------------- in the browser
def new_page(browser: Any, locale: str, width: int = 1366, height: int = 768) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def test_lobby_and_game_in_german_and_italian(web_server: Server, browser: Any, shots: Path) -> None:
    page = new_page(browser, "de-DE")
    try:
        page.goto(web_server.base + "/")
        page.wait_for_selector(".tile")
        assert page.get_attribute("html", "lang") == "de"
        assert page.inner_text("h1") == "Alles einsteigen!"
        assert page.inner_text("#create") == "Partie erstellen"
        assert "Zug um Zug Europa" in page.inner_text("#tiles")
        assert page.input_value("#lang") == "de"
        # the bot seats default to a level, explained in a line under the seat
        levels = page.locator(".botkind").first
        assert levels.input_value() == "level:medium"
        assert page.locator(".botkind >> nth=0 >> option:checked").inner_text() == "Mittel"
        assert "Mittel:" in page.locator("[data-seat-desc]").first.inner_text()
        ttr_bots = page.locator(".botkind >> nth=0 >> option").evaluate_all("os => os.map(o => o.value)")
        assert "bot:planner" in ttr_bots and "bot:steiner" not in ttr_bots and "bot:lookahead" not in ttr_bots
        page.click('.tile[data-game="trans-europa"]')
        trans_bots = page.locator(".botkind >> nth=0 >> option").evaluate_all("os => os.map(o => o.value)")
        assert trans_bots == ["level:easy", "level:medium", "level:expert",
                              "bot:random", "bot:steiner", "bot:lookahead"]
        page.select_option(".botkind >> nth=0", "level:expert")
        assert page.locator("[data-seat-desc]").first.inner_text().startswith("Experte:")
        page.click('.tile[data-game="ttr-europe"]')
        page.select_option(".botkind >> nth=1", "level:hard")
        page.fill(".seat input >> nth=0", "Anna")
        with page.expect_request(lambda r: r.url.endswith("/api/games") and r.method == "POST") as req:
            page.click("#create")
        sent = req.value.post_data_json
        # seat 2 keeps the level chosen on Trans (Experte: mcts here), seat 3 is Schwer (planner)
        assert [s.get("bot") for s in sent["seats"]] == [None, "mcts", "planner"]
        page.wait_for_selector("#links a.primary")
        assert page.inner_text("#links a.primary") == "Spielen"
        page.screenshot(path=str(shots / "lobby-de.png"))
        page.click("#links a.primary")
        page.wait_for_selector("#action input[data-ticket]")
        assert page.get_attribute("html", "lang") == "de"
        assert "Zielkarten" in page.text_content("#action h2")
        assert "Zielkarten behalten" in page.inner_text("#confirm")
        assert "Du bist am Zug" in page.inner_text(".turnbar")
        side = page.text_content("#game")  # the side column and the players' strip above the board
        assert "Spieler" in side and "Auslage" in side
        for english in ("Your turn", "Players", "Market", "Destination tickets", "Keep"):
            assert english not in side, english
        page.screenshot(path=str(shots / "game-de.png"))
        # the picker switches the language at once and remembers it over the browser's language
        page.select_option("#lang", "it")
        page.wait_for_function("() => document.documentElement.lang === 'it'")
        assert "Tocca a te" in page.inner_text(".turnbar")
        assert "Biglietti Destinazione" in page.text_content("#action h2")
        assert page.evaluate("() => localStorage.getItem('tracklayer.lang')") == "it"
        page.goto(web_server.base + "/")
        page.wait_for_selector(".tile")
        assert page.get_attribute("html", "lang") == "it"
        assert page.inner_text("h1") == "In carrozza!"
        page.select_option("#lang", "fr")
        page.wait_for_function("() => document.documentElement.lang === 'fr'")
        assert page.inner_text("h1") == "En voiture !"
        assert page.locator(".botkind >> nth=0 >> option:checked").inner_text() == "Moyen"
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_trans_game_in_italian(web_server: Server, browser: Any, shots: Path) -> None:
    out = web_server.create("trans-europa", [{"name": "Anna"}, {"kind": "bot", "bot": "steiner"}, {"kind": "bot"}],
                            variant="special-cards", first_player=0)
    page = new_page(browser, "it-IT")
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#special-cards")
        page.wait_for_function("() => window.__tracklayer.st && (window.__tracklayer.st.legal || []).length")
        assert page.get_attribute("html", "lang") == "it"
        card = page.evaluate("() => window.__tracklayer.st.view.special_cards[0]")
        it = load("it")
        box = page.inner_text("#special-cards")
        assert it[f"special.{card['id']}.title"] in box and it[f"special.{card['id']}.text"] in box
        assert card["text"] not in box  # the English text is not shown to an Italian player
        assert "Come funzionano le carte speciali" in box
        assert "Giocatori" in page.text_content("#strip") and "Le tue città" in page.text_content("#side")
        assert "Trans Europa" in page.inner_text("#topbar")
        page.screenshot(path=str(shots / "trans-it.png"))
        # a protocol error arrives as a code and is shown translated; an engine refusal wrapped in Italian
        page.evaluate("""() => window.__tracklayer.ws.send(JSON.stringify({type: "move", move: "rail 0,0-99,99",
                         expect: window.__tracklayer.st.moves}))""")
        page.wait_for_selector("#toast:not([hidden])")
        assert page.inner_text("#toast").startswith("Questa mossa non è consentita.")
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_plural_forms_and_fallbacks_in_the_browser(web_server: Server, browser: Any) -> None:
    """t() picks plural forms by the language's rules (French: 0 and 1 are singular), exact =N forms first,
    fills nested placeholders, and falls back to English and then to the given text."""
    page = new_page(browser, "fr-FR")
    try:
        page.goto(web_server.base + "/")
        page.wait_for_selector(".tile")
        out = page.evaluate("""async () => {
          const m = await import('/static/i18n.js');
          const r = [m.lang, m.t('lobby.moves', {count: 0}), m.t('lobby.moves', {count: 1}),
            m.t('lobby.moves', {count: 2}),
            m.t('keep.button', {count: 0}), m.t('final.winners', {count: 2, names: 'Ann et Bob'}),
            m.t('no.such.key', {}, 'Fallback {x}'),
            m.format('{n, plural, one {# a} other {# b}} {who}', {n: 1, who: 'x'})];
          await m.setLang('de');
          r.push(m.t('lobby.moves', {count: 0}), m.t('keep.button', {count: 1}), document.documentElement.lang);
          return r;
        }""")
        assert out == ["fr", "0 coup", "1 coup", "2 coups", "N’en garder aucune", "Ann et Bob gagnent !",
                       "Fallback ", "1 a x", "0 Züge", "1 Zielkarte behalten", "de"]
        assert page.inner_text("h1") == "Alles einsteigen!"  # setLang re-renders the page
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_catalogs_and_modules_are_served(web_server: Server) -> None:
    import httpx

    for path in ("/static/i18n.js", "/static/moves.js", *(f"/static/i18n/{lang}.json" for lang in LANGS)):
        r = httpx.get(web_server.base + path)
        assert r.status_code == 200, path
    assert httpx.get(web_server.base + "/static/i18n/de.json").json()["lang.label"] == "Sprache"


# ---------------------------------------------------------------- the rules pages (rules.js)
RULES = I18N / "rules"
RULES_GAMES = ["ttr-europe", "ttr-new-york", "trans-europa", "trans-america"]


def rules_texts(lang: str) -> dict[str, dict[str, Any]]:
    return json.loads((RULES / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_rules_text_is_translated(lang: str) -> None:
    """Each language has English's sections with as many paragraphs, none of them left in English."""
    en, other = rules_texts("en"), rules_texts(lang)
    assert sorted(other) == sorted(en)
    assert {k: len(v["items"]) for k, v in other.items()} == {k: len(v["items"]) for k, v in en.items()}
    same = [(k, x) for k, v in other.items() for x, e in zip([v["h"], *v["items"]], [en[k]["h"], *en[k]["items"]],
                                                               strict=True)
            if x == e and len(re.findall(r"[A-Za-z]{3,}", x)) >= 3]
    assert not same, f"rules/{lang}.json: left in English: {same}"


def test_rules_pages_are_served(web_server: Server) -> None:
    import httpx

    for game in RULES_GAMES:
        assert httpx.get(f"{web_server.base}/rules/{game}").status_code == 200, game
    assert httpx.get(f"{web_server.base}/rules/chess").status_code == 404
    for lang in LANGS:
        assert httpx.get(f"{web_server.base}/static/i18n/rules/{lang}.json").status_code == 200


def test_the_game_page_links_to_its_rules_in_its_language(web_server: Server, browser: Any) -> None:
    """A German game page's Rules link opens the game's German rules at its variant, in a new tab."""
    out = web_server.create("ttr-europe", [{"name": "Anna"}, {"kind": "bot", "bot": "greedy"}],
                            variant="mega", first_player=0)
    page = new_page(browser, "de-DE")
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        link = page.wait_for_selector("#rules-link")
        assert link.inner_text() == "Regeln"
        assert link.get_attribute("href") == "/rules/ttr-europe#mega"
        with page.context.expect_page() as opened:
            link.click()
        rules = opened.value
        rules.wait_for_selector("#mega h2")
        assert rules.get_attribute("html", "lang") == "de"
        assert rules.inner_text("h1") == "Zug um Zug Europa: die Spielregeln"
        assert rules.inner_text("#mega h2") == "Variante: Mega Europa"
        assert "Zielkarten" in rules.inner_text("main") and "Europa-Express" in rules.inner_text("main")
        assert rules.evaluate("() => location.hash") == "#mega"
        assert not page.errors, page.errors
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", LANGS[1:])
def test_rules_pages_speak_the_language(web_server: Server, browser: Any, lang: str) -> None:
    """Every rules page shows its headings and texts in the page's language, no English one."""
    en, own = rules_texts("en"), rules_texts(lang)
    english = {v["h"] for v in en.values()} - {v["h"] for v in own.values()}
    page = new_page(browser, {"de": "de-DE", "fr": "fr-FR", "it": "it-IT", "nl": "nl-NL"}[lang])
    try:
        for game in RULES_GAMES:
            page.goto(f"{web_server.base}/rules/{game}")
            page.wait_for_selector(".rules-section h2")
            assert page.get_attribute("html", "lang") == lang
            headings = page.locator(".rules-section h2").all_inner_texts()
            assert len(headings) >= 6 and not set(headings) & english, (game, headings)
            assert all(h in {v["h"] for v in own.values()} for h in headings)
            assert load(lang)[f"game.{game}"] in page.inner_text("h1")
            assert load("en")["rules.intro"] not in page.inner_text("main")
        assert not page.errors, page.errors
    finally:
        page.context.close()
