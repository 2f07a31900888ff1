#!/usr/bin/python3
"""The participant page in a real browser: Debian's chromium, headless,
driven through chromedriver's WebDriver protocol (python3's standard
library only), against `skewgp serve` on 127.0.0.1.

Three participants answer a duel study (one with the arrow keys and
Shift for a sure answer, one by clicking, one who reloads the page in the
middle of a question and then answers), a fourth a best-of-3 study (digit
keys and clicks), a fifth a duel study with its own question text and a
confidence rating 1..5 (the page shows the text and the five ratings, and
sends the rating pressed) and a sixth a ranking study (clicks, a key,
Backspace to undo, Enter to confirm). Before each answer the open question is read
from the session file (what the page was given); afterwards every
participant's session file must hold exactly the answers clicked: the
question id, the option chosen (the option shown at the place clicked),
the ranking, the confidence, a response time, and the order shown.

Usage: test-browser.py SKEWGP   (TAP on stdout)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_harness import (Browser, Driver, Server, make_study, ok,  # noqa: E402
                           require_browser, tap_plan)

def open_question(study, code):
    with open(os.path.join(study, "participants", code + ".json")) as f:
        return json.load(f)["pending"]


def observations(study, code):
    with open(os.path.join(study, "participants", code + ".json")) as f:
        return json.load(f)["observations"]


def answer_duels(b, server, study, style, reload_at=None):
    """Answers every duel of one participant; STYLE 'keys' or 'clicks'.
    Returns the expected records and the participant's code."""
    b.go(server.url)
    b.wait("return !document.getElementById('welcome').hidden", "the welcome screen")
    b.click("#start")
    expected, last = [], None
    n = 0
    while True:
        done = b.js("return !document.getElementById('done').hidden")
        if done:
            break
        qid = b.question_on_screen(last)
        code = b.participant(server.host)
        pending = open_question(study, code)
        assert pending["id"] == qid, (pending, qid)
        if reload_at is not None and n == reload_at:
            b.refresh()
            again = b.question_on_screen()
            ok(again == qid, "a reload in the middle of question %d shows the same question" % qid)
            reload_at = None
        place = n % 2
        sure = style == "keys" and n == 1
        if style == "keys":
            b.keys("left" if place == 0 else "right", shift=sure)
        else:
            b.click("#options .option:nth-child(%d)" % (place + 1))
        expected.append({"question": qid, "chosen": pending["shown_order"][place],
                         "shown_order": pending["shown_order"],
                         "confidence": "strong" if sure else None})
        last = qid
        n += 1
        b.wait("const q = document.getElementById('question');"
               "return !document.getElementById('done').hidden || "
               "(q.dataset.question && q.dataset.question !== '%d');" % qid, "the next question")
    return expected, b.participant(server.host)


def check_duels(study, code, expected, who):
    obs = observations(study, code)
    ok(len(obs) == len(expected), "%s: %d answers recorded, %d given" % (who, len(obs), len(expected)))
    for o, e in zip(obs, expected):
        winner = o.get("winner")
        chosen = {"a": 0, "b": 1}.get(winner)
        good = (o.get("question") == e["question"] and o.get("kind") == "duel"
                and chosen == e["chosen"] and o.get("shown_order") == e["shown_order"]
                and o.get("confidence") == e["confidence"]
                and isinstance(o.get("response_time"), (int, float)) and o["response_time"] > 0)
        if not ok(good, "%s: question %d recorded as clicked" % (who, e["question"])):
            print("# recorded %s\n# expected %s" % (json.dumps(o), json.dumps(e)))


def each_question(b, server, study):
    """Starts the page and yields (question id, the open question as the
    session file has it, its number from 0) until done; after each, waits
    for the next question on screen."""
    b.go(server.url)
    b.wait("return !document.getElementById('welcome').hidden", "the welcome screen")
    b.click("#start")
    n = 0
    while not b.js("return !document.getElementById('done').hidden"):
        qid = b.question_on_screen()
        yield qid, open_question(study, b.participant(server.host)), n
        n += 1
        b.wait("const q = document.getElementById('question');"
               "return !document.getElementById('done').hidden || "
               "(q.dataset.question && q.dataset.question !== '%d');" % qid, "the next question")


def run_choice(b, server, study):
    expected = []
    for qid, pending, n in each_question(b, server, study):
        place = n % 3
        if n % 2 == 0:
            b.keys(str(place + 1))
        else:
            b.click("#options .option:nth-child(%d)" % (place + 1))
        expected.append((qid, pending["shown_order"][place]))
    code = b.participant(server.host)
    obs = observations(study, code)
    ok(len(obs) == len(expected), "best of 3: %d answers recorded" % len(obs))
    for o, (qid, chosen) in zip(obs, expected):
        good = o.get("question") == qid and o.get("kind") == "choice" and o.get("chosen") == chosen
        if not ok(good, "best of 3: question %d recorded as clicked" % qid):
            print("# recorded %s, expected chosen %d" % (json.dumps(o), chosen))


