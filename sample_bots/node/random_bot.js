#!/usr/bin/env node
'use strict';
/**
 * Plays any Arena game by picking an option index, over ZeroMQ (or stdio, if the referee says so).
 *
 * Usage: random_bot.js [--seed N] [--rule random|first|hash]
 *   random  a uniformly random option, from a generator seeded with N and the seat (default);
 *   first   always option 0;
 *   hash    option (seq * 7 + seat) % count: deterministic, and the same rule as the C++ and
 *           stdio sample bots, so matches between them can be compared transport for transport.
 */

const { run, seededRandom } = require('./arena');

const RULES = ['random', 'first', 'hash'];

function parseArgs(argv) {
  const args = { seed: 0, rule: 'random' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [key, inline] = arg.split(/=(.*)/s, 2);
    const value = inline !== undefined ? inline : argv[++i];
    if (key === '--seed' && /^-?\d+$/.test(value ?? '')) args.seed = Number(value);
    else if (key === '--rule' && RULES.includes(value)) args.rule = value;
    else {
      console.error(`usage: random_bot.js [--seed N] [--rule ${RULES.join('|')}] (bad: ${arg} ${value ?? ''})`);
      process.exit(2);
    }
  }
  return args;
}

class RandomBot {
  constructor({ seed, rule }) {
    this.seed = seed;
    this.rule = rule;
    this.seat = Number(process.env.ARENA_SEAT || 0);
    this.random = seededRandom(seed);
  }

  onWelcome(welcome) {
    this.seat = welcome.seat;
    this.random = seededRandom(Math.imul(this.seed, 1000003) + this.seat);
  }

  choose(turn) {
    const count = turn.options.length;
    if (this.rule === 'first') return 0;
    if (this.rule === 'hash') return (turn.seq * 7 + this.seat) % count;
    return Math.floor(this.random() * count);
  }

  onGameOver(outcome, status) {
    console.error(`game over: ${status}, scores ${JSON.stringify(outcome.scores)}`);
  }
}

const bot = new RandomBot(parseArgs(process.argv.slice(2)));
run(bot, { botVersion: '1.0.0' }).then(
  (code) => {
    process.exitCode = code;
    // Exit now if anything (a lingering socket) would keep the event loop alive.
    setTimeout(() => process.exit(code), 100).unref();
  },
  (err) => {
    console.error(err && err.stack ? err.stack : err);
    process.exit(1);
  },
);
