#!/usr/bin/env bash
# End-to-end test of the real binary under X (Xvfb in build-aux/run-tests):
#   1. start `skewbench --session FILE` on a file that does not exist (it is
#      created from the demo), answer duels with real key presses (xdotool:
#      5 one by one, each after its question is shown, then a burst of 5:
#      a key pressed while the next question is computed is refused, never
#      recorded against a question the person has not seen), quit with
#      Ctrl+Q; the file must hold exactly the answers the app took, in
#      order, and the app must reopen it;
#   2. answer a burst of duels and SIGKILL the process right after the last
#      key press: every key the app received was either taken ("answer N
#      taken" in its debug log, logged after the atomic save) or refused
#      ("answer refused"), and every taken answer must be in the file, which
#      must still open;
#   3. SIGTERM quits cleanly (status 0) with every answer on disk.
# Output: TAP only. Skips (TAP "1..0 # SKIP") without a display or xdotool.
# Usage: test-e2e-duels.sh PATH-TO-skewbench
set -u

app=${1:-}
plan=10

skip_all () { echo "1..0 # SKIP $1"; exit 0; }
[ -n "$app" ] && [ -x "$app" ] || skip_all "skewbench binary not given"
command -v xdotool >/dev/null 2>&1 || skip_all "xdotool is not installed"
[ -n "${DISPLAY:-}" ] || skip_all "no X display (run under xvfb-run; build-aux/run-tests does)"
xdotool getmouselocation >/dev/null 2>&1 || skip_all "cannot talk to the X display"

