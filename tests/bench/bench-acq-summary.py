#!/usr/bin/python3
"""bench-acq-summary.py — tables of the acquisition benchmark (results-acq.md).

Reads the runs of tests/bench/bench-acq-jobs.sh (OUT/PROTOCOL/PROBLEM-ARM-SEED.jsonl,
`skewgp bo` JSON Lines: iteration lines, then a summary line) and prints
Markdown: for every protocol and problem, each arm's mean +- standard error
over seeds of the protocol's metric, and the paired difference (same seed =
same initial design and judge stream) against a reference arm and against
random search, mean +- s.e. of the per-seed differences, with wins/losses.

Metrics: takeno: regret at the answered point of largest posterior mean
(regret_evaluated); qeubo: log10 of the simple regret at the posterior-mean
maximiser over the box (regret_box); repro001: regret at the last winner
(regret), as repro-001. --metric winner|evaluated|box|log10-box overrides.
Incomplete runs (no summary line) are skipped and counted.
Standard library only. Usage:
  tests/bench/bench-acq-summary.py OUT [--ref ucb] [--metric M] [--at N]
--at N: the metric after N BO iterations (from the iteration lines of
--recommend-every; winner from best_value) instead of the end.
--rules: instead, the three recommendation rules side by side per problem
and arm (winner, evaluated, box regret at the end) with the paired
differences evaluated - winner and box - winner.
"""
import argparse
import json
import math
import os
import re
import statistics as st
import sys

DEFAULT_METRIC = {"takeno": "evaluated", "qeubo": "log10-box", "repro001": "winner"}
NAME = re.compile(r"^(?P<problem>.+?)-(?P<arm>random|ucb|eiig|epi|thompson|muc|dts|hb-ei|hb-ucb|qeubo)-(?P<seed>\d+)\.jsonl$")


def metric_of(summary, lines, metric, at):
    opt = summary["optimum"]
    if at is not None:
        n_init = summary["initial"]
        line = next((l for l in lines if l.get("iteration") == n_init + at), None)
        if line is None:
            return None
        key = {"winner": "best_value", "evaluated": "value_evaluated",
               "box": "value_box", "log10-box": "value_box"}[metric]
        if line.get(key) is None:
            return None
        r = opt - line[key]
    else:
        key = {"winner": "regret", "evaluated": "regret_evaluated",
               "box": "regret_box", "log10-box": "regret_box"}[metric]
        if summary.get(key) is None:
            return None
        r = summary[key]
    if metric == "log10-box":
        return math.log10(max(r, 1e-12))
    return r


def load(out, metric_override, at):
    runs, skipped = {}, 0
    for proto in sorted(os.listdir(out)):
        pdir = os.path.join(out, proto)
        if not os.path.isdir(pdir):
            continue
        metric = metric_override or DEFAULT_METRIC.get(proto.split("-")[0], "evaluated")
        for f in sorted(os.listdir(pdir)):
            m = NAME.match(f)
            if not m:
                continue
            with open(os.path.join(pdir, f)) as fh:
                lines = [json.loads(l) for l in fh if l.strip()]
            if not lines or not lines[-1].get("summary"):
                skipped += 1
                continue
            v = metric_of(lines[-1], lines, metric, at)
            if v is None:
                skipped += 1
                continue
            key = (proto, m["problem"])
            runs.setdefault(key, {}).setdefault(m["arm"], {})[int(m["seed"])] = (
                v, lines[-1].get("median_seconds"))
    return runs, skipped


def mean_se(v):
    if len(v) == 0:
        return float("nan"), float("nan")
    if len(v) == 1:
        return v[0], float("nan")
    return st.mean(v), st.stdev(v) / math.sqrt(len(v))


def fmt(x):
    if x != x:
        return "-"
    return f"{x:.3g}"


def paired(a, b):
    seeds = sorted(set(a) & set(b))
    d = [a[s][0] - b[s][0] for s in seeds]
    if not d:
        return "-"
    m, se = mean_se(d)
    scale = 1e-9 + max(abs(a[s][0]) + abs(b[s][0]) for s in seeds)
    wins = sum(1 for x in d if x < -1e-6 * scale)
    losses = sum(1 for x in d if x > 1e-6 * scale)
    flag = "**" if se == se and abs(m) > 2 * se else ""
    return f"{flag}{m:+.3g} +- {fmt(se)}{flag} ({wins}/{losses})"


