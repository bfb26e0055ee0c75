"""``metro-ai web`` in a real browser: headless Chromium, driven by Selenium, plays a game of every
registered game to its end against a bot by clicking (squares and rotations on a Metro board,
cards and action buttons on a Breakthrough table), asks for a hint and plays it, takes a move
back, saves the game (a download) and loads it again (an upload: the saved game played on to a
few moves before its end, so the middle is not clicked through), and takes a screenshot at the
end.
The first screen (Metro chosen, *New game* in view, the options folded), the board in view after
*New game* at 1280x720 and on a phone-sized window, the seats' legend, the board's square names,
a hint row marking its square, redo, the bots' time per move, a finished game's record
loaded, reviewed and walked through (#43), a game clicked to its end and reviewed (#43), and the
size of the words of Metro 2033's map and Breakthrough's cards (#43) have their own tests. The
default tier (tests/tiers.py) plays the whole game of Metro, the first screen at 1280x720, the
loaded record's review and Metro 2033's words on a phone; the other games, the phone-sized
window, the hint row with redo, the rated seat, the bots' time per move, their moves outlined
since yours, the clicked game's review and the other words' sizes are the slow tier's.

Screenshots go to the folder ``METRO_AI_SCREENSHOTS`` names (made if missing), else to the
test's temporary folder.

Skipped, saying why, where Selenium (the ``web`` extra) or Chromium and its driver (Debian's
``chromium`` and ``chromium-driver``) are not installed. The waits are bounded, never timed:
each waits for the page to say what it is doing (``body[data-turn]``, ``body[data-ply]``).
"""
import json
import os
import random
import re
import shutil
from pathlib import Path

import pytest

import metro_ai

webdriver = pytest.importorskip("selenium.webdriver", reason="Selenium is not installed (pip install -e '.[test]')")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from seats import seats
from web_server import web_server as serve_page
from tiers import tiered

BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(BROWSER is None or DRIVER is None,
                                reason="no headless browser: install Chromium and its driver "
                                       "(Debian: apt-get install chromium chromium-driver)")
WAIT = 300                   # seconds a step may take at most on a loaded machine (a bound, not a measure)
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def page_url():
    """A ``metro-ai web --port 0 --no-browser`` subprocess; yields its page's address."""
    with serve_page() as url:
        yield url


@pytest.fixture()
def browser(tmp_path):
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1500,1100", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.downloads = downloads
    try:
        yield driver
    finally:
        driver.quit()


def _body(driver, name):
    return driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}")


def _errors(driver):
    box = driver.find_element(By.ID, "error")
    return box.text if box.is_displayed() else ""


def _wait_for_turn(driver, after_ply=None):
    """Wait until a person is to move (at a ply other than `after_ply`) or the game is over;
    returns (turn, ply)."""
    def ready(d):
        turn, ply = _body(d, "turn"), _body(d, "ply")
        if turn == "over" or (turn == "human" and ply is not None and ply != after_ply):
            return turn, int(ply)
        return False
    return WebDriverWait(driver, WAIT).until(ready)


