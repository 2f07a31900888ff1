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

# Kills are driven by the programs' progress, not by the clock: each
# program reports the points of its work (lock taken, new file written,
# renamed into place: SB_PROGRESS_FD, core/sb-test-points.h) on a fifo,
# and is SIGKILLed right after its k-th point, k drawn from 1..4, or runs
# to its end (one run in three), whatever the machine's load. A program
# that finishes before its k-th point is not killed. Reading is bounded:
# a program that reports nothing for 120 s is killed and the test fails.
progress="$tmp/progress"
mkfifo "$progress"
hung=0

# Runs "$@" as above; the exit status is the program's (137 when killed).
run_killable () {
  local k=$((RANDOM % 6)) seen=0 line pid
  [ $k -gt 4 ] && k=0          # 0: not killed
  SB_PROGRESS_FD=3 "$@" 3>"$progress" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  exec 4<"$progress"
  while [ $k -gt 0 ] && [ $seen -lt $k ]; do
    if read -r -t 120 -u 4 line; then
      seen=$((seen + 1))
    else
      # end of the fifo (the program is done), or 120 s without a point
      [ $? -gt 128 ] && { hung=$((hung + 1)); kill -9 "$pid" 2>/dev/null; }
      break
    fi
  done
  [ $k -gt 0 ] && [ $seen -eq $k ] && kill -9 "$pid" 2>/dev/null
  cat <&4 >/dev/null            # the rest of its points, to its end
  exec 4<&-
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
# Independent questions: a hierarchical proposal (a fit and a search over
# everyone's answers) makes each ask slow; the files are written the same
# way.
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
    grep -q "taken\|exists already" "$tmp/err" 2>/dev/null && break
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

# 5. programs were killed in the middle of their work (the test tested
# something), and none stopped reporting progress
if [ $kills -gt 0 ] && [ $hung = 0 ]; then ok "$kills programs were killed at points of their work"; \
else not_ok "programs were killed at points of their work" "$kills killed, $hung silent for 120 s"; fi