def run_own_wording(b, server, study, text, levels):
    """A duel study with its own question text and a rating scale 1..LEVELS:
    the page shows the text and one button per rating; each answer is
    sent with the rating pressed (none for the first), as a number."""
    expected = []
    for qid, pending, n in each_question(b, server, study):
        ok(b.js("return document.getElementById('prompt').textContent") == text,
           "own wording: question %d shows the experiment's question text" % qid)
        shown = b.js("return Array.from(document.querySelectorAll('#confidence-buttons button'))"
                     ".map((e) => e.textContent)")
        ok(shown == [str(i) for i in range(1, levels + 1)],
           "own wording: question %d offers the ratings 1 to %d (%s)" % (qid, levels, shown))
        rating = None if n == 0 else 1 + (n * 2) % levels
        if rating is not None:
            b.click("#confidence-buttons button:nth-child(%d)" % rating)
        place = n % 2
        b.click("#options .option:nth-child(%d)" % (place + 1))
        expected.append((qid, pending["shown_order"][place], rating))
    code = b.participant(server.host)
    obs = observations(study, code)
    ok(len(obs) == len(expected), "own wording: %d answers recorded" % len(obs))
    for o, (qid, chosen, rating) in zip(obs, expected):
        winner = {"a": 0, "b": 1}.get(o.get("winner"))
        good = (o.get("question") == qid and winner == chosen and o.get("confidence") == rating
                and (rating is None or type(o.get("confidence")) is int))
        if not ok(good, "own wording: question %d recorded with rating %s" % (qid, rating)):
            print("# recorded %s" % json.dumps(o))


def run_ranking(b, server, study):
    expected = []
    for qid, pending, n in each_question(b, server, study):
        order = pending["shown_order"]
        # places clicked best first: 3rd, 1st, 2nd (a wrong one undone first)
        places = [2, 0, 1]
        b.click("#options .option:nth-child(3)")
        b.keys("2")                       # a slip ...
        b.keys("backspace")               # ... undone
        confirm_before = b.js("return document.getElementById('rank-confirm').disabled")
        b.click("#options .option:nth-child(1)")
        b.keys("2")
        b.keys("enter")
        ok(confirm_before, "ranking: Confirm is disabled until every option is ranked")
        expected.append((qid, [order[p] for p in places]))
    code = b.participant(server.host)
    obs = observations(study, code)
    ok(len(obs) == len(expected), "ranking: %d answers recorded" % len(obs))
    for o, (qid, ranking) in zip(obs, expected):
        good = o.get("question") == qid and o.get("kind") == "ranking" and o.get("ranking") == ranking
        if not ok(good, "ranking: question %d recorded as clicked" % qid):
            print("# recorded %s, expected ranking %s" % (json.dumps(o), ranking))


def main():
    if len(sys.argv) != 2:
        print("usage: test-browser.py SKEWGP", file=sys.stderr)
        return 2
    skewgp = sys.argv[1]
    if not require_browser():
        return 0
    root = tempfile.mkdtemp(prefix="sb-browser-")
    driver = None
    servers, browsers = [], []
    try:
        driver = Driver()
        duels = make_study(skewgp, root, "duels", {"kind": "duel", "ties": True})
        server = Server(skewgp, duels)
        servers.append(server)
        for style, reload_at, who in (("keys", None, "participant 1 (keys)"),
                                      ("clicks", None, "participant 2 (clicks)"),
                                      ("keys", 1, "participant 3 (reload)")):
            b = Browser(driver)
            browsers.append(b)
            expected, code = answer_duels(b, server, duels, style, reload_at)
            check_duels(duels, code, expected, who)
            b.close()
        ok(server.stop() == 0, "the duel study's server stops cleanly on SIGTERM")

        choice = make_study(skewgp, root, "choice", {"kind": "choice", "options": 3})
        server = Server(skewgp, choice)
        servers.append(server)
        b = Browser(driver)
        browsers.append(b)
        run_choice(b, server, choice)
        b.close()
        server.stop()

        text = "Which picture looks more natural?"
        wording = make_study(skewgp, root, "wording", {"kind": "duel", "ties": True},
                             {"question_text": text,
                              "confidence_scale": {"kind": "rating", "levels": 5}})
        server = Server(skewgp, wording)
        servers.append(server)
        b = Browser(driver)
        browsers.append(b)
        run_own_wording(b, server, wording, text, 5)
        b.close()
        server.stop()

        ranking = make_study(skewgp, root, "ranking", {"kind": "ranking", "options": 3})
        server = Server(skewgp, ranking)
        servers.append(server)
        b = Browser(driver)
        browsers.append(b)
        run_ranking(b, server, ranking)
        b.close()
        server.stop()
    except Exception as e:  # a failure to drive the browser is a failure
        ok(False, "the browser run: %s" % e)
    finally:
        for b in browsers:
            b.close()
        for s in servers:
            if s.proc.poll() is None:
                s.proc.kill()
        if driver:
            driver.stop()
        shutil.rmtree(root, ignore_errors=True)
    tap_plan()
    return 0


if __name__ == "__main__":
    sys.exit(main())