def _shots(tmp_path):
    """The folder screenshots go to: $METRO_AI_SCREENSHOTS, else the test's temporary folder."""
    folder = Path(os.environ.get("METRO_AI_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _more_options(driver):
    """Unfold the set-up's "more options" (players, seats, seed, the bots' time)."""
    details = driver.find_element(By.ID, "more")
    if details.get_attribute("open") is None:
        details.find_element(By.TAG_NAME, "summary").click()


def _metro_for(driver, url, players=2):
    """Open the page at its set-up with Metro chosen for `players` and the more options shown."""
    driver.get(url)
    WebDriverWait(driver, WAIT).until(lambda d: _body(d, "turn") == "setup")
    Select(driver.find_element(By.ID, "game")).select_by_value("metro")
    _more_options(driver)
    box = driver.find_element(By.ID, "opt-players")
    box.clear()
    box.send_keys(str(players))


def _set_up(driver, url, game, opponent="easy"):
    """Open the page, choose `game` for 2 players where it allows (seat 0 you, seat 1 `opponent`;
    the solo game: you alone), short games
    where the game has a turn limit, Metro's variant M9 (rotations to choose), and start it."""
    driver.get(url)
    WebDriverWait(driver, WAIT).until(lambda d: _body(d, "turn") == "setup")
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    _more_options(driver)
    n = seats(game)
    players = driver.find_element(By.ID, "opt-players")
    players.clear()
    players.send_keys(str(n))
    driver.find_element(By.ID, "seed").send_keys("1")       # a fixed deal (empty: a random one); leaves the field
    for name, value in (("turn_limit", "6"),):
        found = driver.find_elements(By.ID, f"opt-{name}")
        if found and found[0].get_attribute("value"):      # a limit in play (Metro's is None: no companies)
            found[0].clear()
            found[0].send_keys(value)
    orientation = driver.find_elements(By.ID, "opt-orientation")
    if orientation and orientation[0].is_selected():
        orientation[0].click()                              # M9: tiles may be turned
    assert len(driver.find_elements(By.CSS_SELECTOR, "#seats select")) == n
    Select(driver.find_element(By.ID, "seat-0")).select_by_value("")
    if n > 1:
        Select(driver.find_element(By.ID, "seat-1")).select_by_value(opponent)
    driver.find_element(By.ID, "new-game").click()


def _move(driver, rng):
    """Make one move by clicking: a highlighted square or card of the picture (then one of the
    choices it offers, if several), or one of the action buttons."""
    targets = driver.find_elements(By.CSS_SELECTOR, "#board .playable")
    buttons = driver.find_elements(By.CSS_SELECTOR, "#moves > button.move")
    if targets and (not buttons or rng.random() < 0.8):
        target = rng.choice(targets)
        station = "station" in (target.get_attribute("class") or "").split()
        # a Metro 2033 station: its dot, as a person would click (its name lies beside it)
        (target.find_element(By.CSS_SELECTOR, "circle") if station else target).click()
        choices = driver.find_elements(By.CSS_SELECTOR, "#choices button.choice")
        if driver.find_element(By.ID, "choices").is_displayed() and choices:
            rng.choice(choices).click()
        return "picture"
    if not buttons:                                          # only in the full list
        driver.find_element(By.CSS_SELECTOR, "#moves details summary").click()
        buttons = driver.find_elements(By.CSS_SELECTOR, "#moves details button.move")
    rng.choice(buttons).click()
    return "button"


LAST_PLIES = 12                 # what is left of a game loaded back in the full-game test


def _near_the_end(saved, tmp_path):
    """A state file of the game saved in `saved`, played on at random (the same moves whatever
    the machine) to your turn about `LAST_PLIES` actions before its end, so that the page plays a game's end
    without clicking through all of its middle."""
    state = metro_ai.load_state(saved)
    rng = random.Random(3)
    probe, moves, yours = state.clone(), [], [0]             # yours: plies where seat 0 (you) is to move
    while not probe.is_terminal():
        moves.append(rng.choice(probe.legal_actions()))
        probe.apply(moves[-1])
        if not probe.is_terminal() and probe.current_player == 0:
            yours.append(len(moves))
    for action in moves[:max(p for p in yours if p <= max(0, len(moves) - LAST_PLIES))]:
        state.apply(action)
    path = tmp_path / "near-the-end.json"
    path.write_text(state.to_json())
    return path


@pytest.mark.parametrize("game", tiered(metro_ai.list_games(), fast=lambda game: game == "metro"))
def test_a_full_game_against_a_bot_by_clicking(game, page_url, browser, tmp_path):
    rng = random.Random(7)
    _set_up(browser, page_url, game)
    turn, ply = _wait_for_turn(browser)
    ways = {"picture": 0, "button": 0}
    moves = 0
    while turn != "over":
        if moves == 2:                                       # a hint, then its move played
            browser.find_element(By.ID, "hint").click()
            WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hints button.hint-play"))
            assert browser.find_elements(By.CSS_SELECTOR, "#hints td")
            words = browser.find_element(By.ID, "hints").text               # #43: no search jargon
            assert "expects" in words and not re.search(r"share|expected|iterations|visits", words), words
            browser.find_element(By.CSS_SELECTOR, "#hints button.hint-play").click()
        elif moves == 4:                                     # take the last move back
            browser.find_element(By.ID, "undo").click()
            turn, back = _wait_for_turn(browser, after_ply=str(ply))
            assert turn == "human" and back < ply
            ply = back
            moves += 1
            continue
        elif moves == 5:                                     # save (a download) and load (an upload)
            browser.find_element(By.ID, "save").click()
            saved = WebDriverWait(browser, WAIT).until(
                lambda d: [p for p in d.downloads.glob("*.json") if p.stat().st_size > 0])
            state = json.loads(saved[0].read_text())
            assert state["game"] == game
            # the saved game, played on to a few moves before its end: what is loaded back
            browser.find_element(By.ID, "load-file").send_keys(str(_near_the_end(saved[0], tmp_path)))
            WebDriverWait(browser, WAIT).until(lambda d: "loaded" in d.execute_script(
                "const li = document.querySelector('#log li'); return li ? li.textContent : '';"))
            turn, again = _wait_for_turn(browser)
            assert again == 0                                # a loaded position starts its own history
            ply = again
            moves += 1
            continue
        else:
            try:
                ways[_move(browser, rng)] += 1
            except StaleElementReferenceException:          # the picture was redrawn meanwhile
                continue
        moves += 1
        turn, ply = _wait_for_turn(browser, after_ply=str(ply))
        assert not _errors(browser), _errors(browser)
    verdict = browser.find_element(By.ID, "verdict")           # #43: the end where the eye is
    r = _rect(browser, "#verdict")
    assert verdict.is_displayed() and verdict.text.startswith("Game over: P") and 0 <= r["top"] < r["height"], \
        (verdict.text, r)
    assert browser.find_elements(By.CSS_SELECTOR, "#legend .seat.winner")
    status = browser.find_element(By.ID, "status").text
    heading = {"metro": "Points", "metro-solo": "Points", "breakthrough": "Tokens", "metro2033": "VP"}.get(game, "Scores")
    assert status.startswith("Game over") and f". {heading}: P0 " in status, status   # what they count
    if metro_ai.registry.game_class(game).family != "benchmark":   # benchmark games: buttons only
        assert ways["picture"] > 0, "no move was made by clicking the picture"
    else:
        assert ways["button"] > 0
    log = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    numbered = [int(t.split(".")[0]) for t in log if re.match(r"\d+\. P\d ", t)]
    assert numbered and numbered[-1] == ply, log             # moves numbered as the game counts them: the last
    shot = _shots(tmp_path) / f"{game}.png"
    assert browser.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data.startswith(PNG) and len(data) > 20_000
    from PIL import Image
    with Image.open(shot) as img:
        assert img.size[0] >= 1000 and img.size[1] >= 700
        colours = img.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 50      # a drawn page, not a blank one


@pytest.mark.slow
def test_a_seat_at_a_rating_plays_ismcts_at_that_elo(page_url, browser):
    """The Elo dial: where a shipped ladder covers the game as set up, a seat may be ISMCTS at a
    rating within the ladder's range; the bot then plays as ``ismcts:elo=R``. Out of range is
    an error that starts no game; other options (no ladder) take the choice away."""
    from metro_ai.ladder import ladder_catalogue
    ladder = ladder_catalogue()["metro-2p"]["elo"]
    _metro_for(browser, page_url)
    browser.find_element(By.ID, "seed").click()              # leaves the field: its change event
    seat = Select(browser.find_element(By.ID, "seat-1"))
    seat.select_by_value("@elo")
    dial = browser.find_element(By.ID, "seat-1-elo")
    assert int(dial.get_attribute("min")) >= ladder["min"] and int(dial.get_attribute("max")) <= ladder["max"]
    rating = round((ladder["min"] + ladder["max"]) / 2)
    dial.clear()
    dial.send_keys(str(int(ladder["max"]) + 500))
    browser.find_element(By.ID, "new-game").click()
    WebDriverWait(browser, WAIT).until(lambda d: "a rating from" in _errors(d))
    assert _body(browser, "turn") == "setup"                 # no game was started
    dial.clear()
    dial.send_keys(str(rating))
    Select(browser.find_element(By.ID, "seat-0")).select_by_value("")
    browser.find_element(By.ID, "new-game").click()
    _wait_for_turn(browser)
    first = browser.execute_script("return document.querySelector('#log li').textContent;")
    seed = re.fullmatch(r"new game of Metro \(.*\), seed (\d+) \(random: type it as the deal seed to replay\)", first)
    assert seed, first                                       # the seed box left empty: a random deal, logged
    _move(browser, random.Random(3))
    WebDriverWait(browser, WAIT).until(
        lambda d: f"ismcts:elo={rating}) played" in d.find_element(By.ID, "thinking").text)
    assert not _errors(browser), _errors(browser)
    orientation = browser.find_element(By.ID, "opt-orientation")
    orientation.click()                                      # M9: no ladder for it, so no rating to choose
    values = [o.get_attribute("value") for o in Select(browser.find_element(By.ID, "seat-1")).options]
    assert "@elo" not in values and browser.find_elements(By.ID, "seat-1-elo") == []


# ---- the first screen, the board in view, the legend, the hints ----
SIZES = {"desktop": dict(width=1280, height=720, deviceScaleFactor=1, mobile=False),
         "phone": dict(width=390, height=844, deviceScaleFactor=1, mobile=True)}


def _rect(driver, css):
    """An element's box in the window, with the window's size (its width: the part a person sees
    without scrolling sideways, which the page must not need)."""
    return driver.execute_script("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                                 "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,"
                                 " height: innerHeight, width: innerWidth,"
                                 " page: document.documentElement.scrollWidth};", css)


@pytest.mark.parametrize("size", tiered(sorted(SIZES), fast=lambda size: size == "desktop"))
def test_the_first_screen_starts_metro_in_one_click_and_shows_the_board(size, page_url, browser, tmp_path):
    """Opens on Metro with *New game* in view and the options folded; after *New game* the
    whole board is in the window (1280x720 and a phone's 390x844), with the square names on its
    edges and the legend of seats (colour, who plays)."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SIZES[size])
    browser.get(page_url)
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "setup")
    assert Select(browser.find_element(By.ID, "game")).first_selected_option.get_attribute("value") == "metro"
    button = browser.find_element(By.ID, "new-game")
    r = _rect(browser, "#new-game")
    assert button.is_displayed() and button.is_enabled() and 0 <= r["top"] and r["bottom"] <= r["height"], r
    assert r["width"] == SIZES[size]["width"] and r["page"] <= r["width"], r          # nothing wider than it
    assert not browser.find_element(By.ID, "opt-players").is_displayed()       # folded under "more options"
    assert browser.find_element(By.CSS_SELECTOR, "#more > summary").text == "more options"
    browser.save_screenshot(str(_shots(tmp_path) / f"first-screen-{size}.png"))
    _more_options(browser)                                   # #43: the options in words, not the engine's
    options = browser.find_element(By.ID, "options").text
    assert re.search(r"^Players\b", options, re.M) and "Hand size" in options, options
    assert not re.search(r"\w_\w|\bnull\b|\bNone\b|\b[MCBGR]\d+\b", options), options
    assert [o.text for o in Select(browser.find_element(By.ID, "opt-city")).options][0] == "none"
    bots = [o.text for o in Select(browser.find_element(By.ID, "seat-1")).options]
    assert "medium" in bots and not any("iterations" in b for b in bots), bots       # its method in its tooltip
    browser.find_element(By.CSS_SELECTOR, "#more > summary").click()          # folded again
    button.click()
    _wait_for_turn(browser)
    r = _rect(browser, "#board svg")
    assert r["top"] >= 0 and r["bottom"] <= r["height"] + 1 and r["right"] <= r["width"] + 1, r   # all of it
    assert r["width"] == SIZES[size]["width"] and r["page"] <= r["width"], r
    assert r["bottom"] - r["top"] > 0.4 * r["height"] or r["right"] - r["left"] > 0.8 * r["width"], r
    names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#board text.edge-label")]
    assert names[:8] == list("ABCDEFGH") and sorted(set(names[8:]), key=int) == [str(i) for i in range(1, 9)]
    svg = browser.find_element(By.CSS_SELECTOR, "#board svg")
    colours = svg.get_attribute("data-seat-colours").split(",")
    legend = browser.find_elements(By.CSS_SELECTOR, "#legend .seat")
    assert len(legend) == len(colours) == 2                 # you against one bot (#43: it was 4 seats)
    words = [" ".join(e.text.split()) for e in legend]
    assert words[0].startswith("P0 you") and words[1].startswith("P1 medium"), words
    for p, item in enumerate(legend):
        swatch = item.find_element(By.CSS_SELECTOR, ".swatch")
        assert browser.execute_script("return getComputedStyle(arguments[0]).backgroundColor", swatch) == \
            "rgb({}, {}, {})".format(*(int(colours[p][i:i + 2], 16) for i in (1, 3, 5)))
        owned = browser.find_elements(By.CSS_SELECTOR, f'#board g.station[data-owner="{p}"] rect')
        assert owned and {e.get_attribute("fill") for e in owned} == {colours[p]}    # the board's colours
    draw = [b for b in browser.find_elements(By.CSS_SELECTOR, "#moves > button.move") if b.text == "draw"]
    assert draw, "Metro's draw is a button"
    r = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return {top: r.top, bottom: r.bottom,"
                               " height: innerHeight};", draw[0])
    assert 0 <= r["top"] and r["bottom"] <= r["height"], r            # #43: in view with the board, not below it
    hand = browser.find_elements(By.CSS_SELECTOR, "#board text.hand-id")
    assert hand and all(re.fullmatch(r"T\d\d", e.text) for e in hand)
    browser.save_screenshot(str(_shots(tmp_path) / f"new-game-{size}.png"))


@pytest.mark.slow
def test_a_hint_row_marks_its_square_and_redo_replays(page_url, browser, tmp_path):
    """Hovering a hint row marks the square its move is played on (and only while hovered); the
    hint's progress is shown apart from the bot's; undo then redo returns to the same ply."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SIZES["desktop"])
    browser.get(page_url)
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "setup")
    browser.find_element(By.ID, "new-game").click()
    turn, ply = _wait_for_turn(browser)
    rng = random.Random(11)
    for _ in range(5):                                         # some tiles on the board first
        _move(browser, rng)
        turn, ply = _wait_for_turn(browser, after_ply=str(ply))
    browser.find_element(By.ID, "hint").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hints tr.hint-row"))
    thinking = browser.find_element(By.ID, "thinking").text
    assert "best so far" not in thinking                     # the hint's search wrote elsewhere
    row = browser.find_elements(By.CSS_SELECTOR, "#hints tr.hint-row")[0]
    m = re.search(r"\bat ([A-H])([1-8])\b", row.text)
    assert m, row.text
    square = str((int(m.group(2)) - 1) * 8 + "ABCDEFGH".index(m.group(1)))
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .hinted")
    ActionChains(browser).move_to_element(row).perform()
    marked = browser.find_elements(By.CSS_SELECTOR, "#board rect.square.hinted")
    assert [e.get_attribute("data-square") for e in marked] == [square]
    browser.save_screenshot(str(_shots(tmp_path) / "hint-highlight.png"))
    ActionChains(browser).move_to_element(browser.find_element(By.ID, "status")).perform()
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .hinted")
    row.find_element(By.CSS_SELECTOR, "button.hint-play").click()
    turn, after = _wait_for_turn(browser, after_ply=str(ply))
    assert turn == "human" and after > ply + 1                 # the move and the bots' answers
    assert browser.find_element(By.ID, "redo").get_attribute("disabled")
    browser.find_element(By.ID, "undo").click()
    turn, back = _wait_for_turn(browser, after_ply=str(after))
    assert back == ply and browser.find_element(By.ID, "redo").is_enabled()
    browser.find_element(By.ID, "redo").click()
    turn, again = _wait_for_turn(browser, after_ply=str(back))
    assert again == after and not _errors(browser)
    assert "redo" in browser.find_elements(By.CSS_SELECTOR, "#log li")[-1].text


@pytest.mark.slow
def test_the_bots_time_per_move(page_url, browser):
    """A time per move goes with every bot move as the search's limit; a bad one is an error
    naming the setting that starts no game."""
    browser.get(page_url)
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "setup")
    browser.execute_script("window.sent = []; const send = WebSocket.prototype.send;"
                           "WebSocket.prototype.send = function (d) { window.sent.push(JSON.parse(d)); return send.call(this, d); };")
    _more_options(browser)
    box = browser.find_element(By.ID, "bot-time")
    box.send_keys("-1")
    browser.find_element(By.ID, "new-game").click()
    WebDriverWait(browser, WAIT).until(lambda d: "Bot time per move" in _errors(d))
    assert _body(browser, "turn") == "setup"
    assert not [m for m in browser.execute_script("return window.sent") if m["method"] == "new_game"]
    box.clear()
    box.send_keys("0.3")
    browser.find_element(By.ID, "new-game").click()
    _wait_for_turn(browser)
    _move(browser, random.Random(5))
    WebDriverWait(browser, WAIT).until(lambda d: " played " in d.find_element(By.ID, "thinking").text)
    goes = [m["params"] for m in browser.execute_script("return window.sent") if m["method"] == "go"]
    assert goes and all(g["limit"] == {"time": 0.3} for g in goes), goes
    assert not _errors(browser), _errors(browser)