tmp=$(mktemp -d)
pid=
# Xvfb resets itself whenever its last client disconnects (after each run
# of the app), and refuses connections meanwhile: a client that waits for
# a window that never appears keeps the server up for the whole test.
xdotool search --sync --name "sb-e2e-keepalive-$$" >/dev/null 2>&1 &
keepalive=$!
cleanup () {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  kill "$keepalive" 2>/dev/null
  [ -n "${SB_E2E_KEEP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export GTK_A11Y=none NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory DBUS_SESSION_BUS_ADDRESS=disabled:
# No GPU under Xvfb: the Cairo renderer instead of llvmpipe GL.
export GSK_RENDERER=${GSK_RENDERER:-cairo}
export G_MESSAGES_DEBUG='SkewBench skewbench skewbench-core'

n=0
t_start=$(date +%s%N)
elapsed () { echo "$(( ($(date +%s%N) - t_start) / 1000000 )) ms"; }
ok () { n=$((n + 1)); echo "ok $n - $1"; echo "# at $(elapsed)"; }
not_ok () { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# The window of PID (waits up to 30 s).
find_window () {
  local i w
  for i in $(seq 300); do
    w=$(xdotool search --onlyvisible --pid "$1" --name '.' 2>/dev/null | head -n 1)
    if [ -n "$w" ]; then echo "$w"; return 0; fi
    sleep 0.1
  done
  return 1
}

# Waits until window $win is titled like the experiment (the session is
# loaded and the window is drawn), then lets it settle.
wait_title () {
  local i
  for i in $(seq 100); do
    [ "$(xdotool getwindowname "$win" 2>/dev/null)" = "Favourite colour" ] && { sleep 0.5; return 0; }
    sleep 0.1
  done
  return 1
}

# Duels in the log (each with its time; the open question, also a duel,
# has none).
count_answers () { grep -A1 -E '"kind" ?: "duel"' "$1" 2>/dev/null | grep -c '"time"' || true; }
# What the app's log says: answers taken (with their winners, in order),
# keys refused.
taken () { grep -c 'answer [0-9]* taken' "$1" 2>/dev/null || true; }
taken_winners () { grep -o 'answer [0-9]* taken ([ab])' "$1" 2>/dev/null | sed 's/.*(\([ab]\))/\1/' | tr -d '\n'; }
refused () { grep -c 'answer refused' "$1" 2>/dev/null || true; }
# Waits until LOG says question N is shown (60 s).
wait_question () {
  local i
  for i in $(seq 600); do
    grep -q "question $2 shown" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
winners () { grep -oE '"winner" ?: "[ab]"' "$1" 2>/dev/null | sed 's/.*"\([ab]\)"/\1/' | tr -d '\n'; }

# Waits until FILE holds N duel answers (60 s).
wait_answers () {
  local i
  for i in $(seq 600); do
    [ "$(count_answers "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# Keyboard focus to our window (no window manager under Xvfb), then the key.
press () {
  xdotool windowfocus "$win" 2>/dev/null
  xdotool key --window "$win" --clearmodifiers "$1" 2>/dev/null
}

# Xvfb resets when its last client disconnects (e.g. after a SIGKILL); wait
# until it accepts connections again before starting the next client.
wait_display () {
  local i
  for i in $(seq 100); do
    xdotool getmouselocation >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
focus () { xdotool windowactivate --sync "$win" >/dev/null 2>&1 || xdotool windowfocus --sync "$win" >/dev/null 2>&1; }

echo "1..$plan"

# ---- 1. ten answers by key presses, quit with Ctrl+Q -----------------------
session="$tmp/sessions/colour.json"
"$app" --session "$session" >"$tmp/app1.log" 2>&1 &
pid=$!
if win=$(find_window "$pid") && wait_title; then ok "the window appears"; else not_ok "the window appears" "$(tail -n 5 "$tmp/app1.log")"; fi
focus

keys=(Left Right a b Right Left Right b a Left)
status=0
wait_question "$tmp/app1.log" 1 || status=1
for i in 0 1 2 3 4; do
  press "${keys[$i]}"
  wait_answers "$session" $((i + 1)) || { status=1; break; }
  wait_question "$tmp/app1.log" $((i + 2)) || { status=1; break; }
done
if [ $status = 0 ]; then ok "5 key presses, each after its question, give 5 saved answers"; else not_ok "5 key presses, each after its question, give 5 saved answers" "file has $(count_answers "$session")"; fi
for i in 5 6 7 8 9; do press "${keys[$i]}"; done
sleep 1
t=$(taken "$tmp/app1.log"); r=$(refused "$tmp/app1.log")
if [ "$t" -ge 6 ] && [ $((t + r)) = 10 ] && [ "$(count_answers "$session")" = "$t" ]; then
  ok "a burst of 5 keys: each taken (on disk) or refused while computing ($t taken, $r refused)"
else
  not_ok "a burst of 5 keys: each taken or refused" "taken $t, refused $r, file $(count_answers "$session")"
fi
expect=$(taken_winners "$tmp/app1.log")
n_expect=$t

press ctrl+q
for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
# The app quits on the key press, before the release reaches it: make sure
# the X server does not keep Ctrl+Q held (auto-repeat would quit the next
# app that gets the focus).
xdotool keyup ctrl q Control_L 2>/dev/null
if kill -0 "$pid" 2>/dev/null; then
  not_ok "Ctrl+Q quits" "still running after 10 s" "$(grep -v 'answer [0-9]* saved' "$tmp/app1.log" | tail -n 5)"
  kill -9 "$pid"; wait "$pid" 2>/dev/null
else
  wait "$pid"; rc=$?
  if [ $rc = 0 ]; then ok "Ctrl+Q quits (status 0)"; else not_ok "Ctrl+Q quits (status 0)" "status $rc"; fi
fi
pid=

got=$(winners "$session")
if [ "$(count_answers "$session")" = "$n_expect" ] && [ "$got" = "$expect" ]; then
  ok "the file holds the $n_expect answers taken, in order ($got)"
else
  not_ok "the file holds the answers taken, in order" "expected $expect, got $got ($(count_answers "$session") duels)"
fi

# Reopen: the window shows the experiment (a refused file would title the
# window "SkewBench"), and SIGTERM quits cleanly leaving every answer.
wait_display
"$app" --session "$session" >"$tmp/app2.log" 2>&1 &
pid=$!
title=
if win=$(find_window "$pid"); then
  for i in $(seq 50); do
    title=$(xdotool getwindowname "$win" 2>/dev/null)
    [ "$title" = "Favourite colour" ] && break
    sleep 0.1
  done
  # Quitting by key was tested above; a key sent in the first moments
  # after a window maps (no window manager) can reach the next client.
  wait_question "$tmp/app2.log" $((n_expect + 1))
  kill -TERM "$pid" 2>/dev/null
fi
for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
rc=killed
if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; wait "$pid" 2>/dev/null; else wait "$pid"; rc=$?; fi
pid=
if [ "$title" = "Favourite colour" ] && [ "$(count_answers "$session")" = "$n_expect" ]; then
  ok "the session reopens with its $n_expect answers"
else
  not_ok "the session reopens with its answers" "title '$title', $(count_answers "$session") duels" "$(tail -n 3 "$tmp/app2.log")"
fi
if [ "$rc" = 0 ] && grep -q 'quit by signal' "$tmp/app2.log"; then
  ok "SIGTERM quits cleanly (status 0)"
else
  not_ok "SIGTERM quits cleanly (status 0)" "status $rc" "$(tail -n 3 "$tmp/app2.log")"
fi

# ---- 2. SIGKILL right after a burst of answers --------------------------------
session2="$tmp/sessions/killed.json"
wait_display
"$app" --session "$session2" >"$tmp/app3.log" 2>&1 &
pid=$!
win=$(find_window "$pid") && wait_title || true
focus
# Answer two (each after its question), then a burst of six and kill.
wait_question "$tmp/app3.log" 1
press Left; wait_answers "$session2" 1; wait_question "$tmp/app3.log" 2
press Right; wait_answers "$session2" 2; wait_question "$tmp/app3.log" 3
for k in Left Right Left Right Left Right; do press "$k"; done
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=
t=$(taken "$tmp/app3.log"); r=$(refused "$tmp/app3.log")
saved=$(count_answers "$session2")
# The kill can fall between an answer's save and its log line: the file
# may hold one answer more than the log says were taken, never fewer.
if [ "$t" -ge 2 ] && [ "$saved" -ge "$t" ] && [ "$saved" -le $((t + 1)) ] && [ $((t + r)) -le 8 ]; then
  ok "after SIGKILL the file holds every answer the app took ($saved saved, $t taken, $r refused)"
else
  not_ok "after SIGKILL the file holds every answer the app took" "saved $saved, taken $t, refused $r" \
    "$(grep -v 'taken\|refused\|shown' "$tmp/app3.log" | tail -n 5)"
fi
kw=$(winners "$session2")
case "$kw" in "$(taken_winners "$tmp/app3.log")"*) prefix=yes;; *) prefix=no;; esac
if [ "$saved" -gt 0 ] && [ $prefix = yes ]; then
  ok "the surviving answers are the ones taken, in order ($kw)"
else
  not_ok "the surviving answers are the ones taken, in order" "file $kw, log $(taken_winners "$tmp/app3.log")"
fi

wait_display
"$app" --session "$session2" >"$tmp/app4.log" 2>&1 &
pid=$!
title=
if win=$(find_window "$pid"); then
  for i in $(seq 50); do
    title=$(xdotool getwindowname "$win" 2>/dev/null)
    [ "$title" = "Favourite colour" ] && break
    sleep 0.1
  done
fi
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
if [ "$title" = "Favourite colour" ]; then
  ok "the killed session reopens"
else
  not_ok "the killed session reopens" "title '$title'" "$(tail -n 3 "$tmp/app4.log")"
fi
