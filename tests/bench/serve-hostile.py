#!/usr/bin/python3
"""Hostile requests against `skewgp serve`, on 127.0.0.1 only, bounded in
time: malformed JSON, huge headers and bodies, slow clients, wrong tokens,
path traversal (plain, encoded, doubled), idle connections by the
hundred, request floods. Each request's answer is written as a Markdown
table (tests/bench/results-fuzz.md keeps one run); afterwards no answer
may contain anything of a file outside what the protocol serves (a secret
file beside the study, the study index, the access file, another
participant's session) and the server must still answer a normal request.

Usage: serve-hostile.py SKEWGP   (exit status 1 when a check fails)
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

SECRET = "TOPSECRET-5c1f"


def make_study(skewgp, root):
    exp = {"title": "Hostile", "mode": "preference",
           "parameters": [{"name": "x", "lower": 0, "upper": 1}],
           "budget": 10, "question": {"kind": "duel"}}
    path = os.path.join(root, "exp.json")
    with open(path, "w") as f:
        json.dump(exp, f)
    study = os.path.join(root, "study")
    subprocess.run([skewgp, "study", "new", path, study, "--model", "independent"], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(root, "secret.txt"), "w") as f:
        f.write(SECRET)
    os.symlink(os.path.join(root, "secret.txt"), os.path.join(study, "link-to-secret.txt"))
    return study


def raw(port, data, read_timeout=20.0, send_slowly=None):
    """Sends DATA (bytes) and reads until the server closes or answers a
    whole response: (status line or what happened, body, seconds)."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=read_timeout)
    try:
        if send_slowly:
            for i in range(0, len(data)):
                s.sendall(data[i:i + 1])
                time.sleep(send_slowly)
                if time.monotonic() - t0 > read_timeout:
                    break
        else:
            s.sendall(data)
        chunks = []
        while True:
            try:
                c = s.recv(65536)
            except socket.timeout:
                chunks.append(b"")
                return "no answer in %.0f s" % read_timeout, b"", time.monotonic() - t0
            except ConnectionResetError:
                break
            if not c:
                break
            chunks.append(c)
            text = b"".join(chunks)
            head, sep, body = text.partition(b"\r\n\r\n")
            if sep:
                length = None
                for line in head.split(b"\r\n")[1:]:
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        length = int(v.strip())
                if length is not None and len(body) >= length:
                    break
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        s.close()
    text = b"".join(chunks) if 'chunks' in dir() else b""
    head, _, body = text.partition(b"\r\n\r\n")
    status = head.split(b"\r\n")[0].decode(errors="replace") if head else "connection closed"
    return status, body, time.monotonic() - t0


def request(port, method, path, token=None, body=None, headers=(), **kw):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1:%d" % port, "Connection: close"]
    if token:
        lines.append("Authorization: Bearer " + token)
    data = b""
    if body is not None:
        data = body if isinstance(body, bytes) else body.encode()
        lines.append("Content-Type: application/json")
        lines.append("Content-Length: %d" % len(data))
    lines += list(headers)
    return raw(port, ("\r\n".join(lines) + "\r\n\r\n").encode() + data, **kw)