def test_the_page_connects_with_the_token_of_its_printed_address_only(page_url, browser):
    """The address the command printed (and opens) carries the token: the page connects with it,
    takes it out of the address bar and still connects after a reload; the page without it, or
    with another token, does not connect and says how to."""
    base = page_url.split("?")[0]
    browser.get(page_url)
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "setup")
    assert "token" not in browser.current_url and browser.current_url.startswith(base)
    browser.refresh()
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "setup")
    browser.find_element(By.ID, "new-game").click()
    _wait_for_turn(browser)
    browser.execute_script("sessionStorage.clear()")          # a new tab: nothing kept
    for address in (base, base + "?token=not-the-token-0123456789"):
        browser.get(address)
        WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "disconnected")
        assert "metro-ai web printed" in browser.find_element(By.ID, "connection").text
        assert browser.find_element(By.ID, "new-game").get_attribute("disabled")


def test_an_old_hint_row_cannot_be_played(page_url, browser):
    """A hint belongs to the position it was asked for: once a move is made, its rows stay on
    show marked old, their buttons disabled, and a button forced back on plays nothing (no
    ``apply`` is sent; the page says why)."""
    _set_up(browser, page_url, "metro")
    turn, ply = _wait_for_turn(browser)
    browser.execute_script("window.sent = []; const send = WebSocket.prototype.send;"
                           "WebSocket.prototype.send = function (d) { window.sent.push(JSON.parse(d)); return send.call(this, d); };")
    browser.find_element(By.ID, "hint").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hints tr.hint-row button.hint-play"))
    hinted = [int(r.get_attribute("data-action")) for r in browser.find_elements(By.CSS_SELECTOR, "#hints tr.hint-row")]
    assert all(b.is_enabled() for b in browser.find_elements(By.CSS_SELECTOR, "#hints button.hint-play"))
    _move(browser, random.Random(3))                            # a move of our own, not the hint's
    turn, after = _wait_for_turn(browser, after_ply=str(ply))
    assert turn == "human" and after > ply
    rows = browser.find_elements(By.CSS_SELECTOR, "#hints tr.hint-row")
    assert [int(r.get_attribute("data-action")) for r in rows] == hinted         # still on show, as old
    assert "earlier position" in browser.find_element(By.ID, "hints").text
    buttons = browser.find_elements(By.CSS_SELECTOR, "#hints button.hint-play")
    assert buttons and not any(b.is_enabled() for b in buttons)
    applied = len([m for m in browser.execute_script("return window.sent") if m["method"] == "apply"])
    browser.execute_script("arguments[0].disabled = false; arguments[0].click();", buttons[0])
    WebDriverWait(browser, WAIT).until(lambda d: "earlier position" in _errors(d))
    assert len([m for m in browser.execute_script("return window.sent") if m["method"] == "apply"]) == applied
    assert _body(browser, "ply") == str(after) and _body(browser, "turn") == "human"


