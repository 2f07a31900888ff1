#!/bin/sh
# bench-answers.sh — what each kind of preference question buys: `skewgp bo`
# over problems and paired seeds with four question kinds,
#   duel     "x or x_r?", dueling UCB (paper 001, the default)
#   free     a duel whose two points are both chosen by qEUBO
#   choice4  best of 4, qEUBO
#   ties     "x or x_r?" with "about the same" allowed: the simulated person
#            answers a tie when the true values differ by less than MARGIN
# and tabulates the regret (optimum - true value at the current best x_r)
# after the same number of QUESTIONS and after the same number of OPTIONS
# SHOWN (a duel shows 2, a choice 4), with paired differences against
# "duel" (same seed = same problem, same first random design point and
# oracle stream) and their standard errors.
#
# Usage: tests/bench/bench-answers.sh [--skewgp PATH] [--out DIR]
#          [--problems "cos1d six-hump-camel langermann"] [--seeds "1 2 ..."]
#          [--questions N] [--margin M] [--jobs J] [--nice N]
#          [--at-questions "20 40"] [--at-shown "40 80"]
# Runs whose output already ends with a summary line are not repeated; the
# table (Markdown) goes to stdout.
set -eu

skewgp=build/app/skewgp
out=bench-answers-out
problems="cos1d six-hump-camel langermann"
seeds="1 2 3 4 5 6 7 8"
questions=40
margin=0.1
jobs=2
niceness=10
at_questions="20 40"
at_shown="40 80"
while [ $# -gt 0 ]; do
  case "$1" in
    --skewgp) skewgp=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --problems) problems=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --questions) questions=$2; shift 2 ;;
    --margin) margin=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --nice) niceness=$2; shift 2 ;;
    --at-questions) at_questions=$2; shift 2 ;;
    --at-shown) at_shown=$2; shift 2 ;;
    *) echo "bench-answers.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
arms="duel free choice4 ties"
initial=5
iterations=$((questions - initial))
mkdir -p "$out"

arm_flags () {
  case "$1" in
    duel) echo "" ;;
    free) echo "--acquisition qeubo" ;;
    choice4) echo "--question choice --options 4" ;;
    ties) echo "--ties --tie-margin $margin" ;;
  esac
}

# The job list: one line per run (seed-major, so a stopped run still has
# complete seeds), executed J at a time by xargs.
jobfile="$out/jobs.txt"
: > "$jobfile"
for seed in $seeds; do
  for p in $problems; do
    for arm in $arms; do
      f="$out/$p-$arm-$seed.jsonl"
      if [ -s "$f" ] && tail -n 1 "$f" | grep -q '"summary":true'; then continue; fi
      echo "OPENBLAS_NUM_THREADS=1 nice -n $niceness $skewgp bo --problem $p --seed $seed \
--initial $initial --iterations $iterations $(arm_flags "$arm") > $f" >> "$jobfile"
    done
  done
done
if [ -s "$jobfile" ]; then
  tr '\n' '\0' < "$jobfile" | xargs -0 -P "$jobs" -I{} sh -c '{}'
fi

# One row per run: problem arm seed, then the regret at each question count
# and at each options-shown count (the last iteration within it).
rows="$out/rows.txt"
: > "$rows"
for p in $problems; do
  for arm in $arms; do
    for seed in $seeds; do
      f="$out/$p-$arm-$seed.jsonl"
      jq -r 'if .summary then "S \(.optimum)" else "I \(.iteration) \(.options_shown) \(.best_value)" end' "$f" |
        awk -v p="$p" -v arm="$arm" -v seed="$seed" -v aq="$at_questions" -v as="$at_shown" '
          $1 == "I" { n++; it[n] = $2; sh[n] = $3; v[n] = $4 }
          $1 == "S" { opt = $2 }
          END {
            printf "%s %s %s", p, arm, seed
            nq = split (aq, q, " "); ns = split (as, s, " ")
            for (i = 1; i <= nq; i++) {
              r = "nan"
              for (j = 1; j <= n; j++) if (it[j] == q[i]) r = opt - v[j]
              printf " %s", r
            }
            for (i = 1; i <= ns; i++) {
              r = "nan"
              for (j = 1; j <= n; j++) if (sh[j] <= s[i]) r = opt - v[j]
              printf " %s", r
            }
            printf "\n"
          }'
    done
  done
done >> "$rows"

# The table: mean regret +- s.e. per arm, and the paired difference
# arm - duel +- s.e. (negative: the arm is better).
awk -v aq="$at_questions" -v as="$at_shown" -v arms="$arms" -v probs="$problems" '
  function pos (x) { return x > 0 ? x : 0 }
  { key = $1 SUBSEP $2 SUBSEP $3; for (c = 4; c <= NF; c++) val[key, c] = $c
    seeds[$3] = 1; ncol = NF }
  END {
    nq = split (aq, q, " "); ns = split (as, s, " "); na = split (arms, A, " ")
    np = split (probs, P, " ")
    head = "| problem | question kind |"
    line = "|---|---|"
    for (i = 1; i <= nq; i++) { head = head " after " q[i] " questions | paired vs duel |"; line = line "---|---|" }
    for (i = 1; i <= ns; i++) { head = head " after " s[i] " options shown | paired vs duel |"; line = line "---|---|" }
    print head; print line
    for (pi = 1; pi <= np; pi++) for (ai = 1; ai <= na; ai++) {
      row = "| " P[pi] " | " A[ai] " |"
      for (c = 4; c <= ncol; c++) {
        n = 0; sum = 0; sq = 0; nd = 0; dsum = 0; dsq = 0
        for (sd in seeds) {
          x = val[P[pi], A[ai], sd, c]
          if (x == "nan" || x == "") continue
          n++; sum += x; sq += x * x
          y = val[P[pi], "duel", sd, c]
          if (y == "nan" || y == "") continue
          d = x - y; nd++; dsum += d; dsq += d * d
        }
        if (n == 0) { row = row " - | - |"; continue }
        m = sum / n; se = n > 1 ? sqrt (pos ((sq - n * m * m) / (n - 1) / n)) : 0
        cell = sprintf (" %.3g +- %.2g (%d) |", m, se, n)
        if (A[ai] == "duel" || nd == 0) dcell = " |"
        else {
          dm = dsum / nd; dse = nd > 1 ? sqrt (pos ((dsq - nd * dm * dm) / (nd - 1) / nd)) : 0
          dcell = sprintf (" %+.3g +- %.2g |", dm, dse)
        }
        row = row cell dcell
      }
      print row
    }
  }' "$rows"
