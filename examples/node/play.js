#!/usr/bin/env node
// A sample client of the metro-ai protocol (docs/protocol.md) in Node's standard library only:
// it starts `metro-ai serve`, asks which games there are (hello), and plays one full game of
// each between a bot (seat 0, via `go`) and random legal moves (the other seats, via `apply`),
// then prints each result.
//
//   node examples/node/play.js [--serve "COMMAND ..."] [--bot SPEC] [--seed N] [--players N]
//
// --serve: the command that starts the server (default: .venv/bin/metro-ai serve if it exists,
// else `python3 -m metro_ai serve`); also METRO_AI_SERVE. --bot: the bot spec of seat 0
// (default: ismcts:iterations=200). Exit code 0 when every game was played to its end.
// Over stdio the client is the program that started the server, so no token is needed; a client
// of `metro-ai serve --ws` connects to the address it prints, ?token=... included (docs/security.md).
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const readline = require("readline");

function parseArgs(argv) {
  const out = { serve: process.env.METRO_AI_SERVE || null, bot: "ismcts:iterations=200", seed: 1, players: 2 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in out) || i + 1 >= argv.length) {
      throw new Error(`unknown or incomplete option ${argv[i]}`);
    }
    out[key] = argv[++i];
  }
  out.seed = Number(out.seed);
  out.players = Number(out.players);
  return out;
}

function defaultServe() {
  const venv = path.resolve(__dirname, "..", "..", ".venv", "bin", "metro-ai");
  return fs.existsSync(venv) ? [venv, "serve"] : ["python3", "-m", "metro_ai", "serve"];
}

// A JSON-RPC client over a child process: one message per line each way. The server's progress
// notifications go to `onProgress` (ignored by default); docs/tutorials/embed.js shows them.
class Client {
  constructor(command, onProgress = () => {}) {
    this.child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    this.onProgress = onProgress;
    this.nextId = 1;
    this.pending = new Map();
    this.child.on("error", (err) => this.failAll(err));
    this.child.on("exit", (code) => this.failAll(new Error(`the server exited (code ${code})`)));
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => this.receive(line));
  }

  receive(line) {
    const message = JSON.parse(line);
    if (message.method === "progress") return this.onProgress(message.params);
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.error) {
      waiter.reject(new Error(`${message.error.message} (code ${message.error.code})`));
    } else {
      waiter.resolve(message.result);
    }
  }

  failAll(err) {
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }

  call(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  close() {
    this.child.stdin.end();                             // end of input: the server exits
  }
}

// A seeded generator (mulberry32), so that the random seats play the same game every run.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function playOne(client, game, info, args) {
  const players = Math.min(Math.max(args.players, info.players.min), info.players.max);
  const { game_id: id } = await client.call("new_game", { game, options: { players }, seed: args.seed });
  const rand = random(args.seed);
  let state = await client.call("state", { game_id: id });
  let moves = 0;
  while (!state.terminal) {
    if (state.current_player === 0) {
      const go = await client.call("go", { game_id: id, bot: args.bot, apply: true, progress: false });
      state = go.state;
    } else {
      const { actions } = await client.call("legal_actions", { game_id: id, text: false });
      const pick = actions[Math.floor(rand() * actions.length)];
      state = (await client.call("apply", { game_id: id, action: pick.id })).state;
    }
    moves++;
  }
  const saved = await client.call("save", { game_id: id });
  await client.call("close", { game_id: id });
  return { game, players, moves, scores: state.scores, returns: state.returns, record: saved.record };
}

// Places by return, ties shared (competition ranking): [0.5, 0.5] -> ["=1", "=1"],
// [1, 0.5, 0.5, 0] -> ["1", "=2", "=2", "4"].
function places(returns) {
  return returns.map((r) => {
    const place = 1 + returns.filter((x) => x > r).length;
    return (returns.filter((x) => x === r).length > 1 ? "=" : "") + place;
  });
}

// What seat `seat` did: "wins", "ties for first with seat 1", "loses (place 3)" ...
function verdict(returns, seat) {
  const place = places(returns)[seat];
  const best = Math.max(...returns);
  const tied = returns.map((r, p) => (r === returns[seat] && p !== seat ? p : -1)).filter((p) => p >= 0);
  if (returns[seat] === best) {
    return tied.length ? `ties for first with seat ${tied.join(", seat ")}` : "wins";
  }
  return `loses (place ${place})`;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const command = args.serve ? args.serve.split(" ").filter(Boolean) : defaultServe();
  const client = new Client(command);
  try {
    const hello = await client.call("hello", { client: "examples/node/play.js" });
    console.log(`${hello.server} ${hello.version}, protocol ${hello.protocol_version}; ` +
                `games: ${Object.keys(hello.games).join(", ")}`);
    for (const [game, info] of Object.entries(hello.games)) {
      const r = await playOne(client, game, info, args);
      console.log(`${game}: ${r.players} players, ${r.moves} moves; scores ${r.scores.join(" / ")}; ` +
                  `returns ${r.returns.map((x) => x.toFixed(2)).join(" / ")}; ` +
                  `places ${places(r.returns).join(" / ")}; seat 0 (${args.bot}) ${verdict(r.returns, 0)}; ` +
                  `record of ${r.record.actions.length} actions`);
    }
  } finally {
    client.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(`play.js: ${err.message}`);
    process.exit(1);
  });
}

module.exports = { Client, random, places, verdict };
