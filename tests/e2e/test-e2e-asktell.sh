#!/usr/bin/env bash
# End-to-end test of one writer per session file, with the real programs:
#   1. `skewgp new` creates a session; `skewbench --session` opens it and
#      holds its write lock and stores the question on its screen as the
#      session's open question: `skewgp ask` prints that question (reading
#      needs no lock), `skewgp tell` is refused with exit 2 naming
#      skewbench, and the file is byte-identical afterwards;
#   2. after the app quits (SIGTERM), the lock is free: ask/tell work;
#   3. `skewbench --follow` shows the file read-only while a script answers
#      three questions with ask/tell: the app follows every answer ("followed:
#      N answers" in its debug log), writes nothing, and the file holds
#      every answer the script gave.
# Output: TAP only. Skips without a display or xdotool.
# Usage: test-e2e-asktell.sh PATH-TO-skewbench PATH-TO-skewgp
set -u
app=${1:-}; skewgp=${2:-}
skip_all () { echo "1..0 # SKIP $1"; exit 0; }
[ -x "$app" ] && [ -x "$skewgp" ] || skip_all "skewbench / skewgp not given"
command -v xdotool >/dev/null 2>&1 || skip_all "xdotool is not installed"
[ -n "${DISPLAY:-}" ] || skip_all "no X display (run under xvfb-run; build-aux/run-tests does)"

tmp=$(mktemp -d)
pid=
xdotool search --sync --name "sb-e2e-keepalive-$$" >/dev/null 2>&1 &
keepalive=$!
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; kill "$keepalive" 2>/dev/null; rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
export GTK_A11Y=none NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory DBUS_SESSION_BUS_ADDRESS=disabled:
export GSK_RENDERER=${GSK_RENDERER:-cairo}
export G_MESSAGES_DEBUG='SkewBench skewbench skewbench-core'

n=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
wait_log () {  # FILE PATTERN: up to 300 s (a loaded 2-core machine)
  local i
  for i in $(seq 3000); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# Answers the open question for a participant who prefers larger x.
answer_one () {
  local q id chosen
  q=$("$skewgp" ask "$session") || return 1
  id=$(printf '%s' "$q" | tr -d ' \n' | sed 's/.*"question":\([0-9]*\).*/\1/')
  chosen=$(printf '%s' "$q" | tr -d ' \n' | sed 's/.*"options":\[\[\([^],]*\)[^]]*\],\[\([^],]*\).*/\1 \2/' \
           | awk '{print ($1 >= $2) ? 0 : 1}')
  echo "{\"question\": $id, \"answer\": {\"chosen\": $chosen}}" | "$skewgp" tell "$session" -
}

echo "1..6"
session="$tmp/study.json"
cat > "$tmp/exp.json" <<'JSON'
{"title": "Lock test", "mode": "preference",
 "parameters": [{"name": "x", "lower": 0, "upper": 1}],
 "budget": 10, "seed": 3}
JSON
"$skewgp" new "$tmp/exp.json" "$session" >/dev/null || { not_ok "skewgp new"; exit 0; }

# ---- 1. the app holds the lock ------------------------------------------------
"$app" --session "$session" >"$tmp/app1.log" 2>&1 &
pid=$!
wait_log "$tmp/app1.log" "question 1 shown"
cp "$session" "$tmp/before.json"
"$skewgp" ask "$session" >"$tmp/ask.out" 2>"$tmp/ask.err"; rc_ask=$?
echo '{"question": 1, "answer": {"chosen": 0}}' | "$skewgp" tell "$session" - >/dev/null 2>"$tmp/tell.err"; rc_tell=$?
if [ $rc_ask = 0 ] && grep -Eq '"(id|question)": ?1[,}]' "$tmp/ask.out" && [ $rc_tell = 2 ] && grep -q skewbench "$tmp/tell.err"; then
  ok "while the app runs the session, skewgp ask shows its open question and tell is refused naming it"
else
  not_ok "while the app runs the session, skewgp ask shows its open question and tell is refused naming it" \
    "ask $rc_ask: $(cat "$tmp/ask.err")" "tell $rc_tell: $(cat "$tmp/tell.err")"
fi
if cmp -s "$session" "$tmp/before.json"; then ok "the refused writers changed nothing"; else not_ok "the refused writers changed nothing"; fi

# ---- 2. the lock is released when the app quits ------------------------------
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
if [ $rc = 0 ] && answer_one >/dev/null 2>"$tmp/one.err"; then
  ok "after the app quit, ask and tell work"
else
  not_ok "after the app quit, ask and tell work" "app status $rc" "$(cat "$tmp/one.err")"
fi

# ---- 3. the app follows a script's answers ---------------------------------------
"$app" --follow "$session" >"$tmp/app2.log" 2>&1 &
pid=$!
# the app watches the file before the script answers (not a fixed delay)
wait_log "$tmp/app2.log" "following "
status=0
for i in 1 2 3; do answer_one >/dev/null 2>>"$tmp/three.err" || status=1; done
if [ $status = 0 ]; then ok "three more answers by ask/tell while the app follows"; else not_ok "three more answers by ask/tell while the app follows" "$(cat "$tmp/three.err")"; fi
if wait_log "$tmp/app2.log" "followed: 4 answers"; then
  ok "the following app saw every answer (4)"
else
  not_ok "the following app saw every answer (4)" "$(grep followed "$tmp/app2.log" | tail -n 3)"
fi
kill -TERM "$pid"; wait "$pid"; pid=
answers=$("$skewgp" status "$session" | tr -d ' \n' | sed 's/.*"answers":\([0-9]*\).*/\1/')
if [ "$answers" = 4 ]; then ok "the file holds the 4 answers the script gave"; else not_ok "the file holds the 4 answers" "status says $answers"; fi
