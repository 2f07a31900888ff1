#!/usr/bin/python3
"""The jsPsych example (examples/jspsych) in headless chromium: the
example folder is served from one port of 127.0.0.1, the study by
`skewgp serve --origin` from another (a cross-origin page, as a lab
hosting its jsPsych experiment elsewhere would have it); a participant
consents, answers every duel by clicking, and the session file holds
exactly the answers in jsPsych's own data (question ids, options chosen,
shown order).

Usage: test-jspsych.py SKEWGP EXAMPLE_DIR   (TAP on stdout; skips where
chromium or the example's npm packages are not installed)
"""
import functools
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_harness import (Browser, Driver, Server, make_study, ok,  # noqa: E402
                           require_browser, tap_plan)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    skewgp, example = sys.argv[1], sys.argv[2]
    if not require_browser():
        return 0
    if not os.path.exists(os.path.join(example, "node_modules", "jspsych", "dist")):
        print("1..0 # SKIP jsPsych is not installed: npm ci in %s (build-aux/run-tests does)"
              % example)
        return 0
    root = tempfile.mkdtemp(prefix="sb-jspsych-")
    handler = functools.partial(QuietHandler, directory=example)
    pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    origin = "http://127.0.0.1:%d" % pages.server_address[1]
    driver = server = b = None
    try:
        study = make_study(skewgp, root, "jspsych", {"kind": "duel", "ties": False})
        server = Server(skewgp, study, "--origin", origin)
        driver = Driver()
        b = Browser(driver)
        b.go("%s/index.html?server=%s" % (origin, server.url))
        b.wait("return document.querySelector('.jspsych-btn') !== null", "the consent screen")
        b.click(".jspsych-btn")
        clicks = 0
        while clicks < 10:
            state = b.wait("if (document.querySelector('.skewbench-option')) return 'question';"
                           "const t = document.body.innerText;"
                           "return t.includes('Thank you') ? 'done' : null;", "a question")
            if state == "done":
                break
            place = clicks % 2
            b.click_until_gone(".skewbench-option[data-place='%d']" % place)
            clicks += 1
        data = b.js("return jsPsych.data.get().filter({skewbench_done: false}).values();")
        ok(len(data) == 4, "jsPsych ran every question of the budget (%d trials)" % len(data))
        code = data[0]["participant"] if data else None
        with open(os.path.join(study, "participants", code + ".json")) as f:
            obs = json.load(f)["observations"]
        ok(len(obs) == len(data), "the session holds %d answers, jsPsych %d" % (len(obs), len(data)))
        for o, d in zip(obs, data):
            chosen = {"a": 0, "b": 1}.get(o.get("winner"))
            good = (o.get("question") == d["question"] and chosen == d["chosen"]
                    and o.get("shown_order") == d["shown_order"] and d["rt"] >= 0)
            if not ok(good, "question %d: the session records jsPsych's answer" % d["question"]):
                print("# session %s\n# jsPsych %s" % (json.dumps(o), json.dumps(d)))
    except Exception as e:
        ok(False, "the jsPsych run: %s" % e)
    finally:
        if b:
            b.close()
        if server:
            server.stop()
        if driver:
            driver.stop()
        pages.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    tap_plan()
    return 0


if __name__ == "__main__":
    sys.exit(main())
