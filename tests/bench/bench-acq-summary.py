#!/usr/bin/python3
"""bench-acq-summary.py — tables, run rows and curves of the acquisition
benchmark (results-acq.md).

Reads the runs of tests/bench/bench-acq-jobs.sh (OUT/PROTOCOL/PROBLEM-ARM-SEED.jsonl,
`skewgp bo` JSON Lines: iteration lines, then a summary line). A file
BINARY in a protocol directory names the binary that made its runs (its
first word goes into the rows).

Metrics (regret = optimum - true value; lower is better):
  winner     at the last decisive winner x_r, after every duel (best_value);
             the Takeno et al. code's recommendation (their "current best")
  evaluated  at the answered point of largest posterior mean
  box        at the posterior-mean maximiser over the box (qEUBO's)
evaluated and box exist where `--recommend-every` asked for them
(iterations that are multiples of it, initial design included) and at the
end; at N duels the table takes the last one at or before N and says which.
Protocol defaults: takeno winner, qeubo log10 box, repro001 winner.

Default output: Markdown, per protocol a table of every problem and arm:
the metric after 20, 50 and all BO duels (mean +- s.e. over seeds), the
paired difference (same seed = same initial design and judge stream)
against a reference arm and against random search at each, mean +- s.e. of
the per-seed differences with wins/losses of the arm (** beyond 2 s.e.,
* beyond 1), and the median seconds per proposal (wall; CPU seconds too
when the runs recorded them).

  tests/bench/bench-acq-summary.py OUT [--ref ARM] [--metric M] [--at 20,50,end]
  tests/bench/bench-acq-summary.py OUT --rows       the run rows (results-acq-rows.txt)
  tests/bench/bench-acq-summary.py OUT --curves     CSV of the mean log10 regret
                                                    curves (bench-acq-plot reads it)
  tests/bench/bench-acq-summary.py OUT --rules      the three rules side by side
  tests/bench/bench-acq-summary.py OUT --wins       per problem: arms that beat
                                                    random by > 1 paired s.e. at the end
  tests/bench/bench-acq-summary.py OUT --update FILE
      rewrites every block of FILE between a line "<!-- acq:WHAT -->" and
      the next "<!-- /acq -->" with fresh output, WHAT being
        status                        finished runs per protocol and arm
        table PROTO [METRIC] [AT]     the table of one protocol folder
        wins [REF]                    the --wins table (REF "default":
                                      skewgp bo's default per problem)
        overall PROTO [REF] [LO-HI] [METRIC]
                                      every arm against REF and random
                                      over all problems and seeds at once
                                      (those of LO to HI parameters; by
                                      METRIC instead of the protocol's)
        diagnose PROTO                where each arm asked and what the
                                      refits chose (needs OUT/PROTO/PROBLEMS,
                                      the output of `skewgp bo --list`)
        rules PROTO                   the --rules table of one folder
      so results-acq.md follows the runs as they finish.
Standard library only; incomplete runs are skipped and counted.
"""
import argparse
import json
import math
import os
import re
import statistics as st
import sys

DEFAULT_METRIC = {"takeno": "winner", "qeubo": "log10-box", "repro001": "winner"}
ARMS = ["random", "ucb", "eiig", "epi", "thompson", "muc", "dts", "hb-ei", "hb-ucb", "qeubo"]
NAME = re.compile(r"^(?P<problem>.+?)-(?P<arm>" + "|".join(ARMS) + r")-(?P<seed>\d+)\.jsonl$")
FLOOR = 1e-12   # regrets below it count as it on a log scale


class Run:
    """One run: the winner regret after every duel, the recommendations'
    regrets where they were computed, the summary."""

    def __init__(self, lines):
        s = lines[-1]
        self.summary = s
        self.opt = s["optimum"]
        self.n_init = s["initial"]
        self.iterations = s["iterations"]
        self.winner = {}
        self.rec = {"evaluated": {}, "box": {}}
        cpu = []
        for l in lines[:-1]:
            it = l.get("iteration")
            if it is None:
                continue
            k = it - self.n_init
            if k >= 0 and l.get("best_value") is not None:
                self.winner[k] = self.opt - l["best_value"]
            for rule in ("evaluated", "box"):
                v = l.get("value_" + rule)
                if v is not None and k >= 0:
                    self.rec[rule][k] = self.opt - v
            if not l.get("initial") and l.get("cpu_seconds") is not None:
                cpu.append(l["cpu_seconds"])
        end = self.iterations
        self.winner[end] = s["regret"]
        for rule in ("evaluated", "box"):
            if s.get("regret_" + rule) is not None:
                self.rec[rule][end] = s["regret_" + rule]
        self.seconds = s.get("median_seconds")
        self.cpu = st.median(cpu) if cpu else None

    def at(self, metric, n):
        """(regret, duels it was taken at) after N duels (None: the end)."""
        n = self.iterations if n is None else n
        rule = metric.replace("log10-", "")
        series = self.winner if rule == "winner" else self.rec[rule]
        ks = [k for k in series if k <= n]
        if not ks:
            return None, None
        k = max(ks)
        r = series[k]
        if metric.startswith("log10-"):
            r = math.log10(max(r, FLOOR))
        return r, k


