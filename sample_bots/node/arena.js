'use strict';
/**
 * Arena protocol v1 for Node.js bots: give `run` an object with a `choose(turn)` method.
 *
 *     const { run } = require('./arena');
 *     run({ choose: (turn) => 0 }).then((code) => { process.exitCode = code; });
 *
 * `run` reads ARENA_ENDPOINT and ARENA_TOKEN from the environment (the referee sets them),
 * connects a ZeroMQ DEALER (one msgpack map per frame) or, when ARENA_TRANSPORT=pipe, uses
 * length-prefixed msgpack on stdin/stdout, or when it is stdio one JSON object per line there;
 * says hello, answers every `turn` with the index returned
 * by `bot.choose(turn)` and resolves after `game_over`. Optional hooks:
 *   bot.onWelcome(welcome)          once, before the first turn (welcome.seat is the seat);
 *   bot.onGameOver(outcome, status) at the end;
 * `choose` may return a Promise. See protocol/PROTOCOL.md for the message fields.
 */

const PROTOCOL_VERSION = 1;
const MAX_NAME_LEN = 64;
const MAX_INBOUND = 64 << 20; // the largest referee message read over the pipe

function hello(token, name, lang = 'javascript', botVersion = '') {
  const msg = {
    v: PROTOCOL_VERSION,
    type: 'hello',
    versions: [PROTOCOL_VERSION],
    token,
    name: String(name).slice(0, MAX_NAME_LEN),
    lang,
  };
  if (botVersion) msg.bot_version = botVersion;
  return msg;
}

function action(seq, choice) {
  return { v: PROTOCOL_VERSION, type: 'action', seq, choice };
}

/** Frames over a ZeroMQ DEALER; LINGER lets the last message leave before the socket closes. */
class ZmqLink {
  constructor(endpoint) {
    const zmq = require('zeromq');
    this.msgpack = require('@msgpack/msgpack');
    this.sock = new zmq.Dealer({ linger: 1000 });
    this.sock.connect(endpoint);
  }

  async send(msg) {
    await this.sock.send(this.msgpack.encode(msg));
  }

  async recv() {
    const [frame] = await this.sock.receive();
    return this.msgpack.decode(frame);
  }

  close() {
    this.sock.close();
  }
}

/** JSON lines; console.log is sent to stderr so that stdout carries protocol lines only. */
class StdioLink {
  constructor() {
    const readline = require('readline');
    this.rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    this.lines = this.rl[Symbol.asyncIterator]();
    console.log = console.info = console.debug = console.error;
  }

  async send(msg) {
    // JSON.stringify escapes control characters, so the line holds no raw newline.
    // Writes to a pipe are synchronous on Linux: the line is out when this returns.
    process.stdout.write(JSON.stringify(msg) + '\n');
  }

  async recv() {
    const { value, done } = await this.lines.next();
    return done ? null : JSON.parse(value);
  }

  close() {
    this.rl.close();
    process.stdin.destroy();
  }
}

/**
 * Length-prefixed msgpack (the `pipe` transport): a 4-byte big-endian length, then one msgpack
 * map. console.log is sent to stderr so that stdout carries protocol messages only.
 */
class PipeLink {
  constructor() {
    this.msgpack = require('@msgpack/msgpack');
    this.buffered = Buffer.alloc(0);
    this.waiting = null; // the resolve of a recv() waiting for bytes
    this.ended = false;
    process.stdin.on('data', (chunk) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake();
    });
    process.stdin.on('end', () => {
      this.ended = true;
      this.wake();
    });
    console.log = console.info = console.debug = console.error;
  }

  wake() {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve();
    }
  }

  async send(msg) {
    const body = this.msgpack.encode(msg);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    process.stdout.write(Buffer.concat([head, body]));
  }

  async recv() {
    for (;;) {
      if (this.buffered.length >= 4) {
        const size = this.buffered.readUInt32BE(0);
        if (size > MAX_INBOUND) throw new Error(`a referee message of ${size} bytes`);
        if (this.buffered.length >= 4 + size) {
          const body = this.buffered.subarray(4, 4 + size);
          this.buffered = this.buffered.subarray(4 + size);
          return this.msgpack.decode(body);
        }
      }
      if (this.ended) return null;
      await new Promise((resolve) => { this.waiting = resolve; });
    }
  }

  close() {
    process.stdin.destroy();
  }
}

const LINKS = { stdio: StdioLink, pipe: PipeLink };

/**
 * Play one match as `bot`; resolves to an exit code: 0 after game_over, 1 after a fatal error
 * or if the referee went away.
 */
async function run(bot, options = {}) {
  const env = process.env;
  const token = options.token ?? env.ARENA_TOKEN;
  if (token === undefined) throw new Error('ARENA_TOKEN is not set: bots are started by the referee');
  const name = options.name || env.ARENA_BOT_NAME || bot.name || 'node_bot';
  const Link = options.endpoint ? null : LINKS[env.ARENA_TRANSPORT];
  const link = Link ? new Link() : new ZmqLink(options.endpoint || env.ARENA_ENDPOINT);
  try {
    await link.send(hello(token, name, 'javascript', options.botVersion || ''));
    for (;;) {
      const msg = await link.recv();
      if (msg === null) return 1;
      switch (msg.type) {
        case 'welcome':
          if (bot.onWelcome) bot.onWelcome(msg);
          break;
        case 'turn': {
          const choice = await bot.choose(msg);
          await link.send(action(msg.seq, Math.trunc(choice)));
          break;
        }
        case 'game_over':
          if (bot.onGameOver) bot.onGameOver(msg.outcome, msg.you && msg.you.status);
          return 0;
        case 'error':
          console.error(`referee error ${msg.code}: ${msg.message}`);
          if (msg.fatal) return 1;
          break;
        default:
          console.error(`ignoring a message of type ${msg.type}`);
      }
    }
  } finally {
    link.close();
  }
}

/** A small seeded generator (mulberry32): returns floats in [0, 1). */
function seededRandom(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = { PROTOCOL_VERSION, hello, action, run, seededRandom };