def main():
    skewgp = sys.argv[1]
    root = tempfile.mkdtemp(prefix="sb-hostile-")
    study = make_study(skewgp, root)
    proc = subprocess.Popen([skewgp, "serve", study, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    ready = json.loads(proc.stdout.readline())
    port = int(ready["url"].rsplit(":", 1)[1].strip("/"))
    rows, bodies, failures = [], [], []

    def check(what, result, expect):
        status, body, seconds = result
        bodies.append(body)
        good = expect(status) if callable(expect) else status.startswith("HTTP/1.1 %d" % expect)
        shown = body[:70].decode(errors="replace").replace("|", "\\|").replace("\n", " ")
        rows.append("| %s | %s | %s | %.2f | %s |" % (what, status, shown, seconds,
                                                       "yes" if good else "**NO**"))
        if not good:
            failures.append(what)
        return body

    try:
        joined = json.loads(check("POST /api/join {} (a participant to attack from)",
                                  request(port, "POST", "/api/join", body="{}"), 200))
        token = joined["token"]
        other = json.loads(check("POST /api/join {} (a second participant)",
                                 request(port, "POST", "/api/join", body="{}"), 200))
        check("GET /api/question (the second participant's first question)",
              request(port, "GET", "/api/question", token=other["token"]), 200)
        # malformed JSON and bodies
        for what, body in (("truncated JSON", '{"question": 1,'),
                           ("not an object", "[1,2,3]"),
                           ("NaN", '{"question": NaN, "answer": {"chosen": 0}}'),
                           ("duplicate member", '{"question": 1, "question": 2, "answer": {"chosen": 0}}'),
                           ("100,000 nested arrays (over 64 KiB)", "[" * 100000),
                           ("30,000 nested arrays", "[" * 30000 + "]" * 30000),
                           ("invalid UTF-8", b'{"question": 1, "answer": {"chosen": 0}, "x": "\xff\xfe"}'),
                           ("an integer beyond 64 bits", '{"question": 123456789012345678901234567890, "answer": {"chosen": 0}}'),
                           ("chosen option 7 of a duel", '{"question": 1, "answer": {"chosen": 7}}'),
                           ("a negative response time", '{"question": 1, "answer": {"chosen": 0}, "response_time": -1}'),
                           ("an empty body", "")):
            expect = 413 if what.startswith("100,000") else 400
            check("POST /api/answer: " + what, request(port, "POST", "/api/answer", token=token,
                                                       body=body), expect)
        check("POST /api/join with a 10,000-character external id",
              request(port, "POST", "/api/join", body=json.dumps({"external_id": "x" * 10000})), 400)
        check("POST /api/join with a control character in the external id",
              request(port, "POST", "/api/join", body=json.dumps({"external_id": "a\u0007b"})), 400)
        check("POST /api/answer, 64 KiB + 1 body", request(
            port, "POST", "/api/answer", token=token, body=" " * (64 * 1024 + 1)), 413)
        # refused as soon as the headers arrive, without reading the body
        check("POST /api/answer, Content-Length 1 GB (no body sent)", raw(
            port, ("POST /api/answer HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                   "Content-Length: 1000000000\r\n\r\n" % token).encode(), read_timeout=40), 413)
        check("POST /api/answer, chunked body", raw(
            port, ("POST /api/answer HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" % token).encode()), 411)
        # headers
        check("a 100 KB header line", request(port, "GET", "/api/info",
                                              headers=["X-Big: " + "a" * 100000]),
              lambda s: not s.startswith("HTTP/1.1 2"))
        check("10,000 header lines", request(port, "GET", "/api/info",
                                             headers=["X-H%d: v" % i for i in range(10000)]),
              lambda s: True)
        check("not HTTP at all", raw(port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n"),
              lambda s: not s.startswith("HTTP/1.1 2"))
        check("an unknown method", request(port, "BREW", "/api/question", token=token), 405)
        # tokens
        for what, tok in (("no token", None), ("a wrong token", "0" * 32),
                          ("a token of the wrong length", "abc"),
                          ("the admin token's hash", "deadbeef" * 8),
                          ("a token with a quote", "' OR 1=1 --"),
                          ("the other participant's code as token", other["participant"])):
            check("GET /api/question with " + what, request(port, "GET", "/api/question", token=tok), 401)
        check("GET /api/status with a participant's token",
              request(port, "GET", "/api/status", token=token), 401)
        check("POST /api/answer to the other participant's question id (own session: stale)",
              request(port, "POST", "/api/answer", token=token,
                      body='{"question": 5, "answer": {"chosen": 0}}'), 409)
        # traversal
        for path in ("/../study.json", "/%2e%2e/study.json", "/..%2fstudy.json",
                     "/api/stimulus/..%2f..%2fstudy.json", "/api/stimulus/1/0/../../../study.json",
                     "/api/stimulus/%2e%2e/%2e%2e/secret.txt", "//etc/passwd",
                     "/page.js/../../study.json", "/participants/%s.json" % joined["participant"],
                     "/online/access.json", "/study.json", "/link-to-secret.txt",
                     "/api/stimulus/1/0%00.png", "/api/stimulus/-1/0", "/api/stimulus/99999999999999/0",
                     "/index.html%00.json", "/%5c..%5cstudy.json"):
            for tok in (None, token):
                check("GET %s%s" % (path, " with a token" if tok else ""),
                      request(port, "GET", path, token=tok),
                      lambda s: s.startswith("HTTP/1.1 40"))
        # origins
        check("POST /api/join from another origin", request(port, "POST", "/api/join", body="{}",
                                                             headers=["Origin: https://evil.example"]), 403)
        # slow clients and idle connections
        check("headers sent at 1 byte per 0.5 s (slow client)",
              request(port, "GET", "/api/info", send_slowly=0.5, read_timeout=40),
              lambda s: not s.startswith("HTTP/1.1 2"))
        check("Content-Length 100, 10 bytes sent, then silence",
              raw(port, ("POST /api/answer HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                         "Content-Length: 100\r\n\r\n0123456789" % token).encode(), read_timeout=40),
              lambda s: not s.startswith("HTTP/1.1 2"))
        idle = []
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /api/info HTTP/1.1\r\nHost: x\r\n")   # never finished
            idle.append(s)
        check("GET /api/info while 300 connections hang half-sent",
              request(port, "GET", "/api/info"), 200)
        for s in idle:
            s.close()
        # a flood from one token
        flood = [None] * 150

        def one(i):
            flood[i] = request(port, "GET", "/api/question", token=token)[0]
        threads = [threading.Thread(target=one, args=(i,)) for i in range(150)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        limited = sum(1 for s in flood if s.startswith("HTTP/1.1 429"))
        rows.append("| 150 GET /api/question at once from one token | %d x 429, %d x 200 | | | %s |" % (
            limited, sum(1 for s in flood if s.startswith("HTTP/1.1 200")),
            "yes" if limited > 0 else "**NO**"))
        if limited == 0:
            failures.append("flood")
        time.sleep(3)
        check("GET /api/question after the flood (the bucket refills)",
              request(port, "GET", "/api/question", token=token), 200)
    finally:
        alive = proc.poll() is None
        proc.terminate()
        proc.wait(timeout=30)
    leaked = [b for b in bodies if SECRET.encode() in b or b"skewbench-study" in b
              or b"token_sha256" in b or b'"observations"' in b]
    print("| request | status | body (start) | seconds | as expected |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(r)
    print()
    print("Answers that carried a file's content from outside the protocol (the secret beside the "
          "study, study.json, access.json, a session): %d. Server alive at the end: %s. "
          "Unexpected answers: %d%s." % (len(leaked), "yes" if alive else "NO", len(failures),
                                          (" (" + ", ".join(failures) + ")") if failures else ""))
    shutil.rmtree(root, ignore_errors=True)
    return 0 if not leaked and alive and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
