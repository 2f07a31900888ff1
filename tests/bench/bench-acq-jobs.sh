#!/bin/sh
# bench-acq-jobs.sh — the job list of the acquisition benchmark
# (results-acq.md): one `skewgp bo` run per line, each writing one JSON
# Lines file, for GNU parallel or a Slurm job array to execute:
#
#   tests/bench/bench-acq-jobs.sh --out /scratch/acq > jobs.txt
#   parallel --jobs 2 < jobs.txt                       # this machine
#   parallel --jobs 16 --sshloginfile nodes < jobs.txt # several machines
#                                                      # (shared OUT, same paths)
#   sbatch --array=1-$(wc -l < jobs.txt) tests/bench/bench-acq.sbatch jobs.txt
#   tests/bench/bench-acq-summary.py /scratch/acq > tables.md
#
# A line whose output file already exists (complete: it ends with the
# summary) does nothing, so a list can be re-run after an interruption;
# output is written to FILE.tmp and renamed when the run has finished.
#
# Protocols (--protocol; "all" = the three):
#   takeno    Takeno et al. (ICML 2023): branin ackley4 bukin6 cross-in-tray
#             eggholder holder-table langermann levy4 levy13 hartmann3
#             hartmann4 hartmann6, and levy4-takeno (the Levy of their
#             code); 3d initial random duels then 110 duels; utility noise
#             sd 0.01 (a Thurstone judge); 10 seeds; regret at the last
#             winner (their code's "current best"; best_value) and at the
#             answered point of largest posterior mean (value_evaluated).
#   qeubo     Astudillo et al. (AISTATS 2023): ackley6 alpine1-7 hartmann6;
#             4d initial random duels then 150; logistic judge with the
#             scales of the authors' code (hartmann6 0.1619, alpine1-7
#             0.5726, ackley6 0.1416: noise level 2 of each runner); 30 seeds;
#             log10 simple regret at the posterior-mean maximiser over the
#             box (value_box).
#   repro001  paper 001 / tests/bench/repro-001: cos1d six-hump-camel
#             langermann colville rosenbrock5 hartmann6; 5 + 100 duels; exact
#             judge; 20 seeds.
# Arms (--arms): random (uniform proposals) and the duel acquisitions of
# skewgp bo --help; every arm of a seed starts from the same random design.
#
# Usage: tests/bench/bench-acq-jobs.sh [--skewgp PATH] [--out DIR]
#          [--protocol takeno|qeubo|repro001|all] [--seeds "1 2 ..."]
#          [--arms "random ucb ..."] [--problems "..."] [--duels N]
#          [--initial-per-dim K] [--samples N] [--nice N] [--every N]
#          [--variant NAME --extra "FLAGS"]
# --seeds, --problems, --duels (BO iterations after the initial design)
# and --initial-per-dim override the protocol's; a reduced run says so.
# --variant NAME --extra FLAGS: extra skewgp bo flags for every run, the
# output in OUT/PROTOCOL-NAME (e.g. --variant ls01 --extra
# "--lengthscale-min 0.01").
set -eu

skewgp=$(pwd)/build/app/skewgp
out=$(pwd)/bench-acq-out
protocol=all
seeds=""
arms="random ucb eiig epi thompson muc dts hb-ei hb-ucb qeubo"
problems=""
duels=""
init_per_dim=""
samples=1000
niceness=19
every=10
variant=""
extra=""
while [ $# -gt 0 ]; do
  case "$1" in
    --skewgp) skewgp=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --protocol) protocol=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --arms) arms=$2; shift 2 ;;
    --problems) problems=$2; shift 2 ;;
    --duels) duels=$2; shift 2 ;;
    --initial-per-dim) init_per_dim=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --nice) niceness=$2; shift 2 ;;
    --every) every=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-acq-jobs.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$protocol" in
  all) protocols="takeno qeubo repro001" ;;
  takeno|qeubo|repro001) protocols=$protocol ;;
  *) echo "bench-acq-jobs.sh: unknown protocol $protocol" >&2; exit 2 ;;
esac

dim_of () {
  case "$1" in
    cos1d) echo 1 ;;
    hartmann3) echo 3 ;;
    ackley4|levy4|levy4-takeno|hartmann4|colville) echo 4 ;;
    rosenbrock5) echo 5 ;;
    hartmann6|ackley6) echo 6 ;;
    alpine1-7) echo 7 ;;
    *) echo 2 ;;
  esac
}

logistic_scale () {
  case "$1" in
    hartmann6) echo 0.1619 ;;
    alpine1-7) echo 0.5726 ;;
    ackley6) echo 0.1416 ;;
  esac
}

arm_flags () {
  case "$1" in
    random) echo "--surrogate random" ;;
    *) echo "--acquisition $1" ;;
  esac
}

seq_list () { i=1; while [ "$i" -le "$1" ]; do printf '%s ' "$i"; i=$((i + 1)); done; }

for proto in $protocols; do
  case "$proto" in
    takeno)
      p_problems="branin ackley4 bukin6 cross-in-tray eggholder holder-table langermann levy4 levy13 hartmann3 hartmann4 hartmann6 levy4-takeno"
      p_seeds=$(seq_list 10); p_iters=110; p_init=3; noise="--noise 0.01" ;;
    qeubo)
      p_problems="ackley6 alpine1-7 hartmann6"
      p_seeds=$(seq_list 30); p_iters=150; p_init=4; noise="" ;;
    repro001)
      p_problems="cos1d six-hump-camel langermann colville rosenbrock5 hartmann6"
      p_seeds=$(seq_list 20); p_iters=100; p_init=""; noise="--noise 0" ;;
  esac
  [ -n "$problems" ] && p_problems=$problems
  [ -n "$seeds" ] && p_seeds=$seeds
  [ -n "$duels" ] && p_iters=$duels
  [ -n "$init_per_dim" ] && p_init=$init_per_dim
  dir=$out/$proto${variant:+-$variant}
  mkdir -p "$dir"
  for seed in $p_seeds; do
    for p in $p_problems; do
      d=$(dim_of "$p")
      initial=$([ -n "$p_init" ] && echo $((p_init * d)) || echo 5)
      pnoise=$noise
      [ "$proto" = qeubo ] && pnoise="--noise $(logistic_scale "$p") --noise-model logistic"
      for arm in $arms; do
        f="$dir/$p-$arm-$seed.jsonl"
        echo "mkdir -p $dir && test -s $f || { OPENBLAS_NUM_THREADS=1 nice -n $niceness $skewgp bo --problem $p $(arm_flags "$arm") --seed $seed --initial $initial --iterations $p_iters $pnoise --samples $samples --recommend-every $every${extra:+ $extra} > $f.tmp && mv $f.tmp $f; }"
      done
    done
  done
done