def read_run(path):
    with open(path) as fh:
        lines = [json.loads(l) for l in fh if l.strip()]
    if not lines or not lines[-1].get("summary"):
        return None
    return Run(lines)


def protocol_dirs(out):
    for proto in sorted(os.listdir(out)):
        pdir = os.path.join(out, proto)
        if os.path.isdir(pdir):
            yield proto, pdir


def binary_of(pdir):
    try:
        with open(os.path.join(pdir, "BINARY")) as fh:
            return fh.read().split()[0]
    except (OSError, IndexError):
        return "-"


def load(out):
    """{(proto, problem): {arm: {seed: Run}}}, skipped count, binaries."""
    runs, skipped, binaries = {}, 0, {}
    for proto, pdir in protocol_dirs(out):
        binaries[proto] = binary_of(pdir)
        for f in sorted(os.listdir(pdir)):
            m = NAME.match(f)
            if not m:
                continue
            run = read_run(os.path.join(pdir, f))
            if run is None:
                skipped += 1
                continue
            runs.setdefault((proto, m["problem"]), {}).setdefault(m["arm"], {})[int(m["seed"])] = run
    return runs, skipped, binaries


def base(proto):
    return proto.split("-")[0]


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


def flag(m, se):
    if se == se and se > 0 and abs(m) > 2 * se:
        return "**"
    if se == se and se > 0 and abs(m) > se:
        return "*"
    return ""


def paired_stats(a, b, metric, n):
    """Per-seed differences a - b at N duels: (mean, se, wins, losses, seeds)."""
    d = []
    for s in sorted(set(a) & set(b)):
        x, _ = a[s].at(metric, n)
        y, _ = b[s].at(metric, n)
        if x is not None and y is not None:
            d.append((x - y, abs(x) + abs(y)))
    if not d:
        return None
    m, se = mean_se([x for x, _ in d])
    wins = sum(1 for x, sc in d if x < -1e-6 * (sc + 1e-9))
    losses = sum(1 for x, sc in d if x > 1e-6 * (sc + 1e-9))
    return m, se, wins, losses, len(d)


def paired_cell(a, b, metric, n):
    p = paired_stats(a, b, metric, n)
    if p is None:
        return "-"
    m, se, w, l, _ = p
    f = flag(m, se)
    return f"{f}{m:+.3g} ± {fmt(se)}{f} ({w}/{l})"


def parse_at(text):
    return [None if t == "end" else int(t) for t in text.split(",")]


def tables(runs, binaries, ref, metric_override, ats, only=None):
    for proto in sorted({k[0] for k in runs}):
        if only is not None and proto != only:
            continue
        metric = metric_override or DEFAULT_METRIC.get(base(proto), "winner")
        keys = sorted(k for k in runs if k[0] == proto)
        any_run = next(iter(next(iter(runs[keys[0]].values())).values()))
        cols = [str(n) if n is not None else str(any_run.iterations) for n in ats]
        print(f"\n### {proto}: {metric} regret after {' / '.join(cols)} duels (binary {binaries.get(proto, '-')})\n")
        when = []
        if metric.replace("log10-", "") != "winner":
            for (_, prob) in keys:
                arms = runs[(proto, prob)]
                r = next(iter(next(iter(arms.values())).values()))
                ks = [r.at(metric, n)[1] for n in ats]
                when.append(f"{prob} {'/'.join(str(k) for k in ks)}")
            print("Recommendations exist every few iterations only; the columns are taken at "
                  "(duels): " + "; ".join(when) + ".\n")
        print(f"| problem | arm | seeds | {' | '.join(cols)} | vs {ref}: {' | '.join(cols)} "
              f"| vs random: {' | '.join(cols)} | s/proposal |")
        print("|---|---|---:|" + "---|" * (3 * len(ats)) + "---:|")
        for (_, prob) in keys:
            arms = runs[(proto, prob)]
            for arm in [x for x in ARMS if x in arms]:
                cells = []
                for n in ats:
                    v = [r.at(metric, n)[0] for r in arms[arm].values()]
                    v = [x for x in v if x is not None]
                    m, se = mean_se(v)
                    cells.append(f"{fmt(m)} ± {fmt(se)}")
                for other in (ref, "random"):
                    for n in ats:
                        if arm == other or other not in arms:
                            cells.append("")
                        else:
                            cells.append(paired_cell(arms[arm], arms[other], metric, n))
                secs = [r.seconds for r in arms[arm].values() if r.seconds is not None]
                cpus = [r.cpu for r in arms[arm].values() if r.cpu is not None]
                t = fmt(st.median(secs)) if secs else "-"
                if cpus:
                    t += f" (CPU {fmt(st.median(cpus))})"
                print(f"| {prob} | {arm} | {len(arms[arm])} | {' | '.join(cells)} | {t} |")


