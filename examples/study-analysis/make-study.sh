#!/bin/sh
# make-study.sh — a small study of three simulated participants, answered
# through `skewgp ask/tell --participant`, exported for analysis as
# study.csv next to this script. Each participant prefers a gamma near
# their own favourite (2.1, 2.2, 2.4) and a brightness near 46.8, so the
# export's numbers can be checked by eye.
# Usage: examples/study-analysis/make-study.sh   (SKEWGP: the skewgp program)
set -eu
SKEWGP=${SKEWGP:-skewgp}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/experiment.json" <<'JSON'
{"title": "Display tuning", "mode": "preference", "budget": 6, "seed": 7,
 "parameters": [{"name": "gamma", "lower": 1.8, "upper": 2.6},
                {"name": "brightness", "lower": 0, "upper": 100, "unit": "cd/m2"}]}
JSON
"$SKEWGP" study new "$work/experiment.json" "$work/display" --repeat-rate 0.2 >/dev/null
for p in "P-2222 2.1" "P-3333 2.2" "P-4444 2.4"; do
  set -- $p
  "$SKEWGP" study add "$work/display" --code "$1" --note "session in room B" >/dev/null
  while :; do
    q=$("$SKEWGP" ask "$work/display" --participant "$1" | tr -d ' \n')
    case $q in *'"done"'*) break ;; esac
    id=$(printf '%s' "$q" | sed 's/.*"question":\([0-9]*\).*/\1/')
    # the option whose (gamma, brightness) is nearer the favourite wins
    chosen=$(printf '%s' "$q" | sed 's/.*"options":\[\[\([^]]*\)\],\[\([^]]*\)\].*/\1,\2/' \
             | awk -F, -v g="$2" '{ d0 = ($1-g)^2 + (($2-46.8)/100)^2;
                                   d1 = ($3-g)^2 + (($4-46.8)/100)^2; print (d1 < d0) }')
    echo "{\"question\": $id, \"answer\": {\"chosen\": $chosen}, \"response_time\": 1.5}" \
      | "$SKEWGP" tell "$work/display" --participant "$1" - >/dev/null
  done
done
"$SKEWGP" export "$work/display" -o "$here/study.csv"
