#!/bin/sh
# ask-tell-study.sh — a 25-question preference study run from a shell
# loop with `skewgp new / ask / tell / status / export`, answered by a
# simulated participant whose utility is known:
#
#     u(x, y) = -(x - 0.3)^2 - (y + 0.2)^2      (best setting: x = 0.3, y = -0.2)
#
# Replace the function `answer` by your own presentation of the two
# options (a stimulus on screen, a device on the bench) and your
# participant's choice; the rest stays as it is.
#
# Usage: examples/ask-tell-study.sh [SESSION.json [RESULTS.csv]]
#   SESSION.json   the session file to create (default: in a temporary
#                  directory); open it in SkewBench to watch the study
#   RESULTS.csv    where to write the answers (default: next to the session)
# Environment: SKEWGP, the skewgp program (default: skewgp on the PATH).
# Prints the final status (JSON) on standard output, progress on stderr.
# Needs only a POSIX shell, skewgp, sed, tr and awk.
set -eu

SKEWGP=${SKEWGP:-skewgp}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
session=${1:-$work/study.json}
results=${2:-${session%.json}.csv}

# 1. The experiment: two parameters, 25 duels, a fixed seed.
cat > "$work/experiment.json" <<'JSON'
{
  "title": "Shell example: a known utility",
  "mode": "preference",
  "parameters": [
    {"name": "x", "lower": -1, "upper": 1},
    {"name": "y", "lower": -1, "upper": 1, "unit": "mm"}
  ],
  "budget": 25,
  "question": {"kind": "duel", "options": 2},
  "seed": 7
}
JSON
"$SKEWGP" new "$work/experiment.json" "$session" >/dev/null

# The simulated participant: given the options ("x,y" per line, in the
# order of "options"), prints the index of the preferred one.
answer() {
  awk -F, '{ u = -($1 - 0.3)^2 - ($2 + 0.2)^2
             if (NR == 1 || u > best) { best = u; chosen = NR - 1 } }
           END { print chosen }'
}

# 2. Ask, present, tell, until the budget is used.
while :; do
  question=$("$SKEWGP" ask "$session" | tr -d ' \n')
  case $question in *'"done":true'*) break ;; esac
  id=$(printf '%s\n' "$question" | sed 's/.*"question":\([0-9]*\).*/\1/')
  # "options":[[x0,y0],[x1,y1]] -> one option per line
  options=$(printf '%s\n' "$question" | sed 's/.*"options":\[\[\(.*\)\]\].*/\1/' \
            | sed 's/\],\[/\n/g')
  # Show the options in "shown_order" (which side the current best is on
  # is random); the answer is the index into "options" all the same.
  order=$(printf '%s\n' "$question" | sed 's/.*"shown_order":\[\([0-9,]*\)\].*/\1/')
  start=$(date +%s)
  chosen=$(printf '%s\n' "$options" | answer)
  elapsed=$(( $(date +%s) - start ))
  printf 'question %s: options shown in order %s, chose %s\n' "$id" "$order" "$chosen" >&2
  printf '{"question": %s, "answer": {"chosen": %s}, "response_time": %s}\n' \
         "$id" "$chosen" "$elapsed" | "$SKEWGP" tell "$session" - >/dev/null
done

# 3. The result and the data.
"$SKEWGP" export "$session" -o "$results"
printf 'answers written to %s\n' "$results" >&2
"$SKEWGP" status "$session"