RECORD_RECEIVED = """
window.received = [];
const NativeSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new NativeSocket(...args);
  ws.addEventListener("message", (e) => window.received.push(JSON.parse(e.data)));
  return ws;
};
window.WebSocket.prototype = NativeSocket.prototype;
window.WebSocket.OPEN = NativeSocket.OPEN;
"""


def test_with_companies_the_page_shows_the_seat_its_own_and_no_scores(page_url, browser):
    """Metro with companies (M18): during play the legend and the status line show no scores and
    no message the page receives carries them; the picture shows the seat's own shares, each
    company's profit and value and the face-up shares; the bot's moves come as the seat saw them
    (``go`` with the seat: no best move, share or expected result)."""
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_RECEIVED})
    _metro_for(browser, page_url)
    browser.find_element(By.ID, "opt-companies").click()
    Select(browser.find_element(By.ID, "seat-1")).select_by_value("easy")
    browser.find_element(By.ID, "seed").send_keys("3")
    browser.find_element(By.ID, "new-game").click()
    turn, ply = _wait_for_turn(browser)
    rng = random.Random(2)
    for _ in range(3):
        assert "hidden until the end" in browser.find_element(By.ID, "status").text
        assert not browser.find_elements(By.CSS_SELECTOR, "#legend .score")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#board g.share.own")) == 4
        assert len(browser.find_elements(By.CSS_SELECTOR, "#board g.share.face-up")) == 4
        assert len(browser.find_elements(By.CSS_SELECTOR, "#board g.company")) == 8
        _move(browser, rng)
        turn, ply = _wait_for_turn(browser, after_ply=str(ply))
        if turn == "over":
            break
    received = browser.execute_script("return window.received")
    results = [m["result"] for m in received if isinstance(m.get("result"), dict)]
    summaries = [r for r in results if "scores" in r] + [r["state"] for r in results if "state" in r]
    assert summaries and all(s["scores"] is None for s in summaries if not s["terminal"])
    played = [r for r in results if "bot" in r and "applied" in r]
    assert played and all(r["share"] is None and r["mean"] is None for r in played)
    notes = [m["params"] for m in received if m.get("method") == "progress"]
    assert all(n["best"] is None for n in notes)
    assert not _errors(browser), _errors(browser)


