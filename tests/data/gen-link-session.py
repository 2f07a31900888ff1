#!/usr/bin/python3
"""Writes tests/data/link-session.json: a SkewBench preference session with
N = 60 random duels on [-2.6, 2.6] answered by a simulated person whose answers
follow the probit model exactly: P(a preferred) = Phi(g(a) - g(b)), i.e.
probit_sd = 1/sqrt2 (the engine default), g(x) = 2 exp(-(x - 0.5)^2 / 2)
(smooth at the default lengthscale, 0.2 x the box). Used by tests/test-cli-link.c and
tests/test-ui-link.c. With --decisive (N = 100) the person always
prefers the better point (a noise-free, far steeper link than the model's probit):
tests/data/link-session-decisive.json.

    /usr/bin/python3 tests/data/gen-link-session.py > tests/data/link-session.json
    /usr/bin/python3 tests/data/gen-link-session.py --decisive > tests/data/link-session-decisive.json
"""
import json
import math
import random
import sys

DECISIVE = '--decisive' in sys.argv[1:]
N = 100 if DECISIVE else 60
rng = random.Random(20261122)


def g(x):
    return 2.0 * math.exp(-(x - 0.5) ** 2 / 2)


def phi_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


obs = []
for i in range(N):
    a = round(rng.uniform(-2.6, 2.6), 6)
    b = round(rng.uniform(-2.6, 2.6), 6)
    u = rng.random()
    won = g(a) > g(b) if DECISIVE else u < phi_cdf(g(a) - g(b))
    obs.append({"kind": "duel", "time": "2026-11-22T06:%02d:00Z" % (i % 60),
                "a": [a], "b": [b], "winner": "a" if won else "b"})

session = {
    "format": "skewbench-session",
    "version": 1,
    "experiment": {
        "title": "Link diagnostic fixture (%s answers)" % ("decisive" if DECISIVE else "probit"),
        "template": "custom", "mode": "preference", "acquisition": "ucb",
        "surrogate": "skewgp", "budget": 60, "initial": 5, "seed": 3,
        "parameters": [{"name": "x", "unit": "", "lower": -2.6, "upper": 2.6}],
    },
    "observations": obs,
}
print(json.dumps(session, indent=2))
