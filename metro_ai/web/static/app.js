// metro-ai web: plays the registered games against the bots through the metro-ai protocol
// (docs/protocol.md), JSON-RPC 2.0 over the WebSocket at /ws of the server that served this page.
// Everything about the games (names, options, players) and the bots (presets, bots) is read from
// `hello`; the position is drawn by the server (`svg`). What a person sees is their seat's own
// (docs/guide/web.md): the picture for that seat, the scores the summary shows (none while a game
// hides them), the bots' moves as that seat saw them (`go` with `seat`). Only the way a click on
// the picture maps to actions is per game (LAYOUTS below); a game without one is played by buttons.
"use strict";

// ---- the token ----
// Every handshake presents the server's token (docs/security.md). metro-ai web prints and opens
// this page's address with it (/?token=...); the page keeps it for this tab (sessionStorage, this
// origin's only: a reload still connects) and takes it out of the address bar.
const TOKEN_KEY = "metro-ai-token";

function pageToken() {
  const params = new URLSearchParams(location.search);
  const given = params.get("token");
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
    return given;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

// ---- the protocol ----
const rpc = (() => {
  let socket = null, nextId = 1;
  const waiting = new Map();
  const listeners = {};
  function connect(token, onOpen, onClose) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}/ws?token=${encodeURIComponent(token)}`);
    socket.onopen = onOpen;
    socket.onclose = () => {
      for (const [, w] of waiting) w.reject(new Error("the connection to the server closed"));
      waiting.clear();
      onClose();
    };
    socket.onmessage = (event) => {
      const msg = JSON.parse(event.data);
      if (msg.method) {                         // a notification
        (listeners[msg.method] || []).forEach((f) => f(msg.params));
        return;
      }
      const w = waiting.get(msg.id);
      if (!w) return;
      waiting.delete(msg.id);
      if (msg.error) {
        const err = new Error(msg.error.message);
        err.code = msg.error.code;
        w.reject(err);
      } else {
        w.resolve(msg.result);
      }
    };
  }
  function call(method, params) {
    return new Promise((resolve, reject) => {
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        reject(new Error("not connected to the server"));
        return;
      }
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: params || {} }));
    });
  }
  function on(method, f) { (listeners[method] = listeners[method] || []).push(f); }
  return { connect, call, on };
})();

// ---- page state ----
const $ = (id) => document.getElementById(id);
let HELLO = null;
const G = {
  id: null,            // the protocol's game id
  game: null,          // its name
  seats: [],           // per seat: null for a person, else the bot spec
  summary: null,       // the last state summary
  legal: [],           // the legal actions when a person is to move: [{id, text}]
  epoch: 0,            // bumped by undo, load and new games: a bot move of an older epoch is not followed up
  position: 0,         // bumped each time the page reads the position: a hint belongs to the one it was asked for
  thinking: false,     // a go (a bot's move) or an analyse (a hint) is running
  search: null,        // which: "bot" or "hint" (their progress is shown apart)
  review: null,        // the game's review once made (the protocol's review), while shown
  reviewPly: null,     // the ply the board shows in review (null: the game as it stands)
  reviewing: false,    // a review is running
  recordLabels: null,  // a loaded record's names of its seats (its seats are all yours to play on)
  recent: [],          // the texts of the bots' moves since a person's last move, outlined on the board
  intro: "",           // the move list's first line: how the game began (new, loaded)
  moves: [],           // the game's moves by ply, as this page said them: {player, text, by}; kept past an
                       // undo (redo plays them again), written over by the moves played instead
  zoom: null,          // the board's scale (CSS px a picture unit), "fit" (whole), null: the game's own (boardZoom)
};

function setTurn(value) { document.body.dataset.turn = value; }

function showError(err) {
  const box = $("error");
  box.hidden = false;
  box.textContent = (err && err.message) || String(err);
}
function clearError() { $("error").hidden = true; $("error").textContent = ""; }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") node.addEventListener("click", v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// ---- per game: how a click on the picture maps to actions ----
// A layout says which picture elements are targets and which actions each target stands for.
const squareLayout = {
  // Metro: a placement's text ends in "at D5" or "at D5 rot 1"; the picture's squares carry
  // data-square = 8 * row + column (A1 is square 0, B1 square 1, A2 square 8).
  selector: "[data-square]",
  key(node) { return node.dataset.square; },
  keyOf(action) {
    const m = /\bat ([A-H])([1-8])\b/.exec(action.text);
    return m ? String((Number(m[2]) - 1) * 8 + (m[1].charCodeAt(0) - 65)) : null;
  },
  mark(svg, key) { return svg.querySelectorAll(`rect.square[data-square="${key}"]`); },
  what: "a square",
  readable: false,     // the board is seen whole (its squares and edge names are large enough)
};
const cardLayout = {
  // Breakthrough: an action names its card ("play Hunter as hero (cost 3)"); the picture's cards
  // carry data-name. A card stands for every action whose text names it.
  selector: "g.card[data-name]",
  key(node) { return node.dataset.name; },
  keysOf(action, names) { return names.filter((n) => action.text.includes(n)); },
  mark(svg, key) { return svg.querySelectorAll(`g.card[data-name="${CSS.escape(key)}"]`); },
  what: "a card",
  readable: true,      // the cards' words are read: drawn large enough, panned (boardZoom)
};
const stationLayout = {
  // Metro 2033: an action on a station reads "station Polyanka" or "hero defends Polyanka"; the
  // map's stations carry data-name.
  selector: "g.station[data-name]",
  key(node) { return node.dataset.name; },
  keyOf(action) {
    const m = /^(?:station|hero defends) (.+)$/.exec(action.text);
    return m ? m[1] : null;
  },
  mark(svg, key) { return svg.querySelectorAll(`g.station[data-name="${CSS.escape(key)}"]`); },
  what: "a station",
  readable: true,      // the map's station names and player panels are read (boardZoom)
};
const LAYOUTS = { metro: squareLayout, breakthrough: cardLayout, metro2033: stationLayout };

function layoutFor(name, svg) {
  if (LAYOUTS[name]) return LAYOUTS[name];
  if (svg.querySelector("[data-square]")) return squareLayout;   // a game drawn the same way
  if (svg.querySelector("g.card[data-name]")) return cardLayout;
  return null;
}

// ---- the board's size: the picture whole, or zoomed to be read and panned ----
// A picture whose words are read (Metro 2033's map, Breakthrough's cards: a layout's `readable`)
// is drawn at first where its smallest text is READABLE_PX CSS pixels high, in a box that scrolls
// (pans) under the status line; Metro's board fits the window whole. The zoom buttons scale from
// what is shown; "whole" fits it again. The scale stays through the game's moves and is forgotten
// with the game (G.zoom).
const READABLE_PX = 11;
const ZOOM_STEP = 1.25;

function drawBoard(svgText) {
  const box = $("board");
  const left = box.scrollLeft, top = box.scrollTop;       // a move does not move the view
  box.innerHTML = svgText;
  boardZoom();
  box.scrollLeft = left;
  box.scrollTop = top;
}

function pictureScale(svg) {
  // CSS pixels per picture unit as drawn now.
  const width = svg.viewBox.baseVal ? svg.viewBox.baseVal.width : 0;
  return width ? svg.getBoundingClientRect().width / width : 1;
}

function readableScale(svg) {
  // The scale at which the picture's smallest words are READABLE_PX high: each text's font size
  // as drawn now (its size times its on-screen scale), over the picture's scale now.
  let smallest = Infinity;
  for (const t of svg.querySelectorAll("text")) {
    const m = t.getScreenCTM();
    if (!t.textContent.trim() || !m) continue;
    smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b));
  }
  return Number.isFinite(smallest) && smallest > 0 ? pictureScale(svg) * READABLE_PX / smallest : null;
}

function boardZoom() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  svg.style.width = svg.style.height = "";
  svg.classList.remove("zoomed");
  const layout = layoutFor(G.game, svg);
  let scale = G.zoom;
  if (scale === null) scale = layout && layout.readable ? readableScale(svg) : "fit";
  const fit = pictureScale(svg);
  const zoomed = typeof scale === "number" && Math.abs(scale - fit) > 0.01;
  $("board").classList.toggle("zoomed", zoomed);
  if (zoomed) {
    const box = svg.viewBox.baseVal;
    svg.classList.add("zoomed");
    svg.style.width = `${box.width * scale}px`;
    svg.style.height = `${box.height * scale}px`;
  }
}

function zoomBy(factor) {
  // Zoom in or out from what is shown (null: the whole board), keeping the middle of the view.
  const box = $("board"), svg = box.querySelector("svg");
  if (!svg) return;
  const cx = (box.scrollLeft + box.clientWidth / 2) / box.scrollWidth;
  const cy = (box.scrollTop + box.clientHeight / 2) / box.scrollHeight;
  G.zoom = factor === null ? "fit" : Math.max(0.2, Math.min(5, pictureScale(svg) * factor));
  boardZoom();
  box.scrollLeft = cx * box.scrollWidth - box.clientWidth / 2;
  box.scrollTop = cy * box.scrollHeight - box.clientHeight / 2;
}

// ---- set-up: games, options, seats (all from hello) ----
function fillBotSelect(select, value, withPerson, ladder) {
  // The difficulties first (a preset's name), then the other bots by their method, each described
  // in its tooltip (the search's terms are there, not in the list).
  select.replaceChildren();
  if (withPerson) select.append(el("option", { value: "", text: "you" }));
  if (ladder) select.append(el("option", { value: ELO, text: `a bot at a rating (Elo ${ladder.elo.min}–${ladder.elo.max})` }));
  for (const [name, p] of Object.entries(HELLO.presets)) select.append(el("option", { value: name, text: name, title: p.description }));
  const others = el("optgroup", { label: "other bots, by method" });
  for (const [name, b] of Object.entries(HELLO.bots)) others.append(el("option", { value: name, text: name, title: b.description }));
  select.append(others);
  select.value = value;
  if (select.value !== value) select.value = withPerson ? "" : select.options[0].value;   // (a rating no ladder offers now)
}

// ---- the Elo dial: ismcts:elo=R where a shipped ladder covers the game as set up ----
const ELO = "@elo";

function nonDefaultOptions() {
  // The options besides players that differ from their defaults, as a ladder records them.
  const info = HELLO.games[$("game").value];
  const out = {};
  for (const [name, value] of Object.entries(chosenOptions())) {
    if (name !== "players" && JSON.stringify(value) !== JSON.stringify(info.options[name].default)) out[name] = value;
  }
  return out;
}

function sortedJSON(obj) {
  return JSON.stringify(Object.keys(obj).sort().map((k) => [k, obj[k]]));
}

function currentLadder() {
  // The shipped ladder for the chosen game, player count and options, if it names a budget.
  const game = $("game").value, players = playersChosen(), options = sortedJSON(nonDefaultOptions());
  for (const ladder of Object.values(HELLO.ladders || {})) {
    if (ladder.game === game && ladder.players === players && ladder.elo && sortedJSON(ladder.options) === options) {
      return { ...ladder, elo: { min: Math.ceil(ladder.elo.min), max: Math.floor(ladder.elo.max) } };
    }
  }
  return null;
}

function eloInput(i, ladder, value) {
  const mid = Math.min(ladder.elo.max, Math.max(ladder.elo.min, Math.round((ladder.elo.min + ladder.elo.max) / 100) * 50));
  const input = el("input", { type: "number", id: `seat-${i}-elo`, min: ladder.elo.min, max: ladder.elo.max, step: 50,
                              value: value !== undefined ? value : mid });
  input.title = `Elo on the ${ladder.game} ladder for ${ladder.players} players (random = 0), ${ladder.elo.min} to ${ladder.elo.max}`;
  return input;
}

function defaultBot() {
  const presets = Object.keys(HELLO.presets);
  return presets.includes("medium") ? "medium" : presets[0] || Object.keys(HELLO.bots)[0];
}

// ---- an option in words: no engine names, rule codes or None in what the form shows ----
// (the engine's description, its name and its rule stay in the tooltip)
function optionLabel(name) {
  // "hand_size" -> "Hand size"
  const words = name.replace(/_/g, " ");
  return words[0].toUpperCase() + words.slice(1);
}

function valueWords(value) {
  // a choice in words: null -> "none", "new_york" -> "new york"
  return value === null ? "none" : String(value).replace(/_/g, " ");
}

const RULE_CODE = /\s*\((?:variant |module )?[A-Z]\d+(?:\.\d+)?(?:\s*[-–,]\s*[A-Z]?\d+(?:\.\d+)?)*\)/g;

function helpWords(help, names) {
  // An option's description in a person's words: its first sentence or clause, without rule codes
  // in brackets ("(M11-M14)") or quotes round a value; an option named in words ("exchange_limit=None":
  // "exchange limit none"); None, True, False as none, on, off.
  let text = help.split(/;\s|\.\s/)[0].replace(RULE_CODE, "").replace(/(^|[\s(,=])'(\w+)'/g, "$1$2");
  for (const name of names) {
    text = text.replace(new RegExp(`\\b${name}\\b(?:=(\\w+))?`, "g"),
                        (_, v) => optionLabel(name).toLowerCase() + (v ? ` ${valueWords(v === "None" ? null : v)}` : ""));
  }
  return text.replace(/\bNone\b/g, "none").replace(/\bTrue\b/g, "on").replace(/\bFalse\b/g, "off")
    .replace(/\bRECONSTRUCTED\b/g, "reconstructed");
}

function renderOptions() {
  const info = HELLO.games[$("game").value];
  $("game-title").textContent = info.title;
  const box = $("options");
  box.replaceChildren();
  for (const [name, o] of Object.entries(info.options)) {
    let input;
    if (o.kind === "int") {
      // players: two where the game allows (you against one bot, as the guide's first click), not
      // the game's own default
      const value = name === "players" ? Math.max(info.players.min, Math.min(2, info.players.max)) : o.default;
      input = el("input", { type: "number", id: `opt-${name}`, value: value === null ? "" : value, step: 1 });
      if (o.low !== undefined) input.min = o.low;
      if (o.high !== undefined) input.max = o.high;
      if (o.none !== undefined) {   // None allowed: an empty box (its meaning shown as the placeholder)
        input.placeholder = `empty: ${o.none}`;
        input.dataset.none = "1";
      }
    } else if (o.kind === "bool") {
      input = el("input", { type: "checkbox", id: `opt-${name}` });
      input.checked = !!o.default;
    } else if (o.kind === "choice") {
      input = el("select", { id: `opt-${name}` });
      for (const c of o.choices) input.append(el("option", { value: JSON.stringify(c), text: valueWords(c) }));
      input.value = JSON.stringify(o.default);
    } else {
      continue;                     // lists and file paths keep their defaults here
    }
    input.dataset.option = name;
    input.dataset.kind = o.kind;
    input.addEventListener("change", () => renderSeats());       // a ladder is for one option set
    const label = el("label", { class: o.kind === "bool" ? "check" : "",
                                title: `${o.help} (${name}${o.rule ? `, rule ${o.rule}` : ""})` },
                     o.kind === "bool" ? input : `${optionLabel(name)} `, o.kind === "bool" ? ` ${optionLabel(name)}` : input);
    box.append(label, el("div", { class: "help", text: helpWords(o.help, Object.keys(info.options)) }));
  }
  renderSeats();
}

function chosenOptions() {
  const out = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    const kind = input.dataset.kind;
    out[input.dataset.option] = kind === "int" ? (input.value === "" && input.dataset.none ? null : Number(input.value))
      : kind === "bool" ? input.checked : JSON.parse(input.value);
  }
  return out;
}

function playersChosen() {
  const info = HELLO.games[$("game").value];
  const input = $("opt-players");
  const n = input ? Number(input.value) : info.players.min;
  return Math.max(info.players.min, Math.min(info.players.max, n || info.players.min));
}

function renderSeats(count) {
  const n = typeof count === "number" ? count : playersChosen();
  const box = $("seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  const oldElo = [...box.querySelectorAll("select")].map((s) => {
    const input = $(`${s.id}-elo`);
    return input ? input.value : undefined;
  });
  const ladder = currentLadder();
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const select = el("select", { id: `seat-${i}` });
    fillBotSelect(select, i < old.length ? old[i] : (i === 0 ? "" : defaultBot()), true, ladder);
    const label = el("label", {}, `P${i} `, select);
    const dial = () => {
      const input = $(`seat-${i}-elo`);
      if (select.value === ELO && !input) label.append(" Elo ", eloInput(i, ladder, oldElo[i]));
      if (select.value !== ELO && input) { input.previousSibling.remove(); input.remove(); }
    };
    select.addEventListener("change", dial);
    box.append(label);
    dial();
  }
}

function seatsChosen() {
  // A seat's bot spec (null: a person); a rating becomes ismcts:elo=R, kept within the ladder.
  return [...$("seats").querySelectorAll("select")].map((s, i) => {
    if (s.value !== ELO) return s.value || null;
    const input = $(`${s.id}-elo`);
    const r = Math.round(Number(input.value));
    if (input.value === "" || !Number.isFinite(r) || r < Number(input.min) || r > Number(input.max)) {
      throw new Error(`P${i}: a rating from ${input.min} to ${input.max} (Elo, random = 0), got ${input.value || "nothing"}`);
    }
    return `ismcts:elo=${r}`;
  });
}

// ---- playing ----
function viewSeat(summary) {
  const cp = summary.current_player;
  if (cp >= 0 && G.seats[cp] === null) return cp;
  const first = G.seats.indexOf(null);
  return first >= 0 ? first : null;
}

async function startGame() {
  clearError();
  botLimit();                                   // (a bad time per move stops here too)
  const game = $("game").value;
  const options = chosenOptions();
  const typed = $("seed").value.trim();          // empty: a random deal, its seed logged for a replay
  const seed = typed === "" ? randomSeed() : Math.trunc(Number(typed) || 0);
  const seats = seatsChosen();                  // (a bad rating stops here, before the old game is left)
  await leaveGame();
  const summary = await rpc.call("new_game", { game, options, seed });
  G.seats = seats;
  G.recordLabels = null;
  const title = HELLO.games[game].title;
  await enterGame(summary, typed === "" ? `new game of ${title}, seed ${seed} (random: type it as the deal seed to replay)`
    : `new game of ${title}, seed ${seed}`);
}

// A deal seed from the browser's cryptographic generator (0-999999).
function randomSeed() {
  return crypto.getRandomValues(new Uint32Array(1))[0] % 1000000;
}

// Places by return, ties shared (competition ranking): [0.5, 0.5] -> ["=1", "=1"],
// [1, 0.5, 0.5, 0] -> ["1", "=2", "=2", "4"].
function placeLabels(returns) {
  return returns.map((r) => {
    const place = 1 + returns.filter((x) => x > r).length;
    return (returns.filter((x) => x === r).length > 1 ? "=" : "") + place;
  });
}

async function leaveGame() {
  G.epoch++;
  G.moves = [];
  G.zoom = null;
  if (G.id) {
    const old = G.id;
    G.id = null;
    try { await rpc.call("close", { game_id: old }); } catch (e) { /* already gone */ }
  }
}

async function enterGame(summary, what) {
  G.id = summary.game_id;
  G.game = summary.game;
  G.summary = summary;
  G.intro = what;
  listMoves(false);
  $("hints").textContent = "—";
  $("thinking").textContent = "idle";
  $("save").disabled = false;
  $("save-record").disabled = false;
  $("hint-progress").textContent = "";
  G.recent = [];
  closeReview();
  await refresh();
  $("play").scrollIntoView({ block: "start" });   // the board in view (a phone shows the set-up first)
}

function statusLine(s) {
  const unit = SCORE_UNITS[G.game];           // the scores named by what they count
  const heading = unit ? unit[0].toUpperCase() + unit.slice(1) : "Scores";
  const scores = s.scores ? `${heading}: ` + s.scores.map((v, p) => `P${p} ${v}`).join(" · ")
    : `${heading} hidden until the end.`;
  if (s.terminal) {
    const verdict = verdictOf(s);
    const labels = placeLabels(s.returns);
    const places = s.returns.map((r, p) => p).sort((a, b) => s.returns[b] - s.returns[a] || a - b)
      .map((p) => `${labels[p]} P${p}`).join(" · ");
    return `Game over after ${s.ply} moves: ${verdict}. Places: ${places}. ${scores}`;
  }
  const who = G.seats[s.current_player] === null ? "your move" : `${G.seats[s.current_player]} is thinking`;
  return `Move ${s.ply + 1}: P${s.current_player} to move (${who}). ${scores}`;
}

function winnersOf(s) {
  const best = Math.max(...s.returns);
  return s.returns.map((r, p) => (r === best ? p : -1)).filter((p) => p >= 0);
}

function verdictOf(s) {
  // Who won a finished game, and, with one person at the table, whether they did.
  const winners = winnersOf(s);
  const mine = G.seats.map((b, p) => (b === null ? p : -1)).filter((p) => p >= 0);
  let verdict = winners.length === 1 ? `P${winners[0]} wins` : `P${winners.join(", P")} share first place`;
  if (mine.length === 1) verdict += mine[0] === winners[0] && winners.length === 1 ? ": you win"
    : winners.includes(mine[0]) ? ": you share first place" : ": you lose";
  return verdict;
}

// What a game's scores count (the legend and the status line say so): Metro's points,
// Breakthrough's tokens, Metro 2033's victory points.
const SCORE_UNITS = { metro: "points", "metro-solo": "points", breakthrough: "tokens", metro2033: "VP" };

function renderLegend(s) {
  // The seats: colour (the picture's, where it gives one per player), who plays, score, whose turn.
  const svg = $("board").querySelector("svg");
  const colours = svg && svg.dataset.seatColours ? svg.dataset.seatColours.split(",") : [];
  const box = $("legend");
  box.replaceChildren();
  G.seats.forEach((bot, p) => {
    const item = el("span", { class: "seat", "data-seat": p });
    if (colours[p]) item.append(el("span", { class: "swatch", style: `background:${colours[p]}` }));
    item.append(el("b", { text: `P${p}` }), ` ${G.recordLabels ? G.recordLabels[p] : bot === null ? "you" : bot}`);
    if (s.scores && s.scores[p] !== undefined) {
      const unit = SCORE_UNITS[G.game];
      item.append(el("span", { class: "score", text: unit ? ` · ${s.scores[p]} ${unit}` : ` · score ${s.scores[p]}` }));
    }
    if (!s.terminal && s.current_player === p) item.classList.add("to-move");
    if (s.terminal && s.returns && winnersOf(s).includes(p)) {
      item.classList.add("winner");
      item.append(el("b", { text: " · winner" }));
    }
    box.append(item);
  });
}

async function refresh() {
  const epoch = G.epoch;
  const gid = G.id;
  if (!gid) return;
  G.position++;                                 // the position may have changed: the hints shown are old
  retireHints();
  G.reviewPly = null;                           // the game as it stands, not a move walked to
  delete document.body.dataset.reviewPly;
  markPly(null);
  const s = await rpc.call("state", { game_id: gid });
  const pic = await rpc.call("svg", { game_id: gid, seat: viewSeat(s), labels: true });
  if (epoch !== G.epoch) return;
  G.summary = s;
  document.body.dataset.ply = s.ply;
  drawBoard(pic.svg);
  markRecent();
  renderLegend(s);
  $("status").textContent = statusLine(s);
  $("choices").hidden = true;
  $("moves").replaceChildren();
  $("undo").disabled = !s.can_undo;
  $("redo").disabled = !s.can_redo;
  G.legal = [];
  $("review").disabled = !s.terminal || G.reviewing;     // (during play it would judge from hidden cards)
  $("verdict").hidden = !s.terminal;                     // the end of the game where the eye is
  $("walk").hidden = !s.terminal;
  $("verdict").textContent = s.terminal ? `Game over: ${verdictOf(s)}.` : "";
  if (s.terminal) {
    $("hint").disabled = true;
    $("stop").disabled = true;
    listMoves(true);
    setTurn("over");
    return;
  }
  if (G.seats[s.current_player] === null) {
    const legal = await rpc.call("legal_actions", { game_id: gid, labels: true });
    if (epoch !== G.epoch) return;
    G.legal = legal.actions;
    // (the decision in words; a rule's code, "(G6: ...)", is the docs', not the player's)
    G.prompt = legal.prompt ? legal.prompt.replace(/\(([A-Z]\d+(?:\.\d+)?): /g, "(") : null;
    showControls();
    $("hint").disabled = false;
    $("stop").disabled = true;
    setTurn("human");
  } else {
    $("hint").disabled = true;
    botMove(s.current_player, epoch);
  }
}

function markRecent() {
  // The squares of every bot move since a person's last move (the picture frames only the last).
  const svg = $("board").querySelector("svg");
  const layout = svg ? layoutFor(G.game, svg) : null;
  if (!layout || !layout.keyOf) return;
  for (const text of G.recent) {
    const key = layout.keyOf({ text });
    if (key !== null) layout.mark(svg, key).forEach((n) => n.classList.add("recent"));
  }
}

function showControls() {
  const svg = $("board").querySelector("svg");
  const layout = svg ? layoutFor(G.game, svg) : null;
  const byKey = new Map();
  const loose = [];
  if (layout) {
    const names = layout.keysOf ? [...new Set([...svg.querySelectorAll(layout.selector)].map(layout.key))] : [];
    for (const a of G.legal) {
      const keys = layout.keysOf ? layout.keysOf(a, names) : [layout.keyOf(a)].filter((k) => k !== null);
      if (!keys.length) loose.push(a);
      for (const k of keys) {
        if (!byKey.has(k)) byKey.set(k, []);
        byKey.get(k).push(a);
      }
    }
    for (const k of byKey.keys()) layout.mark(svg, k).forEach((n) => n.classList.add("playable"));
    svg.addEventListener("click", (event) => {
      const node = event.target.closest(layout.selector);
      if (!node || !node.classList.contains("playable")) return;
      const actions = byKey.get(layout.key(node)) || [];
      if (actions.length === 1) play(actions[0]);
      else offerChoices(actions, node);
    });
  } else {
    loose.push(...G.legal);
  }
  const box = $("moves");
  if (G.prompt) box.append(el("p", { class: "prompt", text: G.prompt }));
  if (layout && byKey.size) box.append(el("p", { class: "help", text: `Click ${layout.what} to move${loose.length ? ", or:" : "."}` }));
  for (const a of loose) box.append(moveButton(a, "move"));
  if (layout && byKey.size) {
    const all = el("details", {}, el("summary", { text: `every legal action (${G.legal.length})` }));
    for (const a of G.legal) all.append(moveButton(a, "move"));
    box.append(all);
  }
}

function moveButton(action, cls) {
  // The action's words for a person (its label) where the game has them; its engine text as the tooltip.
  const button = el("button", { type: "button", class: cls, "data-action": action.id, onclick: () => play(action),
                                text: action.label || action.text });
  if (action.label && action.label !== action.text) button.title = action.text;
  return button;
}

function offerChoices(actions, node) {
  const box = $("choices");
  $("board").querySelectorAll(".selected").forEach((n) => n.classList.remove("selected"));
  if (node) node.classList.add("selected");
  box.replaceChildren(el("span", { text: "Choose: " }));
  for (const a of actions) box.append(moveButton(a, "choice"));
  box.append(el("button", { type: "button", class: "cancel", text: "cancel",
                            onclick: () => { box.hidden = true; if (node) node.classList.remove("selected"); } }));
  box.hidden = false;
}

function logMove(player, text, by, number) {
  // A move is numbered as the game counts it (its ply after it: move 1 is the first) and kept in
  // G.moves; undo and redo notes are neither.
  if (number === undefined) {
    $("log").append(el("li", { text: `P${player} ${text}${by ? ` (${by})` : ""}` }));
  } else {
    G.moves[number - 1] = { player, text, by };
    $("log").append(moveItem(number - 1, false));
  }
  $("log").scrollTop = $("log").scrollHeight;
}

function moveItem(ply, clickable) {
  // The list's line of move `ply` (0: the first, said "1."); in a finished game a click shows the
  // board before it (showPly), as the review's marks do.
  const m = G.moves[ply];
  const item = el("li", { "data-ply": ply, text: `${ply + 1}. P${m.player} ${m.text}${m.by ? ` (${m.by})` : ""}` });
  if (clickable) item.addEventListener("click", () => guard(showPly)(ply));
  return item;
}

function listMoves(clickable) {
  // The move list as the game stands: the line saying how it began, then each move played (a
  // record's included); `clickable`: once it is over, every move clickable.
  const known = G.moves.slice(0, G.summary.ply).filter(Boolean).length === G.summary.ply;
  const items = known ? G.summary.ply : 0;       // (were a move unknown to this page, none listed)
  $("log").replaceChildren(el("li", { text: G.intro }), ...Array.from({ length: items }, (_, p) => moveItem(p, clickable)));
  $("log").classList.toggle("walk", clickable && items > 0);
  $("log").scrollTop = $("log").scrollHeight;
}

async function play(action) {
  clearError();
  setTurn("busy");
  try {
    const done = await rpc.call("apply", { game_id: G.id, action: action.id });
    G.recent = [];
    logMove(done.player, done.action === action.id && action.label ? action.label : done.text, "", done.state.ply);
  } catch (err) {
    showError(err);
  }
  await refresh();
}

async function botMove(player, epoch) {
  const spec = G.seats[player];
  setTurn("bot");
  G.thinking = true;
  G.search = "bot";
  $("stop").disabled = false;
  $("redo").disabled = true;
  $("thinking").textContent = `P${player} (${spec}) is thinking…`;
  try {
    const limit = botLimit();
    const pause = Number($("bot-pause").value) || 0;       // to follow what the bots do
    if (pause > 0 && G.seats.includes(null)) {
      await new Promise((r) => setTimeout(r, 1000 * pause));
      if (epoch !== G.epoch) return;
    }
    // the move as the person's seat saw it (in words); with nobody seated, the whole table's
    const seat = viewSeat(G.summary);
    const r = await rpc.call("go", { game_id: G.id, bot: spec, apply: true, progress: true, seat,
                                     ...(limit ? { limit } : {}) });
    const text = r.label || r.text;
    $("thinking").textContent = `P${player} (${spec}) played ${text}\n${searchWords(r.iterations, r.seconds)}` +
      (r.iterations && r.mean !== null ? `; ${expectWords(r.mean)}` : "");
    if (r.applied) {
      logMove(r.player, text, spec, r.state.ply);
      G.recent.push(r.text);
    }
  } catch (err) {
    if (epoch === G.epoch) showError(err);
  } finally {
    G.thinking = false;
    G.search = null;
    $("stop").disabled = true;
  }
  if (epoch === G.epoch) await refresh();
}

function botLimit() {
  // The time per move the set-up asks of the bots (seconds), or undefined: each bot's own budget.
  const input = $("bot-time");
  if (input.value === "") return undefined;
  const t = Number(input.value);
  if (!Number.isFinite(t) || t <= 0 || t > 600) {
    throw new Error(`Bot time per move: seconds above 0 and at most 600 (empty: each bot's own budget), got ${input.value}`);
  }
  return { time: t };
}

function searchWords(iterations, seconds) {
  // A search's effort in a person's words: how long, and how many continuations it played out.
  return `${seconds.toFixed(1)} s, ${iterations.toLocaleString("en")} continuations imagined`;
}

function expectWords(mean) {
  // A search's expected return in words: a win chance with others at the table; alone, a share of
  // the best result (the return is a rank: 1 a win, 0 a loss).
  const pct = `${Math.round(100 * mean)}%`;
  return G.seats.length > 1 ? `expects to win ${pct}` : `expects ${pct} of the best result`;
}

rpc.on("progress", (p) => {
  if (p.game_id !== G.id || !G.search) return;
  // (a bot's search seen from a person's seat: how long it thinks, not what: no best move)
  const what = p.mean === null ? "" : `\nbest so far: ${p.best ? p.best.label || p.best.text : "—"}, ${expectWords(p.mean)}`;
  $(G.search === "hint" ? "hint-progress" : "thinking").textContent = `${searchWords(p.iterations, p.seconds)}${what}`;
});

async function stopSearch() {
  if (!G.id || !G.thinking) return;
  try { await rpc.call("stop", { game_id: G.id }); } catch (err) { if (err.code !== -32003) showError(err); }
}

async function undo() {
  clearError();
  if (!G.id) return;
  G.epoch++;                                  // a bot move now running is not followed up
  G.recent = [];
  await stopSearch();
  while (G.thinking) await new Promise((r) => setTimeout(r, 20));
  try {
    // back to the last position where a person was to move
    let s = await rpc.call("undo", { game_id: G.id });
    while (s.can_undo && G.seats[s.current_player] !== null) s = await rpc.call("undo", { game_id: G.id });
    logMove(s.current_player, `takes back to move ${s.ply + 1}`, "undo");
  } catch (err) {
    showError(err);
  }
  await refresh();
}

async function redo() {
  // forward again to the next position where a person is to move (or the end of what was undone)
  clearError();
  if (!G.id || G.thinking) return;
  G.epoch++;
  G.recent = [];
  try {
    let s = await rpc.call("redo", { game_id: G.id });
    while (s.can_redo && !s.terminal && G.seats[s.current_player] !== null) s = await rpc.call("redo", { game_id: G.id });
    logMove(s.current_player, s.terminal ? "replays to the end" : `replays to move ${s.ply + 1}`, "redo");
  } catch (err) {
    showError(err);
  }
  await refresh();
}

async function hint() {
  clearError();
  if (!G.id || G.thinking) return;
  const epoch = G.epoch;
  G.thinking = true;
  G.search = "hint";
  $("hint").disabled = true;
  $("redo").disabled = true;
  $("stop").disabled = false;
  setTurn("hint");
  $("hints").textContent = "thinking…";
  $("hint-progress").textContent = "";
  const position = G.position;                  // the position this hint is for
  try {
    const r = await rpc.call("analyse", { game_id: G.id, bot: $("hint-bot").value, top: 5, progress: true });
    if (epoch !== G.epoch || position !== G.position) return;
    const table = el("table", { "data-position": position },
                     el("tr", {}, el("th", { text: "move" }),
                        el("th", { text: G.seats.length > 1 ? "expects to win" : "expects" }), el("th", { text: "" })));
    for (const a of r.analysis.actions) {
      const action = G.legal.find((x) => x.id === a.action) || { id: a.action, text: a.text };
      const row = el("tr", { class: "hint-row", "data-action": a.action });
      row.addEventListener("mouseenter", () => { if (position === G.position) highlight(action, true); });
      row.addEventListener("mouseleave", () => highlight(action, false));
      table.append(row);
      row.append(el("td", { text: action.label || a.text }), el("td", { text: `${Math.round(100 * a.mean)}%` }),
                 el("td", {}, el("button", { type: "button", class: "hint-play", text: "play",
                                             onclick: () => playHint(action.id, position) })));
    }
    const hidden = G.seats.length > 1 ? "; what it cannot see was imagined, not known" : "";
    $("hints").replaceChildren(el("p", { class: "help", text: `the moves ${r.bot} liked best (${searchWords(r.iterations, r.seconds)}${hidden})` }), table);
  } catch (err) {
    $("hints").textContent = "—";
    showError(err);
  } finally {
    G.thinking = false;
    G.search = null;
    $("stop").disabled = true;
    if (epoch === G.epoch && G.summary && !G.summary.terminal) {
      $("hint").disabled = false;
      setTurn("human");
    }
  }
}

// A hint belongs to the position it was asked for: once the page has read another one (a move,
// undo, redo, a new game), its rows are marked old and their buttons disabled, and playHint
// refuses them even if pressed, so a row can never play its move in another position.
function retireHints() {
  const table = $("hints").querySelector("table");
  if (!table || table.classList.contains("stale")) return;
  table.classList.add("stale");
  table.querySelectorAll("button.hint-play").forEach((b) => { b.disabled = true; });
  $("hints").prepend(el("p", { class: "help stale-note", text: "These hints were for an earlier position: ask again." }));
  $("board").querySelectorAll(".hinted").forEach((n) => n.classList.remove("hinted"));
}

function playHint(id, position) {
  // The hint's move, played only in the position it was given for, as that position's legal action.
  const action = G.legal.find((a) => a.id === id);
  if (position !== G.position || !action || G.thinking || !G.id) {
    showError(new Error("That hint was for an earlier position: ask for a new hint."));
    return undefined;
  }
  return play(action);
}

function highlight(action, on) {
  // A hint row under the pointer marks its square (card, station) on the picture.
  const svg = $("board").querySelector("svg");
  const layout = svg ? layoutFor(G.game, svg) : null;
  if (!layout) return;
  const names = layout.keysOf ? [...new Set([...svg.querySelectorAll(layout.selector)].map(layout.key))] : [];
  const keys = layout.keysOf ? layout.keysOf(action, names) : [layout.keyOf(action)].filter((k) => k !== null);
  for (const k of keys) layout.mark(svg, k).forEach((n) => n.classList.toggle("hinted", on));
}

// ---- the review (docs/guide/review.md): once the game is over ----
async function reviewGame() {
  clearError();
  if (!G.id || G.reviewing || !(G.summary && G.summary.terminal)) return;
  G.reviewing = true;
  $("review").disabled = true;
  $("review-panel").hidden = false;
  $("review-status").textContent = `reviewing with ${$("hint-bot").value}…`;
  document.body.dataset.review = "running";
  try {
    const r = await rpc.call("review", { game_id: G.id, bot: $("hint-bot").value, progress: true });
    G.review = r.review;
    showReview();
    document.body.dataset.review = "done";
  } catch (err) {
    document.body.dataset.review = "failed";
    showError(err);
  } finally {
    G.reviewing = false;
    $("review").disabled = !(G.summary && G.summary.terminal);
  }
}

rpc.on("review_progress", (p) => {
  $("review-status").textContent = `reviewing: ${p.done} of ${p.total} searches, ${p.seconds.toFixed(1)} s`;
});

const MARK_WORDS = { inaccuracy: ["inaccuracy", "inaccuracies"], mistake: ["mistake", "mistakes"],
                     blunder: ["blunder", "blunders"] };
const MARK_COLOURS = { inaccuracy: "#e0b000", mistake: "#e07000", blunder: "#d00000" };

function seatName(p) {
  // (a loaded record's seats are named as the record names them)
  const who = G.recordLabels ? G.recordLabels[p] : G.seats[p] === null ? "you" : G.seats[p];
  return `P${p} (${who})`;
}

function points(v) {
  // A change in win chance in points (percentage points, signed): 0.07 -> "+7".
  const p = Math.round(100 * v);
  return `${p < 0 ? "−" : "+"}${Math.abs(p)}`;
}

function luckWords(chance) {
  // A chance entry's luck for each seat it moved, in points of win chance (none: null).
  const parts = chance.luck.map((l, p) => (Math.round(100 * l) ? `${seatName(p)} ${points(l)}` : null)).filter(Boolean);
  return parts.length ? `${parts.join(", ")} points of win chance` : null;
}

function showReview() {
  const rv = G.review;
  const marked = rv.decisions.filter((d) => MARK_WORDS[d.mark]);
  $("review-status").textContent = `Review by ${rv.bot}: ${rv.decisions.length} decisions, ${marked.length} marked.`;
  const players = $("review-players");
  players.replaceChildren();
  for (const p of rv.players) {
    const counts = Object.entries(MARK_WORDS).map(([m, w]) => `${p.marks[m]} ${w[p.marks[m] === 1 ? 0 : 1]}`).join(", ");
    const acc = p.accuracy === null ? "–" : p.accuracy.toFixed(0);
    players.append(el("p", { "data-seat": p.seat,
      text: `${seatName(p.seat)}: accuracy ${acc}, luck ${points(p.luck)} points of win chance; ${counts}` }));
  }
  const list = $("review-marks");
  list.replaceChildren();
  for (const d of marked) {
    list.append(el("li", { "data-ply": d.ply, onclick: () => guard(showPly)(d.ply),
      text: `move ${d.ply + 1}, ${seatName(d.player)}: ${d.mark}: played ${playedWords(d)}, better ${bestWords(d)} ` +
            `(win chance ${Math.round(100 * d.value_best)}% → ${Math.round(100 * d.value_played)}%${pointsLost(d)})` }));
  }
  drawGraph(rv, marked);
  markPly(G.reviewPly);
}

function playedWords(d) {
  // The move a decision played, in the words the move list used for it.
  return (G.moves[d.ply] && G.moves[d.ply].text) || d.played_words || d.played_text;
}

function bestWords(d) {
  // The review's better move in a person's words (Metro 2033's without station ids).
  return d.best_words || d.best_text;
}

function pointsLost(d) {
  // The loss in the game's own points, where the review could value it.
  if (d.loss_points === null || d.loss_points === undefined) return "";
  const n = Math.round(Math.abs(d.loss_points));
  return d.loss_points >= 0 ? `, about ${n} point${n === 1 ? "" : "s"} given up` : `, though it scores about ${n} more`;
}

function drawGraph(rv, marked) {
  // Each seat's win chance over the game (its value at its decisions), the marked moves as dots,
  // the luck of the draws as ticks along the bottom (pointed at: whose luck, how much); a dot or
  // a tick clicked shows the board then. Drawn at the width it is shown (one unit a CSS pixel),
  // so its words are as large on a phone as on a desktop.
  const W = Math.max(300, Math.min(640, Math.round($("review-graph").clientWidth) || 600));
  const H = 180, L = 38, B = 22, T = 8;
  const plies = rv.win_chance.length ? rv.win_chance[0].length - 1 : 0;
  const x = (ply) => L + (W - L - 8) * (plies ? ply / plies : 0);
  const y = (v) => T + (H - T - B) * (1 - v);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", W);
  const add = (tag, attrs, text, parent) => {
    const n = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    (parent || svg).append(n);
    return n;
  };
  for (const v of [0, 0.5, 1]) {
    add("line", { x1: L, x2: W - 8, y1: y(v), y2: y(v), stroke: "#ddd" });
    add("text", { x: 2, y: y(v) + 4, "font-size": 12, fill: "#666" }, `${100 * v}%`);
  }
  const board = $("board").querySelector("svg");
  const colours = board && board.dataset.seatColours ? board.dataset.seatColours.split(",") : [];
  const palette = ["#c0392b", "#2471a3", "#229954", "#b7950b", "#7d3c98", "#ca6f1e"];
  rv.seats.forEach((seat) => {
    const points = rv.win_chance[seat].map((v, ply) => (v === null ? null : `${x(ply).toFixed(1)},${y(v).toFixed(1)}`))
      .filter((p) => p !== null);
    add("polyline", { class: "seat-line", "data-seat": seat, points: points.join(" "), fill: "none",
                      stroke: colours[seat] || palette[seat % palette.length], "stroke-width": 2 });
  });
  add("line", { class: "now", x1: 0, x2: 0, y1: T, y2: H - B, stroke: "#333", "stroke-dasharray": "3 3", visibility: "hidden" });
  for (const c of rv.chances) {
    const words = luckWords(c);
    const tick = add("g", { class: "luck", "data-ply": c.ply });
    add("rect", { x: x(c.ply) - 4, y: H - B - 2, width: 8, height: 12, fill: "transparent" }, undefined, tick);
    add("line", { x1: x(c.ply), x2: x(c.ply), y1: H - B, y2: H - B + 7, stroke: words ? "#555" : "#bbb",
                  "stroke-width": words ? 2 : 1 }, undefined, tick);
    add("title", {}, `luck at move ${c.ply + 1}: ${words || "none to speak of"}`, tick);
    tick.addEventListener("click", () => guard(showPly)(c.ply));
  }
  for (const d of marked) {
    const dot = add("circle", { class: "mark", "data-ply": d.ply, cx: x(d.ply), cy: y(d.value_played), r: 5,
                                fill: MARK_COLOURS[d.mark], stroke: "#333" });
    dot.addEventListener("click", () => guard(showPly)(d.ply));
    add("title", {}, `move ${d.ply + 1}: ${d.mark}`, dot);
  }
  add("text", { x: L, y: H - 2, "font-size": 12, fill: "#666" }, "moves → (ticks: the luck of the draws)");
  G.graphX = x;
  $("review-graph").replaceChildren(svg);
}

function markPly(ply) {
  // The move shown, marked in the move list, the marked moves and on the graph (null: none).
  for (const li of document.querySelectorAll("#log li[data-ply], #review-marks li")) {
    li.classList.toggle("current", ply !== null && Number(li.dataset.ply) === ply);
  }
  const now = document.querySelector("#review-graph line.now");
  if (now) {
    now.setAttribute("visibility", ply === null ? "hidden" : "visible");
    if (ply !== null) { now.setAttribute("x1", G.graphX(ply)); now.setAttribute("x2", G.graphX(ply)); }
  }
  const log = $("log"), item = ply === null ? null : log.querySelector(`li[data-ply="${ply}"]`);
  if (item && (item.offsetTop < log.scrollTop || item.offsetTop + item.offsetHeight > log.scrollTop + log.clientHeight)) {
    log.scrollTop = item.offsetTop - log.clientHeight / 2;      // in view within the list (the page stays put)
  }
}

async function showPly(ply) {
  // Once the game is over, the board before move `ply + 1` (the move before it marked), the
  // move played there; with a review, its mark and the review's best (its square outlined where
  // the picture has squares) and the luck counted there.
  if (!G.id || !(G.summary && G.summary.terminal)) return;
  const plies = G.summary.ply;
  ply = Math.max(0, Math.min(plies, ply));
  G.reviewPly = ply;                          // (the next key press walks on from here at once)
  const pic = await rpc.call("svg", { game_id: G.id, ply, seat: viewSeat(G.summary), labels: true });
  if (G.reviewPly !== ply) return;            // walked on meanwhile
  document.body.dataset.reviewPly = ply;
  drawBoard(pic.svg);
  renderLegend({ ...G.summary, scores: null, terminal: true });     // (the final scores are not this position's)
  const rv = G.review;
  const d = rv ? rv.decisions.find((x) => x.ply === ply) : null;
  const m = G.moves[ply];
  let line = ply < plies ? `Review: the position before move ${ply + 1} of ${plies}.` : `Review: the end of the game, after move ${plies}.`;
  if (d) line += ` ${seatName(d.player)} played ${playedWords(d)} (${d.mark}); the review's best: ${bestWords(d)}.`;
  else if (m && ply < plies) line += ` ${seatName(m.player)} played ${m.text}.`;
  const chance = rv ? rv.chances.find((c) => c.ply === ply) : null;
  const luck = chance ? luckWords(chance) : null;
  $("status").textContent = line;
  if (luck) $("status").append(el("span", { class: "luck", text: ` Luck of the draws since each one's previous move: ${luck}.` }));
  $("moves").replaceChildren();
  markPly(ply);
  const seen = $("board").getBoundingClientRect();
  if (seen.bottom < 0 || seen.top > innerHeight) $("play").scrollIntoView({ block: "start" });   // (a phone's list is far below)
  const svg = $("board").querySelector("svg");
  const layout = svg ? layoutFor(G.game, svg) : null;
  if (d && layout && layout.keyOf && d.best !== d.played) {
    const key = layout.keyOf({ text: d.best_text });
    if (key !== null) layout.mark(svg, key).forEach((n) => n.classList.add("better"));
  }
}

function closeReview() {
  G.review = null;
  G.reviewPly = null;
  delete document.body.dataset.reviewPly;
  delete document.body.dataset.review;
  $("review-panel").hidden = true;
}

function walk(step) {
  // Once the game is over, a move back or on from the move shown (from the end at first).
  if (!G.id || !(G.summary && G.summary.terminal)) return;
  guard(showPly)((G.reviewPly === null ? G.summary.ply : G.reviewPly) + step);
}

document.addEventListener("keydown", (event) => {
  // the arrow keys walk a finished game, as the buttons ◀ ▶ do (on a phone)
  if (event.target.closest("input, select, textarea") || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
  if (!G.id || !(G.summary && G.summary.terminal)) return;
  event.preventDefault();
  walk(event.key === "ArrowRight" ? 1 : -1);
});

async function saveRecord() {
  clearError();
  if (!G.id) return;
  const r = await rpc.call("save", { game_id: G.id });
  if (!r.record) throw new Error("a game loaded from a saved position has no record (no deal to replay): Save it instead");
  download(JSON.stringify(r.record), `metro-ai-${G.game}-${r.record.seed}-record.json`);
}

function download(text, name) {
  const blob = new Blob([text], { type: "application/json" });
  const link = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

async function save() {
  clearError();
  if (!G.id) return;
  try {
    const r = await rpc.call("save", { game_id: G.id });
    download(JSON.stringify(r.state, null, 1), `metro-ai-${G.game}-ply${G.summary.ply}.json`);
  } catch (err) {
    showError(err);
  }
}

async function load(file) {
  clearError();
  try {
    const text = await file.text();
    let record = null;
    try { record = JSON.parse(text); } catch (err) { record = null; }    // (load_state says what is wrong)
    if (record && record.format === "metro-ai-match") return await loadRecord(record, file.name);
    await leaveGame();
    const summary = await rpc.call("load_state", { state: text });
    G.recordLabels = null;
    const players = summary.options.players;
    if ($("game").value !== summary.game) {
      $("game").value = summary.game;
      renderOptions();
    }
    const input = $("opt-players");
    if (input) input.value = players;
    renderSeats(players);
    G.seats = seatsChosen();
    await enterGame(summary, `loaded ${file.name}`);
  } catch (err) {
    showError(err);
  } finally {
    $("load-file").value = "";
  }
}

async function loadRecord(record, name) {
  // A game's record: its deal dealt again and its moves played, every seat yours (the bots that
  // played it are not asked again); a finished game can be reviewed at once.
  await leaveGame();
  let summary = await rpc.call("new_game", { game: record.game, options: record.options || {}, seed: record.seed });
  const by = record.bots || [];
  for (const move of record.actions || []) {
    // each move in words, as the page says a move played here (Metro 2033's station names, not ids)
    const legal = await rpc.call("legal_actions", { game_id: summary.game_id, text: false, labels: true });
    const seen = legal.actions.find((a) => a.id === move.action);
    const done = await rpc.call("apply", { game_id: summary.game_id, action: move.action });
    G.moves.push({ player: done.player, text: (seen && seen.label) || done.text, by: by[done.player] });
    summary = done.state;
  }
  if ($("game").value !== summary.game) {
    $("game").value = summary.game;
    renderOptions();
  }
  const players = summary.options.players;
  const input = $("opt-players");
  if (input && players) input.value = players;
  G.seats = Array.from({ length: (record.bots || []).length || players || 1 }, () => null);
  G.recordLabels = (record.bots || []).length === G.seats.length ? record.bots.map(String) : null;
  await enterGame(summary, `loaded the record ${name} (${(record.actions || []).length} moves)`);
}

function guard(f) {
  return (...args) => f(...args).catch(showError);
}

function start() {
  const token = pageToken();
  if (!token) {
    $("connection").textContent = "no token: open the address metro-ai web printed (it ends in ?token=...)";
    $("status").textContent = "This page needs the server's token: open the address metro-ai web printed.";
    setTurn("disconnected");
    return;
  }
  rpc.connect(token, guard(async () => {
    HELLO = await rpc.call("hello", { client: "metro-ai web" });
    $("connection").textContent = `connected: ${HELLO.server} ${HELLO.version}, protocol ${HELLO.protocol_version}`;
    const select = $("game");
    for (const [name, info] of Object.entries(HELLO.games)) select.append(el("option", { value: name, text: info.title }));
    if (HELLO.games.metro) select.value = "metro";            // the game most people come for
    select.addEventListener("change", renderOptions);
    renderOptions();
    fillBotSelect($("hint-bot"), Object.keys(HELLO.presets).includes("hard") ? "hard" : defaultBot(), false);
    $("new-game").disabled = false;
    $("status").textContent = "Choose a game and press New game.";
    setTurn("setup");
  }), () => {
    $("connection").textContent = "disconnected: open the address metro-ai web printed (restart it if it stopped)";
    setTurn("disconnected");
  });
  $("new-game").addEventListener("click", guard(startGame));
  $("undo").addEventListener("click", guard(undo));
  $("redo").addEventListener("click", guard(redo));
  $("hint").addEventListener("click", guard(hint));
  $("stop").addEventListener("click", guard(stopSearch));
  $("save").addEventListener("click", guard(save));
  $("save-record").addEventListener("click", guard(saveRecord));
  $("review").addEventListener("click", guard(reviewGame));
  $("walk-back").addEventListener("click", () => walk(-1));
  $("walk-on").addEventListener("click", () => walk(1));
  $("zoom-in").addEventListener("click", () => zoomBy(ZOOM_STEP));
  $("zoom-out").addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
  $("zoom-fit").addEventListener("click", () => zoomBy(null));
  $("review-back").addEventListener("click", guard(refresh));
  $("load-file").addEventListener("change", (e) => { if (e.target.files.length) guard(load)(e.target.files[0]); });
}

start();
