#!/bin/sh
# ask-tell-study-many.sh — a hierarchical study with many participants
# (200 by default) run through `skewgp study / ask / tell / refit` from a
# shell loop, as a lab with many bench machines or a web front end of its
# own would run it. The participants take turns (one question each per
# round, the way people at several machines interleave); each is a
# simulated person whose best setting is the population's plus an offset
# of their own:
#
#     u_p(x, y) = -(x - 0.3 - d_p)^2 - (y + 0.2 + d_p)^2,  d_p in [-0.1, 0.1]
#
# A question never waits for a fit: `skewgp refit STUDY --if-due` runs in
# the background whenever a round ends (a cron job does the same), and
# `ask` uses the newest population cache it finds with each participant's
# own answers exactly. Every `ask` and `tell` is timed (wall clock, this
# shell's date); the end prints the median, 95th percentile and maximum.
#
# Usage: examples/ask-tell-study-many.sh [STUDY [PARTICIPANTS [ANSWERS]]]
#   STUDY          the study folder to create (default: a temporary one)
#   PARTICIPANTS   how many people (default 200)
#   ANSWERS        duels per person (default 10; the study's budget)
# Environment: SKEWGP, the skewgp program (default: skewgp on the PATH).
# Prints the timing summary and the study's status (JSON) on standard
# output, progress on stderr. Needs a POSIX shell, skewgp, sed, tr, awk,
# sort and GNU date (%N).
set -eu

SKEWGP=${SKEWGP:-skewgp}
work=$(mktemp -d)
refit_pid=
cleanup() {
  [ -n "$refit_pid" ] && wait "$refit_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
study=${1:-$work/study}
people=${2:-200}
answers=${3:-10}

# 1. The experiment and the study: duels in two parameters, hierarchical.
cat > "$work/experiment.json" <<JSON
{
  "title": "Shell example: $people people, one population",
  "mode": "preference",
  "parameters": [
    {"name": "x", "lower": -1, "upper": 1},
    {"name": "y", "lower": -1, "upper": 1}
  ],
  "budget": $answers,
  "initial": 4,
  "question": {"kind": "duel", "options": 2},
  "seed": 11
}
JSON
"$SKEWGP" study new "$work/experiment.json" "$study" --repeat-rate 0 >/dev/null
codes=
i=0
while [ "$i" -lt "$people" ]; do
  code=$("$SKEWGP" study add "$study" | tr -d ' \n' | sed 's/.*"participant":"\([^"]*\)".*/\1/')
  codes="$codes $code"
  i=$((i + 1))
done
printf '%s participants added to %s\n' "$people" "$study" >&2

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# The simulated person P (its index) answers the duel on stdin ("x,y" per
# line): prints the index of the option it prefers.
answer() {
  awk -F, -v p="$1" -v n="$people" '
    BEGIN { d = n > 1 ? -0.1 + 0.2 * p / (n - 1) : 0 }
    { u = -($1 - 0.3 - d)^2 - ($2 + 0.2 + d)^2
      if (NR == 1 || u > best) { best = u; chosen = NR - 1 } }
    END { print chosen }'
}

# 2. Rounds: every participant answers one question per round.
round=0
while [ "$round" -lt "$answers" ]; do
  p=0
  for code in $codes; do
    t0=$(now_ms)
    q=$("$SKEWGP" ask "$study" --participant "$code" | tr -d ' \n')
    t1=$(now_ms)
    case $q in *'"done":true'*) p=$((p + 1)); continue ;; esac
    id=$(printf '%s\n' "$q" | sed 's/.*"question":\([0-9]*\).*/\1/')
    chosen=$(printf '%s\n' "$q" | sed 's/.*"options":\[\[\(.*\)\]\].*/\1/' \
             | sed 's/\],\[/\n/g' | answer "$p")
    t2=$(now_ms)
    printf '{"question": %s, "answer": {"chosen": %s}}\n' "$id" "$chosen" \
      | "$SKEWGP" tell "$study" --participant "$code" - >/dev/null
    t3=$(now_ms)
    echo "ask $((t1 - t0))" >> "$work/times"
    echo "tell $((t3 - t2))" >> "$work/times"
    p=$((p + 1))
  done
  round=$((round + 1))
  printf 'round %s of %s done\n' "$round" "$answers" >&2
  # The population cache, beside the questions: one refit at a time.
  if [ -z "$refit_pid" ] || ! kill -0 "$refit_pid" 2>/dev/null; then
    "$SKEWGP" refit "$study" --if-due >/dev/null 2>"$work/refit.err" &
    refit_pid=$!
  fi
done
wait "$refit_pid" 2>/dev/null || true
refit_pid=

# 3. How long people waited, and the study.
for what in ask tell; do
  grep "^$what " "$work/times" | cut -d' ' -f2 | sort -n | awk -v what="$what" '
    { t[NR] = $1 }
    END { p95 = t[int(0.95 * NR + 0.999)]
          printf "%s: %d commands, median %d ms, p95 %d ms, max %d ms\n",
                 what, NR, t[int((NR + 1) / 2)], p95, t[NR] }'
done
"$SKEWGP" status "$study"