def test_a_finished_game_is_reviewed_and_walked_through(page_url, browser, tmp_path):
    """#43: a game's record loaded back (every move replayed), reviewed once over (progress,
    then each seat's accuracy and luck, the win-chance graph, the marked moves); a marked move
    clicked shows the board then with the better move named, the arrow keys walk the game, and
    the record downloads again."""
    record = metro_ai.play_match(metro_ai.load_game("metro", players=2), ["random", "greedy"], seed=2)
    path = tmp_path / "game-record.json"
    path.write_text(json.dumps(record))
    browser.get(page_url)
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "setup")
    browser.find_element(By.ID, "load-file").send_keys(str(path))
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "turn") == "over")
    assert int(_body(browser, "ply")) == len(record["actions"])
    Select(browser.find_element(By.ID, "hint-bot")).select_by_value("easy")
    browser.find_element(By.ID, "review").click()
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review") in ("done", "failed"))
    assert _body(browser, "review") == "done" and not _errors(browser), _errors(browser)
    players = browser.find_elements(By.CSS_SELECTOR, "#review-players p")
    assert len(players) == 2 and all("accuracy" in p.text and "luck" in p.text for p in players)
    assert players[0].text.startswith("P0 (random)") and players[1].text.startswith("P1 (greedy)")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review-graph polyline.seat-line")) == 2
    marks = browser.find_elements(By.CSS_SELECTOR, "#review-marks li")
    dots = browser.find_elements(By.CSS_SELECTOR, "#review-graph circle.mark")
    assert marks and len(dots) == len(marks)          # a random player's game has marked moves
    assert any(re.search(r"\(win chance \d+% → \d+%, (about \d+ points? given up|though it scores about \d+ more)\)$",
                         m.text) for m in marks), [m.text for m in marks]          # the loss in points too
    first = _show_first_mark(browser, marks)
    shot = _shots(tmp_path) / "review-metro.png"
    assert browser.save_screenshot(str(shot)) and shot.read_bytes().startswith(PNG)
    browser.find_element(By.TAG_NAME, "body").send_keys("\ue014")          # the right arrow key
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review-ply") == str(first + 1))
    assert _current(browser) == [("log", first + 1)], _current(browser)       # the list follows the keys
    # the move list itself: every move listed, numbered, as the record has it; a click shows the board then
    moves = browser.find_elements(By.CSS_SELECTOR, "#log li[data-ply]")
    assert [int(m.get_attribute("data-ply")) for m in moves] == list(range(len(record["actions"])))
    assert all(m.text.startswith(f"{p + 1}. P{record['actions'][p]['player']} ") for p, m in enumerate(moves))
    pick = len(moves) // 3
    moves[pick].click()
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review-ply") == str(pick))
    assert _current(browser) == [("log", pick)] + [("mark", pick)] * (pick in [int(m.get_attribute("data-ply")) for m in marks])
    assert f"before move {pick + 1}" in browser.find_element(By.ID, "status").text
    browser.find_element(By.TAG_NAME, "body").send_keys("\ue012")          # the left arrow key
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review-ply") == str(pick - 1))
    assert ("log", pick - 1) in _current(browser)
    browser.find_element(By.ID, "walk-on").click()                        # a phone's arrow keys
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review-ply") == str(pick))
    # the luck of the draws: a tick per chance event under the graph, its luck when pointed at and
    # when walked to, in points of win chance, seat by seat
    review = browser.execute_script("return G.review")
    ticks = browser.find_elements(By.CSS_SELECTOR, "#review-graph g.luck")
    assert [int(t.get_attribute("data-ply")) for t in ticks] == [c["ply"] for c in review["chances"]]
    lucky = next(c for c in review["chances"] if any(round(100 * v) for v in c["luck"]))
    tick = next(t for t in ticks if int(t.get_attribute("data-ply")) == lucky["ply"])
    said = [f"P{p} " + ("+" if v > 0 else "−") + str(abs(round(100 * v))) for p, v in enumerate(lucky["luck"]) if round(100 * v)]
    title = tick.find_element(By.TAG_NAME, "title").get_attribute("textContent")
    assert all(s.split()[0] in title and s.split()[1] in title for s in said), (title, said)
    ActionChains(browser).move_to_element(tick).click().perform()
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review-ply") == str(lucky["ply"]))
    luck = browser.find_element(By.CSS_SELECTOR, "#status .luck").text
    assert "points of win chance" in luck and all(s.split()[1] in luck for s in said), (luck, said)
    dots = browser.find_elements(By.CSS_SELECTOR, "#review-graph circle.mark")
    ActionChains(browser).move_to_element(dots[-1]).click().perform()
    last = int(dots[-1].get_attribute("data-ply"))
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review-ply") == str(last))
    browser.find_element(By.ID, "review-back").click()
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review-ply") is None
                                       and browser.find_element(By.ID, "status").text.startswith("Game over"))
    browser.find_element(By.ID, "save-record").click()
    saved = WebDriverWait(browser, WAIT).until(
        lambda d: [p for p in d.downloads.glob("*-record.json") if p.stat().st_size > 0])
    again = json.loads(saved[0].read_text())
    assert [m["action"] for m in again["actions"]] == [m["action"] for m in record["actions"]]
    assert metro_ai.replay(again)[-1].returns() == record["returns"]