def rules_table(out):
    """Regret of each recommendation rule, paired over seeds."""
    for proto in sorted(os.listdir(out)):
        pdir = os.path.join(out, proto)
        if not os.path.isdir(pdir):
            continue
        rows = {}
        for f in sorted(os.listdir(pdir)):
            m = NAME.match(f)
            if not m:
                continue
            with open(os.path.join(pdir, f)) as fh:
                lines = [json.loads(l) for l in fh if l.strip()]
            if not lines or not lines[-1].get("summary") or lines[-1].get("regret_box") is None:
                continue
            s = lines[-1]
            rows.setdefault((m["problem"], m["arm"]), []).append(
                (s["regret"], s["regret_evaluated"], s["regret_box"]))
        if not rows:
            continue
        print(f"\n### {proto}: recommendation rules (regret at the end, lower is better)\n")
        print("| problem | arm | winner | evaluated | box | evaluated - winner | box - winner |")
        print("|---|---|---|---|---|---|---|")
        for (prob, arm), v in sorted(rows.items()):
            cols = [mean_se([x[i] for x in v]) for i in range(3)]
            de = mean_se([x[1] - x[0] for x in v])
            db = mean_se([x[2] - x[0] for x in v])
            cell = lambda ms: f"{fmt(ms[0])} +- {fmt(ms[1])}"
            flag = lambda ms: "**" if ms[1] == ms[1] and abs(ms[0]) > 2 * ms[1] else ""
            print(f"| {prob} | {arm} | {cell(cols[0])} ({len(v)}) | {cell(cols[1])} | {cell(cols[2])} | "
                  f"{flag(de)}{cell(de)}{flag(de)} | {flag(db)}{cell(db)}{flag(db)} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ref", default="ucb")
    ap.add_argument("--metric", choices=["winner", "evaluated", "box", "log10-box"])
    ap.add_argument("--at", type=int)
    ap.add_argument("--rules", action="store_true")
    a = ap.parse_args()
    if a.rules:
        return rules_table(a.out)
    runs, skipped = load(a.out, a.metric, a.at)
    order = ["random", "ucb", "eiig", "epi", "thompson", "muc", "dts", "hb-ei", "hb-ucb", "qeubo"]
    for proto in sorted({k[0] for k in runs}):
        metric = a.metric or DEFAULT_METRIC.get(proto.split("-")[0], "evaluated")
        when = f"after {a.at} BO iterations" if a.at is not None else "at the end"
        print(f"\n### {proto}: {metric} regret {when} (lower is better)\n")
        print(f"Cells: mean +- s.e. over seeds (seeds); paired: arm - {a.ref} and arm - random, "
              "mean +- s.e. of per-seed differences (wins/losses of the arm; ** beyond 2 s.e.); "
              "median proposal seconds.\n")
        print(f"| problem | arm | {metric} | paired vs {a.ref} | paired vs random | s/proposal |")
        print("|---|---|---|---|---|---:|")
        for (p_, prob) in sorted(k for k in runs if k[0] == proto):
            arms = runs[(proto, prob)]
            for arm in [x for x in order if x in arms]:
                vals = [v[0] for v in arms[arm].values()]
                m, se = mean_se(vals)
                secs = [v[1] for v in arms[arm].values() if v[1] is not None]
                ref = paired(arms[arm], arms[a.ref]) if arm != a.ref and a.ref in arms else ""
                rnd = paired(arms[arm], arms["random"]) if arm != "random" and "random" in arms else ""
                sec = fmt(st.median(secs)) if secs else "-"
                print(f"| {prob} | {arm} | {fmt(m)} +- {fmt(se)} ({len(vals)}) | {ref} | {rnd} | {sec} |")
    if skipped:
        print(f"\n({skipped} incomplete runs skipped)")


if __name__ == "__main__":
    sys.exit(main())
