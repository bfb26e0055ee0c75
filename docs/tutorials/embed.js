#!/usr/bin/env node
// You against a metro-ai bot over the protocol (docs/protocol.md), in Node's standard library
// only: the game loop of docs/tutorials/embed.py, with the engine and the bot in a `metro-ai
// serve` subprocess. On your turn: what your seat sees and the legal actions, numbered; type a
// number or the action in words. On the bot's turn: `go` with a time limit, its progress
// notifications on one line, and Enter (an empty line) sends `stop`: the best move so far.
//
//   node docs/tutorials/embed.js [--serve "metro-ai serve"] [--game leduc] [--players 2]
//        [--bot ismcts] [--time 3] [--seed 1] [--auto first|random] [--move-now-after SECONDS]
//
// --auto plays your seat by itself (the first legal action, or a seeded random one) and
// --move-now-after sends `stop` that many seconds into each search, so that it runs without a
// person. Exit code 0 when the game was played to its end.
"use strict";

const readline = require("readline");
// The protocol client (JSON-RPC over the server's stdin and stdout, one message a line, progress
// notifications handed to a callback) and the seeded generator of the repository's sample client.
const { Client, random } = require("../../examples/node/play.js");

function parseArgs(argv) {
  const out = { serve: "metro-ai serve", game: "leduc", players: 2, bot: "ismcts", time: 3, seed: 1,
                auto: null, "move-now-after": null };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in out) || i + 1 >= argv.length) throw new Error(`unknown or incomplete option ${argv[i]}`);
    out[key] = argv[++i];
  }
  for (const key of ["players", "time", "seed"]) out[key] = Number(out[key]);
  if (out["move-now-after"] !== null) out["move-now-after"] = Number(out["move-now-after"]);
  return out;
}

// The lines a person types: `next()` waits for one (null once the input has ended); `pressed()`
// takes an empty line (Enter) if one is waiting, and leaves a move typed ahead for its turn.
class Keyboard {
  constructor() {
    this.lines = [];
    this.ended = false;
    this.wake = () => {};
    const rl = readline.createInterface({ input: process.stdin });
    rl.on("line", (line) => { this.lines.push(line.trim()); this.wake(); });
    rl.on("close", () => { this.ended = true; this.wake(); });
  }

  async next() {
    while (!this.lines.length && !this.ended) await new Promise((resolve) => { this.wake = resolve; });
    return this.lines.length ? this.lines.shift() : null;
  }

  pressed() {
    if (this.lines.length && this.lines[0] === "") {
      this.lines.shift();
      return true;
    }
    return false;
  }
}

// The person's move: an action id, or a text for the server to read; null to quit.
async function readMove(client, id, seat, keyboard) {
  const { observation } = await client.call("observation", { game_id: id, seat });
  const { game, options, ...seen } = observation;
  console.log(`\nyou see: ${JSON.stringify(seen)}`);
  const { actions } = await client.call("legal_actions", { game_id: id });
  console.log(actions.map((a, i) => `${String(i + 1).padStart(3)}. ${a.text}`).join("  "));
  for (;;) {
    process.stdout.write("your move (a number, the action in words, or quit): ");
    const text = await keyboard.next();
    if (text === null || text === "quit") return null;
    const number = Number(text);
    if (text && Number.isInteger(number) && number >= 1 && number <= actions.length) return actions[number - 1].id;
    if (text) return text;
  }
}

// The bot's move: `go` (applied by the server), and `stop` on Enter or after --move-now-after.
async function botMove(client, id, args, keyboard) {
  const going = client.call("go", { game_id: id, bot: args.bot, limit: { time: args.time }, apply: true,
                                    progress: true });
  const started = Date.now();
  let stopping = null;
  const watch = setInterval(() => {
    const late = args["move-now-after"] !== null && Date.now() - started >= 1000 * args["move-now-after"];
    if (!stopping && ((keyboard && keyboard.pressed()) || late)) {
      stopping = client.call("stop", { game_id: id }).catch(() => null);   // -32003: it had just ended
    }
  }, 50);
  try {
    const result = await going;
    await stopping;
    return result;
  } finally {
    clearInterval(watch);
    process.stderr.write("\r\x1b[K");       // clear the progress line
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const client = new Client(args.serve.split(" ").filter(Boolean), (p) => {
    const best = p.best ? `${p.best.text} (${Math.round(100 * p.share)}% of visits)` : "-";
    process.stderr.write(`\r\x1b[K  ${p.iterations.toLocaleString("en")} iterations, best so far: ${best}`);
  });
  const keyboard = args.auto ? null : new Keyboard();
  const rand = random(args.seed);
  const seat = 0;
  try {
    const hello = await client.call("hello", { client: "docs/tutorials/embed.js" });
    let state = await client.call("new_game", { game: args.game, options: { players: args.players }, seed: args.seed });
    const id = state.game_id;
    console.log(`${hello.games[args.game].title} on ${hello.server} ${hello.version}: you are P${seat}, ` +
                `${args.bot} plays the others` + (keyboard ? "; press Enter while it thinks to make it move now" : ""));
    while (!state.terminal) {
      const player = state.current_player;
      if (player === seat) {
        let move;
        if (keyboard) {
          move = await readMove(client, id, seat, keyboard);
          if (move === null) {
            console.log("you left the game");
            return;
          }
        } else {
          const { actions } = await client.call("legal_actions", { game_id: id, text: false });
          move = actions[args.auto === "first" ? 0 : Math.floor(rand() * actions.length)].id;
        }
        try {
          const applied = await client.call("apply", { game_id: id, action: move });
          console.log(`P${player} (you) plays ${applied.text}`);
          state = applied.state;
        } catch (err) {
          console.log(err.message);                 // an illegal or unreadable move: ask again
        }
      } else {
        const go = await botMove(client, id, args, keyboard);
        console.log(`P${player} (${args.bot}) plays ${go.text}` +
                    (go.iterations ? ` after ${go.iterations.toLocaleString("en")} iterations in ${go.seconds.toFixed(2)} s` : "") +
                    (go.stopped ? ", moved now" : ""));
        state = go.state;
      }
    }
    const best = Math.max(...state.returns);
    const verdict = state.returns[seat] < best ? "you lose"
      : state.returns.filter((r) => r === best).length > 1 ? "you share first place" : "you win";
    console.log(`final scores: ${state.scores.map((s, p) => `P${p} ${s}`).join(", ")}; ${verdict}`);
  } finally {
    client.close();
    if (keyboard) process.stdin.destroy();
  }
}

main().catch((err) => {
  console.error(`embed.js: ${err.message}`);
  process.exit(1);
});