def _show_first_mark(driver, marks):
    """Click the first marked move; check that the board before it is shown with the review's
    better move named; return its ply."""
    first = int(marks[0].get_attribute("data-ply"))
    marks[0].click()
    WebDriverWait(driver, WAIT).until(lambda d: _body(d, "review-ply") == str(first))
    status = driver.find_element(By.ID, "status").text
    assert f"before move {first + 1}" in status and "the review's best:" in status, status
    assert driver.find_elements(By.CSS_SELECTOR, "#board svg rect.square")
    return first


def _current(driver):
    """The moves marked as shown: ("log", ply) in the move list, ("mark", ply) in the marked moves."""
    return [("log" if e.find_element(By.XPATH, "..").get_attribute("id") == "log" else "mark", int(e.get_attribute("data-ply")))
            for e in driver.find_elements(By.CSS_SELECTOR, "#log li.current, #review-marks li.current")]


@pytest.mark.slow
@pytest.mark.slow          # a whole game clicked, then reviewed (a loaded record's review: the default tier)
def test_a_game_played_by_clicking_is_reviewed_at_its_end(page_url, browser):
    """#43's end to end: a person plays Metro to its end by clicking, opens the review, clicks a
    marked move, and sees the board then with the better move named and on the graph."""
    rng = random.Random(3)
    _set_up(browser, page_url, "metro")
    turn, ply = _wait_for_turn(browser)
    while turn != "over":
        try:
            _move(browser, rng)
        except StaleElementReferenceException:              # the picture was redrawn meanwhile
            continue
        turn, ply = _wait_for_turn(browser, after_ply=str(ply))
    Select(browser.find_element(By.ID, "hint-bot")).select_by_value("easy")
    browser.find_element(By.ID, "review").click()
    WebDriverWait(browser, WAIT).until(lambda d: _body(d, "review") in ("done", "failed"))
    assert _body(browser, "review") == "done" and not _errors(browser), _errors(browser)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review-graph polyline.seat-line")) == 2
    marks = browser.find_elements(By.CSS_SELECTOR, "#review-marks li")
    assert marks, "a game of random clicks has costly moves"
    first = _show_first_mark(browser, marks)
    assert set(_current(browser)) == {("log", first), ("mark", first)}, _current(browser)