def rows(runs, binaries):
    print("# protocol problem arm seed binary regret_winner_20 regret_winner_50 regret_winner_end "
          "regret_evaluated_end regret_box_end median_seconds median_cpu_seconds")
    for (proto, prob), arms in sorted(runs.items()):
        for arm in [x for x in ARMS if x in arms]:
            for seed, r in sorted(arms[arm].items()):
                vals = [r.at("winner", 20)[0], r.at("winner", 50)[0], r.at("winner", None)[0],
                        r.summary.get("regret_evaluated"), r.summary.get("regret_box"),
                        r.seconds, r.cpu]
                out = " ".join("-" if x is None else f"{x:.6g}" for x in vals)
                print(f"{proto} {prob} {arm} {seed} {binaries.get(proto, '-')} {out}")


def curves(runs, binaries):
    """Mean and s.e. over seeds of log10 regret at every duel where every
    seed of the arm has a value."""
    print("protocol,problem,arm,metric,duels,mean_log10,se_log10,seeds,binary")
    for (proto, prob), arms in sorted(runs.items()):
        metric = DEFAULT_METRIC.get(base(proto), "winner").replace("log10-", "")
        for arm in [x for x in ARMS if x in arms]:
            rs = list(arms[arm].values())
            series = [r.winner if metric == "winner" else r.rec[metric] for r in rs]
            common = sorted(set.intersection(*(set(s) for s in series)))
            for k in common:
                v = [math.log10(max(s[k], FLOOR)) for s in series]
                m, se = mean_se(v)
                print(f"{proto},{prob},{arm},{metric},{k},{m:.6g},{0 if se != se else se:.6g},{len(v)},"
                      f"{binaries.get(proto, '-')}")


# The default duel rule of `skewgp bo` (sg_bo_default_acquisition): hb-ucb
# up to this many parameters, ucb beyond.
HB_DEFAULT_MAX_DIM = 4


def default_arm(arms):
    """The arm `skewgp bo` runs without --acquisition on a problem."""
    return "hb-ucb" if dimension(arms) <= HB_DEFAULT_MAX_DIM else "ucb"


def wins(runs, ref):
    """Which arms beat random by more than one paired s.e. at the end, and
    REF against random ("default": skewgp bo's default for the problem)."""
    label = (f"default (hb-ucb up to {HB_DEFAULT_MAX_DIM} parameters, ucb beyond)"
             if ref == "default" else ref)
    print("| protocol | problem | arms ahead of random by > 1 paired s.e. (end) | " + label + " |")
    print("|---|---|---|---|")
    for (proto, prob), arms in sorted(runs.items()):
        metric = DEFAULT_METRIC.get(base(proto), "winner")
        if "random" not in arms:
            continue
        ahead = []
        for arm in [x for x in ARMS if x in arms and x != "random"]:
            p = paired_stats(arms[arm], arms["random"], metric, None)
            if p and p[1] == p[1] and p[0] < -p[1]:
                ahead.append(f"{arm} ({p[0] / p[1]:.1f} s.e.)")
        arm = default_arm(arms) if ref == "default" else ref
        refp = paired_stats(arms[arm], arms["random"], metric, None) if arm in arms else None
        refc = f"{arm} {refp[0]:+.3g} ± {fmt(refp[1])}" if refp else "-"
        print(f"| {proto} | {prob} | {', '.join(ahead) or 'none'} | {refc} |")


def dimension(arms):
    """The number of parameters of a problem's runs (ARMS: arm -> seed -> run)."""
    run = next(iter(next(iter(arms.values())).values()))
    return len(run.summary["best_x"])


