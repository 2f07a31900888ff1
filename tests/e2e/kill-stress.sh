#!/usr/bin/env bash
# SIGKILL at random moments: starts `skewbench --session FILE` under X (run
# it under xvfb-run), presses answer keys at random intervals and kills
# the app with SIGKILL at a random moment, RUNS times. Every key the app
# received is logged as taken ("answer N taken", written after the answer
# is on disk) or refused; an answer is lost when the file holds fewer
# answers than the app took, or other ones. Prints one line per run and a
# summary table (tests/bench/results-fuzz.md keeps the latest).
# Usage: xvfb-run -a tests/e2e/kill-stress.sh build/app/skewbench [RUNS] [SEED]
set -u

app=${1:?usage: kill-stress.sh PATH-TO-skewbench [RUNS] [SEED]}
runs=${2:-40}
RANDOM=${3:-1}
command -v xdotool >/dev/null || { echo "kill-stress: xdotool is not installed" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export GTK_A11Y=none NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory DBUS_SESSION_BUS_ADDRESS=disabled:
export GSK_RENDERER=${GSK_RENDERER:-cairo}
export G_MESSAGES_DEBUG='skewbench skewbench-core'

# Xvfb resets when its last client leaves: keep one client connected.
xdotool search --sync --name "sb-kill-keepalive-$$" >/dev/null 2>&1 &
keepalive=$!
trap 'kill $keepalive 2>/dev/null; rm -rf "$tmp"' EXIT

duels () { grep -A1 -E '"kind" ?: "duel"' "$1" 2>/dev/null | grep -c '"time"' || true; }
file_winners () { grep -oE '"winner" ?: "[ab]"' "$1" 2>/dev/null | sed 's/.*"\([ab]\)"/\1/' | tr -d '\n'; }
log_winners () { grep -o 'answer [0-9]* taken ([ab])' "$1" | sed 's/.*(\([ab]\))/\1/' | tr -d '\n'; }

total_keys=0; total_taken=0; total_refused=0; total_saved=0; lost=0; mismatched=0
for run in $(seq "$runs"); do
  session="$tmp/s$run.json"
  log="$tmp/app$run.log"
  "$app" --session "$session" >"$log" 2>&1 &
  pid=$!
  win=
  for i in $(seq 300); do
    win=$(xdotool search --onlyvisible --pid "$pid" --name '.' 2>/dev/null | head -n 1)
    [ -n "$win" ] && break
    sleep 0.1
  done
  for i in $(seq 100); do grep -q 'question 1 shown' "$log" && break; sleep 0.05; done
  # Random keys at random intervals (0-250 ms) for a random time
  # (0.2-4 s), then SIGKILL with no warning.
  deadline=$(( $(date +%s%N) / 1000000 + 200 + RANDOM % 3800 ))
  keys=0
  while [ $(( $(date +%s%N) / 1000000 )) -lt "$deadline" ]; do
    xdotool windowfocus "$win" 2>/dev/null
    if [ $((RANDOM % 2)) = 0 ]; then k=Left; else k=Right; fi
    xdotool key --window "$win" "$k" 2>/dev/null
    keys=$((keys + 1))
    sleep "0.$(printf '%03d' $((RANDOM % 250)))"
  done
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  taken=$(grep -c 'answer [0-9]* taken' "$log"); refused=$(grep -c 'answer refused' "$log")
  saved=$(duels "$session")
  fw=$(file_winners "$session"); lw=$(log_winners "$log")
  # The last answer may be on disk before its log line was written.
  status=ok
  if [ "$saved" -lt "$taken" ]; then status=LOST; lost=$((lost + taken - saved)); fi
  case "$fw" in "$lw"*) ;; *) status="${status},MISMATCH"; mismatched=$((mismatched + 1));; esac
  echo "run $run: $keys keys sent, $taken taken, $refused refused, $saved in the file: $status"
  total_keys=$((total_keys + keys)); total_taken=$((total_taken + taken))
  total_refused=$((total_refused + refused)); total_saved=$((total_saved + saved))
  rm -f "$session" "$log"
done
kill $keepalive 2>/dev/null

echo
echo "| runs | keys sent | answers taken | keys refused | answers in the files | answers lost | runs with other answers |"
echo "|---|---|---|---|---|---|---|"
echo "| $runs | $total_keys | $total_taken | $total_refused | $total_saved | $lost | $mismatched |"
[ "$lost" = 0 ] && [ "$mismatched" = 0 ]
