"""What the browser tests of the study server share: a WebDriver client
for chromedriver (python3's standard library only), `skewgp serve` as a
child process, study folders made with `skewgp study new`, and TAP
output."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# --no-sandbox: the suite may run as root (a fresh root's chroot), where
# chromium refuses its sandbox; --disable-dev-shm-usage: a minimal root may
# have a small or no /dev/shm.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage", "--window-size=1280,800", "--enable-automation",
         "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
         "--disable-renderer-backgrounding", "--disable-hang-monitor", "--disable-popup-blocking",
         "--password-store=basic", "--remote-debugging-address=127.0.0.1",
         "--remote-debugging-port=0"]
LOG_TAIL = 4000  # characters of a program's stderr shown when it fails
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
KEYS = {"left": "\ue012", "right": "\ue014", "shift": "\ue008", "enter": "\ue007",
        "backspace": "\ue003"}
TIMEOUT = 90  # seconds for any one wait: a loaded 2-core machine

n_test = 0


def tap_plan():
    print("1..%d" % n_test, flush=True)


def ok(cond, what):
    global n_test
    n_test += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n_test, what), flush=True)
    return cond


def comment(text):
    """TEXT as TAP diagnostic lines."""
    return "\n".join("# " + line for line in text.splitlines())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            return json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        raise RuntimeError("%s %s: %s %s" % (method, url, e.code, e.read()[:300]))


def stop_process(proc, timeout=10):
    """Ends PROC (SIGTERM, SIGKILL after TIMEOUT s) unless it has ended;
    its exit status (negative: the signal that ended it)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def log_tail(path):
    """The last LOG_TAIL characters of the file PATH, or why there are none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - LOG_TAIL))
            return f.read().decode("utf-8", "replace")
    except OSError as e:
        return "(no log: %s)" % e


class Browser:
    """One WebDriver session: a chromium of its own with its own profile (its
    own localStorage), as a participant on their own device.

    The browser is started here and chromedriver attaches to it at
    127.0.0.1: chromedriver's own launch reaches the browser's DevTools at
    the name "localhost", which a minimal root without /etc/hosts cannot
    resolve ("unable to connect to renderer")."""

    def __init__(self, driver):
        self.id = None
        self.stderr = ""  # the tail of chromium's stderr, once it has stopped
        self.profile = tempfile.mkdtemp(prefix="sb-chromium-")
        self.log = os.path.join(self.profile, "stderr.txt")
        # its temporary files (shared memory without /dev/shm) go with the profile
        env = dict(os.environ, TMPDIR=self.profile)
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen(
                [CHROMIUM, *FLAGS, "--user-data-dir=" + self.profile, "about:blank"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env)
        try:
            port = self._devtools_port()
            caps = {"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"debuggerAddress": "127.0.0.1:%d" % port}}}}
            self.id = http("POST", driver.url + "/session", caps)["value"]["sessionId"]
        except Exception as e:
            self.close()  # stops chromium, so its stderr is whole
            raise RuntimeError("no browser session: %s\n# chromium's stderr:\n%s\n"
                               "# chromedriver's stderr:\n%s"
                               % (e, comment(self.stderr), comment(driver.log_tail())))
        self.base = driver.url + "/session/" + self.id

    def _devtools_port(self):
        """The port chromium's DevTools listen on (its profile's
        DevToolsActivePort), once it is ready."""
        path = os.path.join(self.profile, "DevToolsActivePort")
        end = time.time() + TIMEOUT
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("chromium exited with status %d" % self.proc.returncode)
            try:
                with open(path) as f:
                    first = f.readline().strip()
                if first:
                    return int(first)
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        raise RuntimeError("chromium did not open its DevTools port in %d s" % TIMEOUT)

    def cmd(self, method, path, body=None):
        return http(method, self.base + path, body)["value"]

    def go(self, url):
        self.cmd("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(self, css):
        self.cmd("POST", "/element/%s/click" % self.find(css), {})

    def click_until_gone(self, css):
        """Clicks CSS and waits until that element has left the page."""
        element = self.find(css)
        self.cmd("POST", "/element/%s/click" % element, {})
        end = time.time() + TIMEOUT
        while time.time() < end:
            try:
                if not self.js("return document.body.contains(arguments[0]);", {ELEMENT: element}):
                    return
            except RuntimeError as e:
                # chromedriver refuses to pass an element that has left the page
                if "stale element" in str(e):
                    return
                raise
            time.sleep(0.1)
        raise RuntimeError("%s stayed on the page after a click" % css)

    def keys(self, *names, shift=False):
        seq = []
        if shift:
            seq.append({"type": "keyDown", "value": KEYS["shift"]})
        for n in names:
            v = KEYS.get(n, n)
            seq += [{"type": "keyDown", "value": v}, {"type": "keyUp", "value": v}]
        if shift:
            seq.append({"type": "keyUp", "value": KEYS["shift"]})
        self.cmd("POST", "/actions", {"actions": [{"type": "key", "id": "kb", "actions": seq}]})
        self.cmd("DELETE", "/actions")

    def refresh(self):
        self.cmd("POST", "/refresh", {})

    def wait(self, script, what):
        end = time.time() + TIMEOUT
        while time.time() < end:
            v = self.js(script)
            if v:
                return v
            time.sleep(0.1)
        raise RuntimeError("timed out waiting for " + what)

    def question_on_screen(self, after=None):
        """The id of the question shown and ready to answer (not AFTER)."""
        return int(self.wait(
            "const q = document.getElementById('question');"
            "const id = q.dataset.question;"
            "return !q.hidden && id && id !== arguments[0] ? id : null;".replace(
                "arguments[0]", json.dumps(str(after) if after else "")),
            "a question on screen"))

    def participant(self, host):
        state = self.js("return localStorage.getItem(arguments[0]);", "skewbench:" + host)
        return json.loads(state)["participant"]

    def close(self):
        """Ends the session and the browser; again is harmless."""
        if self.id:
            try:
                http("DELETE", self.base)
            except Exception:
                pass
            self.id = None
        stop_process(self.proc)
        if os.path.isdir(self.profile):
            self.stderr = log_tail(self.log)
            shutil.rmtree(self.profile, ignore_errors=True)


def require_browser():
    """False after a TAP skip of the whole program where Debian's chromium
    or chromedriver is not installed."""
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not os.access(tool, os.X_OK):
            print("1..0 # SKIP %s is not installed (build-aux/install-deps --tests installs "
                  "chromium and chromium-driver)" % tool)
            return False
    return True


class Driver:
    """chromedriver on a free port of 127.0.0.1."""

    def __init__(self):
        port = free_port()
        self.dir = tempfile.mkdtemp(prefix="sb-chromedriver-")
        self.log = os.path.join(self.dir, "stderr.txt")
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen([CHROMEDRIVER, "--port=%d" % port,
                                          "--allowed-ips=127.0.0.1"],
                                         stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        self.url = "http://127.0.0.1:%d" % port
        end = time.time() + TIMEOUT
        while True:
            try:
                http("GET", self.url + "/status")
                return
            except Exception as e:
                if time.time() > end or self.proc.poll() is not None:
                    self.stop()
                    raise RuntimeError("chromedriver did not answer: %s\n# its output:\n%s"
                                       % (e, comment(self.log_tail())))
                time.sleep(0.2)

    def log_tail(self):
        return log_tail(self.log)

    def stop(self):
        stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)


class Server:
    def __init__(self, skewgp, study, *options):
        self.proc = subprocess.Popen([skewgp, "serve", study, "--port", "0", *options],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        ready = json.loads(line)
        self.url = ready["url"]
        self.host = self.url.split("/")[2]

    def stop(self):
        return stop_process(self.proc, timeout=30)


def make_study(skewgp, root, name, question, extra=None):
    exp = {"title": "Browser test " + name, "mode": "preference",
           "parameters": [{"name": "x", "lower": 0, "upper": 1},
                          {"name": "y", "lower": 0, "upper": 1}],
           "budget": 4, "initial": 2, "seed": 11, "question": question}
    exp.update(extra or {})
    path = os.path.join(root, name + ".json")
    with open(path, "w") as f:
        json.dump(exp, f)
    study = os.path.join(root, name)
    subprocess.run([skewgp, "study", "new", path, study, "--model", "independent",
                    "--repeat-rate", "0"], check=True, stdout=subprocess.DEVNULL)
    return study


