#!/usr/bin/env bash
# Paper 004's sparse variational GP on large streamed CSVs: `skewgp
# classify --method svgp` trains on N rows x 8 inputs (binary labels),
# 100 inducing points, and predicts 10^4 held-out rows. Prints one table
# row per N: wall time, CPU time, peak resident memory (GNU time) and the
# test accuracy. Usage (from the build directory's parent):
#   nice -n 19 env OPENBLAS_NUM_THREADS=1 tests/bench/bench-svgp-rows.sh \
#       build/app/skewgp DIR 100000 1000000 2000000
# DIR keeps the generated CSVs (each made once, by /usr/bin/python3 with
# numpy, seeded: the same files every run).
set -euo pipefail
skewgp=$1 dir=$2
shift 2
mkdir -p "$dir"
gen () {  # gen N FILE SEED
  [ -s "$2" ] && return 0
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import sys, numpy as np
n, path, seed = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(seed)
with open(path + ".tmp", "w") as f:
    f.write(",".join("x%d" % (j + 1) for j in range(8)) + ",label\n")
    for start in range(0, n, 100000):
        m = min(100000, n - start)
        X = rng.uniform(-2, 2, size=(m, 8))
        # a smooth nonlinear boundary in 4 of the 8 inputs, 10% label noise
        f_ = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] ** 2 + 0.5
        y = (f_ + 0.3 * rng.standard_normal(m) > 0).astype(int)
        flip = rng.uniform(size=m) < 0.1
        y[flip] = 1 - y[flip]
        np.savetxt(f, np.column_stack([X, y]), fmt=["%.6f"] * 8 + ["%d"], delimiter=",")
import os
os.rename(path + ".tmp", path)
PY
}
gen 10000 "$dir/test-10k.csv" 99
echo "| rows | file MiB | wall s | CPU s | peak RSS MiB | Adam steps | test accuracy |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in "$@"; do
  train="$dir/train-$n.csv"
  gen "$n" "$train" "$n"
  out=$(mktemp) tlog=$(mktemp)
  /usr/bin/time -v "$skewgp" classify --train "$train" --test "$dir/test-10k.csv" \
      --method svgp --inducing 100 --iterations 2000 --lengthscale 1 --seed 1 \
      >"$out" 2>"$tlog"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tlog" \
         | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u + s}' "$tlog")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$tlog")
  acc=$(paste -d, <(tail -n +2 "$dir/test-10k.csv" | awk -F, '{print $NF}') \
                  <(tail -n +2 "$out" | cut -d, -f1) \
        | awk -F, '{ n++; if (($2 >= 0.5) == ($1 == 1)) c++ } END { printf "%.4f", c / n }')
  mib=$(du -m "$train" | cut -f1)
  echo "| $n | $mib | $wall | $cpu | $rss | 2000 | $acc |"
  rm -f "$out" "$tlog"
done
