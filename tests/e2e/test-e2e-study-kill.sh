#!/usr/bin/env bash
# End-to-end: a study of several participants answered by a script through
# `skewgp ask/tell --participant`, with every program SIGKILLed at random
# moments (adding a participant, asking, telling, removing an answer):
#   - every answer whose `skewgp tell` finished (exit 0: acknowledged) is
#     in the participant's file, with the option chosen, after everything;
#   - every participant file and the index still load (status exit 0),
#     nobody added is missing from the roster, and the population counts
#     the answers the files hold;
#   - a killed answer is either recorded whole or not at all (the next
#     ask gives the same question again, or the next one).
# Needs no display. Output: TAP.
# Usage: test-e2e-study-kill.sh PATH-TO-skewgp [SEED]
set -u
skewgp=${1:-}
[ -x "$skewgp" ] || { echo "1..0 # SKIP skewgp not given"; exit 0; }
RANDOM=${2:-7}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
study="$tmp/study"
acked="$tmp/acked"      # lines "CODE QUESTION CHOSEN" of acknowledged answers
: > "$acked"

n=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# The kill window: 0-60 ms, ten times that in a sanitizer build (its
# programs run several times slower, and a window they never finish in
# tests nothing but the kill).
kill_ms=60
[ -n "${SB_TEST_INSTRUMENTED:-}" ] && kill_ms=600

# Runs "$@" in the background and SIGKILLs it after 0-KILL_MS ms unless it is
# done by then; the exit status is the program's (137 when killed).
run_killable () {
  "$@" >"$tmp/out" 2>"$tmp/err" &
  local pid=$! delay=$((RANDOM % kill_ms))
  sleep "0.$(printf '%03d' "$delay")"
  kill -9 "$pid" 2>/dev/null
  { wait "$pid"; } 2>/dev/null  # without the shell's "Killed" notice
}

# A member of the one-line JSON in $tmp/out.
member () { tr -d ' \n' < "$tmp/out" | sed -n "s/.*\"$1\":\\([0-9]*\\).*/\\1/p"; }

echo "1..5"
cat > "$tmp/exp.json" <<'JSON'
{"title": "Kill test", "mode": "preference",
 "parameters": [{"name": "x", "lower": 0, "upper": 1}],
 "budget": 8, "seed": 3}
JSON
# Independent questions: a hierarchical proposal (fit and search over
# everyone's answers) takes longer than the 60 ms kill window, so nearly
# every ask would be killed; the files are written the same way.
"$skewgp" study new "$tmp/exp.json" "$study" --repeat-rate 0.3 --model independent >/dev/null \
  || { not_ok "skewgp study new"; exit 0; }

# Participants, each added by a program that may be killed; a killed add
# is retried with the same code until one finishes.
codes="K-1 K-2 K-3"
for code in $codes; do
  for try in $(seq 20); do
    run_killable "$skewgp" study add "$study" --code "$code"
    rc=$?
    [ $rc = 0 ] && break
    # killed after the session was written: the code is taken; adopted
    grep -q taken "$tmp/err" 2>/dev/null && break
  done
done

kills=0; answers=0; steps=0
while [ $steps -lt 400 ]; do
  steps=$((steps + 1))
  set -- $codes
  shift $((RANDOM % 3))
  code=$1
  run_killable "$skewgp" ask "$study" --participant "$code"
  rc=$?
  [ $rc = 137 ] && { kills=$((kills + 1)); continue; }
  [ $rc = 0 ] || { not_ok "ask $code exits 0 or is killed" "exit $rc: $(cat "$tmp/err")"; exit 0; }
  if grep -q '"done"' "$tmp/out"; then
    all_done=1
    for c in $codes; do
      "$skewgp" ask "$study" --participant "$c" | grep -q '"done"' || all_done=0
    done
    [ $all_done = 1 ] && break
    continue
  fi
  id=$(member question)
  chosen=$((RANDOM % 2))
  echo "{\"question\": $id, \"answer\": {\"chosen\": $chosen}}" > "$tmp/answer.json"
  run_killable "$skewgp" tell "$study" --participant "$code" "$tmp/answer.json"
  rc=$?
  case $rc in
    0) echo "$code $id $chosen" >> "$acked"; answers=$((answers + 1)) ;;
    137) kills=$((kills + 1)) ;;
    2) grep -q 'not open' "$tmp/err" || { not_ok "tell $code" "$(cat "$tmp/err")"; exit 0; } ;;
    *) not_ok "tell $code exits 0, 2 or is killed" "exit $rc: $(cat "$tmp/err")"; exit 0 ;;
  esac
  # Now and then the experimenter removes and restores an answer, killed
  # or not: it must never lose one.
  if [ $((RANDOM % 8)) = 0 ]; then
    run_killable "$skewgp" study remove "$study" --participant "$code" --answer 1 --by e2e
    run_killable "$skewgp" study restore "$study" --participant "$code" --answer 1 --by e2e
  fi
done
echo "# $steps steps, $answers answers acknowledged, $kills programs killed"

# Removals killed half-way may leave answer 1 removed: restore it (exit 2
# "not removed" is fine).
for code in $codes; do "$skewgp" study restore "$study" --participant "$code" --answer 1 \
  >/dev/null 2>&1; done

# 1. every file loads
bad=
for code in $codes; do "$skewgp" status "$study" --participant "$code" >/dev/null 2>"$tmp/err" \
  || bad="$bad $code: $(cat "$tmp/err")"; done
"$skewgp" status "$study" > "$tmp/pop.json" 2>"$tmp/err" || bad="$bad index: $(cat "$tmp/err")"
if [ -z "$bad" ]; then ok "every participant file and the index load after the kills"; \
else not_ok "every participant file and the index load after the kills" "$bad"; fi

# 2. everyone added is in the roster
missing=
for code in $codes; do grep -q "\"code\": \"$code\"" "$tmp/pop.json" || missing="$missing $code"; done
if [ -z "$missing" ]; then ok "all three participants are in the roster"; \
else not_ok "all three participants are in the roster" "missing:$missing"; fi

# 3. every acknowledged answer is in the files, as given
"$skewgp" export "$study" > "$tmp/all.csv"
lost=0
while read -r code id chosen; do
  # study,participant,question,trial,kind,option,x,shown_position,answer,...
  awk -F, -v c="$code" -v q="$id" -v o="$chosen" \
    '$2 == c && $3 == q && $6 == o && $9 == 1 { found = 1 } END { exit !found }' "$tmp/all.csv" \
    || { lost=$((lost + 1)); echo "# lost: $code question $id chosen $chosen"; }
done < "$acked"
if [ $lost = 0 ] && [ $answers -gt 0 ]; then ok "all $answers acknowledged answers are in the files"; \
else not_ok "all $answers acknowledged answers are in the files" "$lost lost"; fi

# 4. the study finished: every participant answered the budget
if tr -d ' \n' < "$tmp/pop.json" | grep -q '"done":3,'; then ok "every participant reached the budget"; \
else not_ok "every participant reached the budget" "$(tr -d ' \n' < "$tmp/pop.json" | grep -o '"population".*')"; fi

# 5. at least one program was killed in the middle (the test tested something)
if [ $kills -gt 0 ]; then ok "$kills programs were killed at random moments"; \
else not_ok "programs were killed at random moments" "none was"; fi