def test_every_bot_move_since_yours_is_outlined_and_the_bots_can_be_slowed(page_url, browser):
    """#43: with three bots after you, each bot move since your last one is outlined on the board
    (the picture itself frames only the last) and listed in words, numbered; a pause before each
    bot move can be chosen."""
    _metro_for(browser, page_url, players=4)
    browser.find_element(By.ID, "seed").send_keys("3")
    for seat in (1, 2, 3):
        Select(browser.find_element(By.ID, f"seat-{seat}")).select_by_value("greedy")
    Select(browser.find_element(By.ID, "bot-pause")).select_by_value("0.5")
    browser.find_element(By.ID, "new-game").click()
    turn, ply = _wait_for_turn(browser)
    targets = browser.find_elements(By.CSS_SELECTOR, "#board rect.square.playable")
    targets[0].click()
    choices = browser.find_elements(By.CSS_SELECTOR, "#choices button.choice")
    if browser.find_element(By.ID, "choices").is_displayed() and choices:
        choices[0].click()
    turn, after = _wait_for_turn(browser, after_ply=str(ply))
    bot_lines = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#log li") if "(greedy)" in e.text]
    assert len(bot_lines) == after - ply - 1 >= 3, bot_lines          # every bot move, in words
    assert all(re.match(r"\d+\. P[123] ", t) for t in bot_lines), bot_lines
    placed = [t for t in bot_lines if " at " in t]
    outlined = browser.find_elements(By.CSS_SELECTOR, "#board rect.square.recent")
    assert len(outlined) == len(placed) >= 1, (bot_lines, len(outlined))


