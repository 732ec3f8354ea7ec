#!/usr/bin/env python3
"""The receiver under hostile bodies on 127.0.0.1 (ci/bench-collect.sh ABUSE=1).

Starts `railyard collect --node-secret` and, in turn:
1. one 8 MiB body of unclosed '[' with the fleet's token missing a node: 400;
2. four concurrent 8 MiB bodies of 100,000s of {} in `plan`, with junk per-node tokens;
3. one 8 MiB such body with the right node's token (read whole: 201);
4. 100 connections that each declare an 8 MiB body and hold it half sent (a valid report
   is told 503 with Retry-After meanwhile, and retried until stored);
5. a report with 1e999 in it: 400, and the receiver still serves.
After each, a valid report is POSTed and must be stored within 1 s. Prints each step's
answer and time, and the receiver's peak resident memory (VmHWM) after each step.

usage: collect_abuse.py RAILYARD GOLDEN_REPORT WORKDIR
"""
import hashlib
import hmac
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

BODY = 8 << 20


def peak_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def post(port, body, token=None, timeout=120):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    t = time.monotonic()
    c.request("POST", "/api/v1/reports", body=body, headers=headers)
    r = c.getresponse()
    answer = r.read()
    c.close()
    return r.status, time.monotonic() - t, answer


def token_for(secret, node):
    return hmac.new(secret, node.lower().encode(), hashlib.sha256).hexdigest()


def main():
    railyard, golden, work = sys.argv[1:4]
    secret_file = os.path.join(work, "secret")
    with open(secret_file, "wb") as f:
        f.write(b"0123456789abcdef-abuse-secret")
    os.chmod(secret_file, 0o600)
    secret = open(secret_file, "rb").read().strip()
    store = os.path.join(work, "store")
    proc = subprocess.Popen([railyard, "collect", "--listen", "127.0.0.1:0", "--dir", store,
                             "--node-secret", secret_file],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "listening on" not in line:
        sys.exit("the receiver did not start: " + line)
    port = int(line.rsplit(":", 1)[1])
    template = json.load(open(golden))
    failures = []
    serial = [0]

    def valid(step):
        serial[0] += 1
        body = dict(template)
        body["node"] = "abuse-n01"
        body["host"] = dict(template["host"], hostname="abuse-n01",
                            boot_id=f"00000000-0000-4000-8000-{serial[0]:012d}")
        status, took, _ = post(port, json.dumps(body).encode(), token_for(secret, "abuse-n01"))
        ok = status == 201 and took < 1.0
        if not ok:
            failures.append(f"{step}: a valid report got {status} in {took:.2f} s")
        print(f"  then a valid report: {status} in {took * 1000:.1f} ms; receiver peak {peak_mib(proc.pid):.0f} MiB")

    def plan_body(node, size=BODY):
        head = '{"schema":1,"node":"%s","result":"pass","started_at":"2026-03-10T08:00:00Z","checks":[],"plan":[' % node
        n = (size - len(head) - 2) // 3
        return (head + ",".join(["{}"] * n) + "]}").encode()

    print(f"receiver on 127.0.0.1:{port}; start peak {peak_mib(proc.pid):.0f} MiB")
    body = b'{"node":"abuse-x","plan":' + b"[" * (BODY - 30)
    status, took, _ = post(port, body, token_for(secret, "abuse-x"))
    print(f"1. 8 MiB of unclosed '[': {status} in {took:.2f} s")
    if status != 400:
        failures.append(f"unclosed [: {status}")
    valid("1")

    results = []

    def junk(i):
        results.append(post(port, plan_body(f"victim-{i}"), "junk-token-%d" % i)[:2])
    threads = [threading.Thread(target=junk, args=(i,)) for i in range(4)]
    t = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    print(f"2. 4 concurrent 8 MiB plans of {{}} with junk tokens: {sorted(s for s, _ in results)} "
          f"in {time.monotonic() - t:.2f} s (slowest answer {max(d for _, d in results):.2f} s)")
    if any(s != 403 for s, _ in results):
        failures.append(f"junk tokens: {results}")
    valid("2")

    status, took, _ = post(port, plan_body("abuse-big"), token_for(secret, "abuse-big"))
    print(f"3. one 8 MiB plan of {{}} with its node's token: {status} in {took:.2f} s")
    valid("3")

    socks = []
    for _ in range(100):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + token_for(secret, "holder").encode() + b"\r\nContent-Length: %d\r\n\r\n" % BODY)
        try:
            s.sendall(b" " * (BODY // 2))
        except OSError:
            pass
        socks.append(s)
    time.sleep(1)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/metrics")
    metrics = c.getresponse().read().decode()
    c.close()
    held = next((l.split()[1] for l in metrics.splitlines() if l.startswith("railyard_collect_buffered_bytes ")), "?")
    busy = next((l.split()[1] for l in metrics.splitlines() if 'reason="busy"' in l and not l.startswith("#")), "?")
    print(f"4. 100 connections each sending half of an 8 MiB body, then holding: {int(held) / 2**20:.0f} MiB of bodies "
          f"held, {busy} refused busy; receiver peak {peak_mib(proc.pid):.0f} MiB")
    # While they hold the budget a report is told 503 with Retry-After; it is stored once
    # the receiver closes the idle holders (10 s), retried as the agent retries.
    t = time.monotonic()
    serial[0] += 1
    body = dict(template, node="abuse-n02")
    body["host"] = dict(template["host"], hostname="abuse-n02", boot_id=f"00000000-0000-4000-8000-{serial[0]:012d}")
    answers = []
    while time.monotonic() - t < 40:
        status, _, _ = post(port, json.dumps(body).encode(), token_for(secret, "abuse-n02"))
        answers.append(status)
        if status != 503:
            break
        time.sleep(5)
    print(f"  a valid report meanwhile: {answers}, stored {time.monotonic() - t:.1f} s after the holders began; "
          f"receiver peak {peak_mib(proc.pid):.0f} MiB")
    if answers[-1] != 201:
        failures.append(f"4: the report was never stored: {answers}")
    for s in socks:
        s.close()
    valid("4")

    huge = dict(template, future=1)
    text = json.dumps(huge).replace('"future": 1', '"future": 1e999')
    status, took, answer = post(port, text.encode(), token_for(secret, template["node"]))
    print(f"5. a report with 1e999: {status} ({answer.decode().strip()})")
    if status != 400:
        failures.append(f"1e999: {status}")
    valid("5")

    t = time.monotonic()
    proc.terminate()
    proc.wait(timeout=60)
    print(f"stopped by SIGTERM in {time.monotonic() - t:.2f} s")
    if failures:
        sys.exit("FAILED: " + "; ".join(failures))
    print("collect_abuse: ok")


if __name__ == "__main__":
    main()
