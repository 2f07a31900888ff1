# read-study.py — the study export in pandas: one row per option shown.
# Run: /usr/bin/python3 examples/study-analysis/read-study.py [study.csv]
import sys

import pandas as pd

path = sys.argv[1] if len(sys.argv) > 1 else "examples/study-analysis/study.csv"
rows = pd.read_csv(path, parse_dates=["time"])
print(rows.dtypes.to_string())
duels = rows[rows["kind"] == "duel"]
# the option each participant preferred, one row per answer
chosen = duels[duels["answer"] == 1]
print(chosen.groupby("participant")[["gamma", "brightness"]].mean().round(3).to_string())
# how often the option shown first was preferred
first = duels[duels["shown_position"] == 1]
print("first shown preferred:", round(first["answer"].mean(), 3))
print("answers per participant:", chosen.groupby("participant").size().to_dict())
# the numbers are written as typed: Python's shortest repr of each value
# read is the text in the file
text = pd.read_csv(path, dtype=str)
same = all(repr(float(t)) == t or repr(float(t)) == t + ".0"
           for t in pd.concat([text["gamma"], text["brightness"]]))
print("numbers read back as written:", same)