# ---- the words a person reads: at least 11 CSS px (#43) ----
READABLE_PX = 11
TEXT_PX = """
// every non-empty text of the board's picture, its font size as drawn (CSS px): the computed size
// times its on-screen scale; and of the page's own words outside the picture (CSS px)
const sizes = [...document.querySelectorAll('#board svg text')].filter((t) => t.textContent.trim() && t.getScreenCTM())
  .map((t) => { const m = t.getScreenCTM(); return [parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b), t.textContent]; });
const page = [...document.querySelectorAll('main *:not(svg):not(svg *)')]
  .filter((e) => e.offsetParent !== null && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((e) => [parseFloat(getComputedStyle(e).fontSize), e.textContent.trim().slice(0, 40)]);
return {board: sizes, page: page};
"""


def _text_sizes(driver):
    """The smallest words of the board's picture and of the page, as [size in CSS px, text]."""
    sizes = driver.execute_script(TEXT_PX)
    return min(sizes["board"]), min(sizes["page"])


@pytest.mark.parametrize("game, size", tiered([(g, s) for g in ("metro2033", "breakthrough") for s in sorted(SIZES)],
                                              fast=lambda game, size: (game, size) == ("metro2033", "phone")))
def test_the_words_of_a_map_or_a_card_are_at_least_11_px(game, size, page_url, browser, tmp_path):
    """#43: Metro 2033's station names and player panels, Breakthrough's card texts and the page's
    own words are at least 11 CSS px at 1280x720 and on a phone (390x844): the picture is drawn
    that large and panned in its box, the page no wider than the window; *whole board* fits it in
    the box again (smaller words), and + zooms in from there."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", SIZES[size])
    _set_up(browser, page_url, game)
    _, ply = _wait_for_turn(browser)
    (board, board_text), (page, page_text) = _text_sizes(browser)
    browser.save_screenshot(str(_shots(tmp_path) / f"readable-{game}-{size}.png"))
    assert board >= READABLE_PX - 0.01, (board, board_text)
    assert page >= READABLE_PX - 0.01, (page, page_text)
    r = _rect(browser, "#board")
    assert r["right"] <= r["width"] + 1 and r["page"] <= r["width"], r              # panned inside its box
    browser.find_element(By.ID, "zoom-fit").click()
    whole = _rect(browser, "#board svg")
    assert whole["right"] - whole["left"] <= r["right"] - r["left"] + 1, (whole, r)
    fitted, _ = _text_sizes(browser)
    assert fitted[0] < board, (fitted, board)                 # the whole picture in the box: smaller words
    browser.find_element(By.ID, "zoom-in").click()
    assert _text_sizes(browser)[0][0] > fitted[0] * 1.2
    _move(browser, random.Random(1))                          # the scale stays through a move
    _wait_for_turn(browser, after_ply=str(ply))
    assert _text_sizes(browser)[0][0] > fitted[0] * 1.2
    assert not _errors(browser), _errors(browser)