def overall(runs, proto, ref, dims=None, metric=None):
    """Each arm against REF and random over every (problem, seed) pair of
    PROTO at once: paired differences of log10 regret at 20, 50 and all
    duels (METRIC, or the protocol's rule), mean +- s.e., wins/losses.
    DIMS "LO-HI" keeps the problems of LO to HI parameters."""
    metric = metric or DEFAULT_METRIC.get(base(proto), "winner")
    log_metric = metric if metric.startswith("log10-") else "log10-" + metric
    keys = sorted(k for k in runs if k[0] == proto)
    if dims is not None:
        lo, hi = (int(x) for x in dims.split("-"))
        keys = [k for k in keys if lo <= dimension(runs[k]) <= hi]
    if not keys:
        return
    ats = [20, 50, None]
    end = next(iter(next(iter(runs[keys[0]].values())).values())).iterations
    cols = " | ".join(str(n) if n is not None else str(end) for n in ats)
    print(f"| arm | vs {ref}: {cols} | vs random: {cols} | (problem, seed) pairs |")
    print("|---|" + "---|" * 6 + "---:|")
    for arm in ARMS:
        if not any(arm in runs[k] for k in keys):
            continue
        cells, pairs = [], 0
        for other in (ref, "random"):
            for n in ats:
                d = []
                for k in keys:
                    arms = runs[k]
                    if arm == other or arm not in arms or other not in arms:
                        continue
                    for sd in sorted(set(arms[arm]) & set(arms[other])):
                        x, _ = arms[arm][sd].at(log_metric, n)
                        y, _ = arms[other][sd].at(log_metric, n)
                        if x is not None and y is not None:
                            d.append(x - y)
                if not d:
                    cells.append("")
                    continue
                pairs = max(pairs, len(d))
                m, se = mean_se(d)
                w = sum(1 for x in d if x < -1e-9)
                l = sum(1 for x in d if x > 1e-9)
                f = flag(m, se)
                cells.append(f"{f}{m:+.3g} ± {fmt(se)}{f} ({w}/{l})")
        print(f"| {arm} | {' | '.join(cells)} | {pairs} |")


