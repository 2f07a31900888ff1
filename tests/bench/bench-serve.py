#!/usr/bin/python3
"""Load test of the study server, on 127.0.0.1 only, bounded in time.

N simulated participants join a study served by `skewgp serve` and answer
concurrently (each its own thread and keep-alive connection: GET the
question, think THINK seconds, POST the answer, GET the next question)
until each has ANSWERS answers or the time limit is reached. With --kill
the server is killed with SIGKILL in the middle of the run and started
again; the participants keep their tokens and carry on (an answer whose
reply was lost is sent again, as the page does). At the end every
participant's session file is compared with the answers the server
acknowledged: none may be missing and none recorded twice.

Prints one Markdown table row set: p50/p95/max of answer -> next question
(the time from sending an answer to having the next question), requests
per second, the server's peak resident memory (VmHWM), acknowledged,
lost and doubled answers.

Usage: bench-serve.py SKEWGP [--participants N] [--answers K] [--model M]
                      [--kill] [--seconds S] [--think T] [--study DIR]
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def make_study(skewgp, root, budget, model):
    exp = {"title": "Load test", "mode": "preference",
           "parameters": [{"name": "x", "lower": 0, "upper": 1},
                          {"name": "y", "lower": 0, "upper": 1}],
           "budget": budget, "initial": 2, "seed": 3,
           "question": {"kind": "duel", "ties": True}}
    path = os.path.join(root, "experiment.json")
    with open(path, "w") as f:
        json.dump(exp, f)
    study = os.path.join(root, "study")
    subprocess.run([skewgp, "study", "new", path, study, "--model", model, "--repeat-rate", "0.1"],
                   check=True, stdout=subprocess.DEVNULL)
    return study


class Server:
    def __init__(self, skewgp, study, port):
        self.proc = subprocess.Popen([skewgp, "serve", study, "--port", str(port)],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = json.loads(self.proc.stdout.readline())
        self.port = int(ready["url"].rsplit(":", 1)[1].strip("/"))
        self.admin = ready["admin_token"]

    def peak_kib(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            return 0
        return 0

    def cpu_seconds(self):
        try:
            with open("/proc/%d/stat" % self.proc.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0


class Shared:
    def __init__(self):
        self.lock = threading.Lock()
        self.port = None
        self.latencies = []       # (answers given before, seconds answer -> next question)
        self.requests = 0
        self.stop = False


class Participant(threading.Thread):
    def __init__(self, shared, answers, think, seed):
        super().__init__(daemon=True)
        self.shared, self.answers, self.think = shared, answers, think
        self.rng = random.Random(seed)
        self.token = None
        self.code = None
        self.acked = []           # question ids the server acknowledged
        self.conn = None
        self.error = None

    def request(self, method, path, body=None):
        """(status, document); retries while the server is away (killed)."""
        while not self.shared.stop:
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.shared.port, timeout=60)
                headers = {"Content-Type": "application/json"}
                if self.token:
                    headers["Authorization"] = "Bearer " + self.token
                self.conn.request(method, path, body=None if body is None else json.dumps(body),
                                  headers=headers)
                r = self.conn.getresponse()
                data = r.read()
                with self.shared.lock:
                    self.shared.requests += 1
                if r.status in (429, 503):
                    time.sleep(0.2)
                    continue
                return r.status, json.loads(data) if data else None
            except (OSError, http.client.HTTPException):
                if self.conn:
                    self.conn.close()
                self.conn = None
                time.sleep(0.1)
        raise RuntimeError("stopped")

    def run(self):
        try:
            status, doc = self.request("POST", "/api/join", {})
            assert status == 200, (status, doc)
            self.token, self.code = doc["token"], doc["participant"]
            status, q = self.request("GET", "/api/question")
            while not self.shared.stop and status == 200 and not q.get("done"):
                time.sleep(self.think * self.rng.random())
                kind = self.rng.random()
                answer = {"tie": True} if kind < 0.1 else {"chosen": self.rng.randrange(2)}
                body = {"question": q["question"], "answer": answer,
                        "response_time": round(0.5 + self.rng.random(), 3)}
                t0 = time.monotonic()
                status, reply = self.request("POST", "/api/answer", body)
                if status == 200:
                    self.acked.append(q["question"])
                elif status != 409:
                    raise RuntimeError("answer: %d %s" % (status, reply))
                status, q = self.request("GET", "/api/question")
                with self.shared.lock:
                    self.shared.latencies.append((len(self.acked), time.monotonic() - t0))
                if len(self.acked) >= self.answers:
                    break
        except Exception as e:  # reported with the results
            if not self.shared.stop:
                self.error = repr(e)


def recorded(study, code):
    with open(os.path.join(study, "participants", code + ".json")) as f:
        return [o.get("question") for o in json.load(f)["observations"]]


def percentile(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("skewgp")
    ap.add_argument("--participants", type=int, default=50)
    ap.add_argument("--answers", type=int, default=20)
    ap.add_argument("--model", default="independent")
    ap.add_argument("--kill", action="store_true")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--think", type=float, default=0.5)
    args = ap.parse_args()

    root = tempfile.mkdtemp(prefix="sb-bench-serve-")
    study = make_study(args.skewgp, root, args.answers, args.model)
    shared = Shared()
    server = Server(args.skewgp, study, 0)
    shared.port = server.port
    people = [Participant(shared, args.answers, args.think, i) for i in range(args.participants)]
    t_start = time.monotonic()
    cpu = 0.0
    peak = 0
    for p in people:
        p.start()
    killed_at = None
    deadline = t_start + args.seconds
    try:
        while any(p.is_alive() for p in people) and time.monotonic() < deadline:
            time.sleep(0.2)
            peak = max(peak, server.peak_kib())
            if args.kill and killed_at is None:
                done = sum(len(p.acked) for p in people)
                if done >= args.participants * args.answers // 2:
                    cpu += server.cpu_seconds()
                    server.proc.send_signal(signal.SIGKILL)
                    server.proc.wait()
                    killed_at = done
                    server = Server(args.skewgp, study, shared.port)
    finally:
        shared.stop = not all(not p.is_alive() for p in people)
        shared.stop = True
        for p in people:
            p.join(timeout=5)
        wall = time.monotonic() - t_start
        cpu += server.cpu_seconds()
        peak = max(peak, server.peak_kib())
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=60)

    acked = sum(len(p.acked) for p in people)
    lost = doubled = 0
    for p in people:
        if p.code is None:
            continue
        rec = recorded(study, p.code)
        lost += sum(1 for q in p.acked if q not in rec)
        doubled += len(rec) - len(set(rec))
    errors = [p.error for p in people if p.error]
    lat = [t for _, t in shared.latencies]
    # the last quarter of each participant's answers: the study at its largest
    late = [t for n, t in shared.latencies if n > args.answers * 3 // 4]
    print("| participants | answers each | model | SIGKILL | answers acknowledged | lost | "
          "recorded twice | p50 answer -> next question (ms) | p95 (ms) | p95, last quarter (ms) | "
          "max (ms) | "
          "requests/s | server CPU s | peak RSS (MiB) | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("| %d | %d | %s | %s | %d | %d | %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %.1f |" % (
        args.participants, args.answers, args.model,
        "after %d answers" % killed_at if killed_at is not None else "no",
        acked, lost, doubled, 1000 * percentile(lat, 50), 1000 * percentile(lat, 95),
        1000 * percentile(late, 95),
        1000 * max(lat) if lat else float("nan"), shared.requests / wall, cpu, peak / 1024, wall))
    if errors:
        print("\nclient errors: %d, e.g. %s" % (len(errors), errors[0]))
    shutil.rmtree(root, ignore_errors=True)
    return 0 if lost == 0 and doubled == 0 and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
