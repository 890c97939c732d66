#!/usr/bin/env bash
# An Arena protocol v1 bot over stdio, in bash + jq: plays any game by picking an option index.
#
# Usage: random_bot.sh [--seed N] [--rule random|first|hash]
#   random  a uniformly random option, from bash's $RANDOM seeded with N and the seat (default);
#   first   always option 0;
#   hash    option (seq * 7 + seat) % count: deterministic, the same rule as the Node and C++
#           sample bots.
#
# Run it as `stdio:sample_bots/stdio/random_bot.sh`. The referee's messages arrive on stdin, one
# JSON object per line; ours go to stdout the same way (and nothing else may: logs go to stderr).
# One long-running jq turns each incoming line into tab-separated fields that bash reads.
set -euo pipefail

seed=0
rule=random
while (($#)); do
  case "$1" in
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    --seed=*) seed=${1#*=}; shift ;;
    --rule) rule=${2:?--rule needs a value}; shift 2 ;;
    --rule=*) rule=${1#*=}; shift ;;
    *) echo "usage: random_bot.sh [--seed N] [--rule random|first|hash] (bad: $1)" >&2; exit 2 ;;
  esac
done
[[ $seed =~ ^[0-9]+$ ]] || { echo "random_bot.sh: --seed must be a non-negative integer" >&2; exit 2; }
case "$rule" in random | first | hash) ;; *) echo "random_bot.sh: unknown rule $rule" >&2; exit 2 ;; esac

log() { printf 'random_bot.sh: %s\n' "$*" >&2; }

# hello: jq builds it so that the token and name are escaped correctly.
jq -cn --arg token "${ARENA_TOKEN:?ARENA_TOKEN is not set: bots are started by the referee}" \
  --arg name "${ARENA_BOT_NAME:-bash_random_bot}" \
  '{v: 1, type: "hello", versions: [1], token: $token, name: $name[:64], lang: "bash",
    bot_version: "1.0.0"}'

seat=${ARENA_SEAT:-0}

# Fields per message: type, seq, number of options, seat, fatal, code, message. None may be empty
# (read would merge adjacent tabs), and @tsv escapes tabs and newlines inside the message. jq stops
# after game_over or a fatal error, so the pipeline ends when the loop does.
# (label/break rather than halt: jq 1.6's halt only ends the current input, not the program.)
jq -n --unbuffered -r '
  def text: if . == null or . == "" then "-" else tostring end;
  label $done | inputs
  | ([.type, (.seq // -1), ((.options // []) | length), (.seat // -1), (.fatal // false),
      (.code | text), (.message | text)] | @tsv),
    (if .type == "game_over" or (.type == "error" and .fatal == true) then break $done
     else empty end)
' | {
  while IFS=$'\t' read -r type seq count msg_seat fatal code message; do
    case "$type" in
      welcome)
        seat=$msg_seat
        RANDOM=$((seed * 1000 + seat)) # seeds bash's generator: one stream per (seed, seat)
        ;;
      turn)
        case "$rule" in
          first) choice=0 ;;
          hash) choice=$(((seq * 7 + seat) % count)) ;;
          *) choice=$((((RANDOM << 15) | RANDOM) % count)) ;; # 30 bits: negligible bias
        esac
        printf '{"v":1,"type":"action","seq":%d,"choice":%d}\n' "$seq" "$choice"
        ;;
      game_over)
        log "game over"
        exit 0
        ;;
      error)
        log "referee error $code: $message"
        [[ $fatal == true ]] && exit 1
        ;;
      *) log "ignoring a message of type $type" ;;
    esac
  done
  exit 1 # the referee closed our stdin without game_over
}