def diagnose(out, proto):
    """Per problem and arm, medians over seeds of: the share of BO
    challengers within 0.1 box widths of x_r in every coordinate (how
    local the search is), how often x_r moved during the BO duels, and the
    share of runs whose last refit left every lengthscale at its lower
    bound or the kernel variance at its cap (60)."""
    pdir = os.path.join(out, proto)
    try:
        with open(os.path.join(pdir, "PROBLEMS")) as fh:
            boxes = {d["name"]: (d["lower"], d["upper"]) for d in (json.loads(l) for l in fh if l.strip())}
    except OSError:
        print(f"({proto}: no PROBLEMS file, nothing to diagnose)")
        return
    rows = {}
    for f in sorted(os.listdir(pdir)):
        m = NAME.match(f)
        if not m or m["arm"] == "random" or m["problem"] not in boxes:
            continue
        with open(os.path.join(pdir, f)) as fh:
            lines = [json.loads(l) for l in fh if l.strip()]
        if not lines or not lines[-1].get("summary"):
            continue
        lo, hi = boxes[m["problem"]]
        width = [h - l for l, h in zip(lo, hi)]
        bo = [l for l in lines[:-1] if "iteration" in l and not l.get("initial")]
        near = moves = 0
        for l in bo:
            ref = l.get("reference")
            if ref is None:
                continue
            near += all(abs(a - b) <= 0.1 * w for a, b, w in zip(l["query"], ref, width))
        for a, b in zip(bo, bo[1:]):
            moves += a["best_x"] != b["best_x"]
        hyper = bo[-1]["hyperparameters"]["kernel"] if bo else None
        ls_floor = lines[-1].get("lengthscale_min", 0.05)
        at_floor = hyper is not None and all(
            ls <= ls_floor * w * 1.01 for ls, w in zip(hyper["lengthscales"], width))
        at_cap = hyper is not None and hyper["variance"] >= 59.9
        rows.setdefault((m["problem"], m["arm"]), []).append(
            (near / max(len(bo), 1), moves, at_floor, at_cap))
    print("| problem | arm | runs | challengers near x_r | x_r moves | lengthscales at floor | variance at cap |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (prob, arm), v in sorted(rows.items(), key=lambda kv: (kv[0][0], ARMS.index(kv[0][1]))):
        print(f"| {prob} | {arm} | {len(v)} | {st.median(x[0] for x in v):.0%} | "
              f"{st.median(x[1] for x in v):g} | {sum(x[2] for x in v)}/{len(v)} | "
              f"{sum(x[3] for x in v)}/{len(v)} |")


def status(runs, skipped):
    """Finished runs (seeds) per protocol, problem count and arm."""
    print("| protocol | problems | arm: finished runs (seeds of the slowest problem) |")
    print("|---|---:|---|")
    for proto in sorted({k[0] for k in runs}):
        keys = [k for k in runs if k[0] == proto]
        cells = []
        for arm in ARMS:
            counts = [len(runs[k].get(arm, {})) for k in keys]
            if any(counts):
                cells.append(f"{arm} {sum(counts)} ({min(counts)})")
        print(f"| {proto} | {len(keys)} | {', '.join(cells)} |")
    if skipped:
        print(f"\n({skipped} runs unfinished or set aside, not counted.)")


def update(path, out, runs, skipped, binaries, ref):
    """Rewrites the generated blocks of PATH (see the module's help)."""
    import contextlib
    import io
    with open(path) as fh:
        text = fh.read()
    block = re.compile(r"(<!-- acq:(?P<what>[^>]*?) -->\n)(?P<body>.*?)(<!-- /acq -->)", re.S)

    def fill(m):
        what = m["what"].split()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            if what[0] == "status":
                status(runs, skipped)
            elif what[0] == "table":
                metric = what[2] if len(what) > 2 else None
                ats = parse_at(what[3]) if len(what) > 3 else parse_at("20,50,end")
                tables(runs, binaries, ref, metric, ats, only=what[1])
            elif what[0] == "diagnose":
                diagnose(out, what[1])
            elif what[0] == "overall":
                rest = what[3:]
                dims = next((w for w in rest if re.fullmatch(r"\d+-\d+", w)), None)
                metric = next((w for w in rest if w != dims), None)
                overall(runs, what[1], what[2] if len(what) > 2 else ref, dims, metric)
            elif what[0] == "wins":
                wins(runs, what[1] if len(what) > 1 else ref)
            elif what[0] == "rules":
                rules_table(runs, only=what[1])
            else:
                raise SystemExit(f"bench-acq-summary.py: unknown block '{m['what']}' in {path}")
        return m.group(1) + buf.getvalue().strip("\n") + "\n" + m.group(4)

    with open(path, "w") as fh:
        fh.write(block.sub(fill, text))


def rules_table(runs, only=None):
    """Regret of each recommendation rule at the end, paired over seeds."""
    for proto in sorted({k[0] for k in runs}):
        if only is not None and proto != only:
            continue
        print(f"\n### {proto}: recommendation rules (regret at the end, lower is better)\n")
        print("| problem | arm | winner | evaluated | box | evaluated - winner | box - winner |")
        print("|---|---|---|---|---|---|---|")
        for (p_, prob) in sorted(k for k in runs if k[0] == proto):
            arms = runs[(proto, prob)]
            for arm in [x for x in ARMS if x in arms]:
                v = [(r.summary["regret"], r.summary.get("regret_evaluated"), r.summary.get("regret_box"))
                     for r in arms[arm].values()]
                v = [x for x in v if None not in x]
                if not v:
                    continue
                cols = [mean_se([x[i] for x in v]) for i in range(3)]
                de = mean_se([x[1] - x[0] for x in v])
                db = mean_se([x[2] - x[0] for x in v])
                cell = lambda ms: f"{fmt(ms[0])} ± {fmt(ms[1])}"
                fl = lambda ms: "**" if ms[1] == ms[1] and abs(ms[0]) > 2 * ms[1] else ""
                print(f"| {prob} | {arm} | {cell(cols[0])} ({len(v)}) | {cell(cols[1])} | {cell(cols[2])} | "
                      f"{fl(de)}{cell(de)}{fl(de)} | {fl(db)}{cell(db)}{fl(db)} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ref", default="ucb")
    ap.add_argument("--metric", choices=["winner", "evaluated", "box", "log10-winner",
                                         "log10-evaluated", "log10-box"])
    ap.add_argument("--at", default="20,50,end")
    ap.add_argument("--rows", action="store_true")
    ap.add_argument("--curves", action="store_true")
    ap.add_argument("--rules", action="store_true")
    ap.add_argument("--wins", action="store_true")
    ap.add_argument("--update", metavar="FILE")
    a = ap.parse_args()
    runs, skipped, binaries = load(a.out)
    if a.update:
        return update(a.update, a.out, runs, skipped, binaries, a.ref)
    if a.rows:
        return rows(runs, binaries)
    if a.curves:
        return curves(runs, binaries)
    if a.rules:
        return rules_table(runs)
    if a.wins:
        return wins(runs, a.ref)
    tables(runs, binaries, a.ref, a.metric, parse_at(a.at))
    if skipped:
        print(f"\n({skipped} incomplete runs skipped)")


if __name__ == "__main__":
    sys.exit(main())
