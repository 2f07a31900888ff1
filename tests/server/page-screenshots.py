#!/usr/bin/python3
"""Screenshots of the participant page in headless chromium, at a desktop
and a phone size: a colour study served by `skewgp serve` on 127.0.0.1,
its consent text, then a question with the colours on screen.

Usage: page-screenshots.py SKEWGP OUTPUT_DIR
Writes serve-page-desktop.png (1280x800), serve-page-desktop-1024.png
(1024x768), serve-page-phone.png and serve-page-consent-phone.png into
OUTPUT_DIR.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_harness import Browser, Driver, Server, require_browser  # noqa: E402

CONSENT = ("This study asks which of two colours you like better, about 20 times. "
           "It takes about five minutes. Your answers are stored under a code, "
           "never with your name. You may stop at any time.")


def make_colour_study(skewgp, root):
    exp = {"title": "Which colour do you like?", "mode": "preference",
           "parameters": [{"name": "lightness", "lower": 0.4, "upper": 0.9},
                          {"name": "chroma", "lower": 0.02, "upper": 0.2},
                          {"name": "hue", "lower": 0, "upper": 360, "scale": "periodic"}],
           "budget": 20, "initial": 2, "seed": 4,
           "question": {"kind": "duel", "ties": True},
           "stimulus": {"kind": "colour"}}
    path = os.path.join(root, "colours.json")
    with open(path, "w") as f:
        json.dump(exp, f)
    study = os.path.join(root, "colours")
    subprocess.run([skewgp, "study", "new", path, study, "--model", "independent"],
                   check=True, stdout=subprocess.DEVNULL)
    consent = os.path.join(root, "consent.txt")
    with open(consent, "w") as f:
        f.write(CONSENT)
    return study, consent


def shot(b, path, width, height):
    b.cmd("POST", "/window/rect", {"width": width, "height": height})
    png = base64.b64decode(b.cmd("GET", "/screenshot"))
    with open(path, "wb") as f:
        f.write(png)


def main():
    skewgp, out = sys.argv[1], sys.argv[2]
    if not require_browser():
        return 1
    root = tempfile.mkdtemp(prefix="sb-shots-")
    driver = server = b = None
    try:
        study, consent = make_colour_study(skewgp, root)
        server = Server(skewgp, study, "--consent", consent)
        driver = Driver()
        b = Browser(driver)
        b.cmd("POST", "/window/rect", {"width": 390, "height": 844})
        b.go(server.url)
        b.wait("return !document.getElementById('welcome').hidden", "the welcome screen")
        shot(b, os.path.join(out, "serve-page-consent-phone.png"), 390, 844)
        b.click("#consent-check")
        b.click("#start")
        b.question_on_screen()
        shot(b, os.path.join(out, "serve-page-phone.png"), 390, 844)
        shot(b, os.path.join(out, "serve-page-desktop.png"), 1280, 800)
        shot(b, os.path.join(out, "serve-page-desktop-1024.png"), 1024, 768)
    finally:
        if b:
            b.close()
        if server:
            server.stop()
        if driver:
            driver.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
