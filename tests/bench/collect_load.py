#!/usr/bin/env python3
"""Load and abuse figures for `railyard collect` on 127.0.0.1 (ci/bench-collect.sh).

1. Slow clients: SLOW sockets each send one byte of a request every SLOW_GAP seconds while
   valid reports are POSTed; prints each valid POST's latency (the target: under 1 s).
2. Load: COUNT valid reports (distinct nodes) POSTed by CLIENTS parallel clients over
   keep-alive connections; checks that every one is answered 201 and stored byte for byte;
   prints the rate.

usage: collect_load.py RAILYARD GOLDEN_REPORT WORKDIR
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

SLOW = int(os.environ.get("SLOW", "200"))
SLOW_GAP = float(os.environ.get("SLOW_GAP", "5"))
COUNT = int(os.environ.get("COUNT", "10000"))
CLIENTS = int(os.environ.get("CLIENTS", "100"))


def start_receiver(railyard, store):
    proc = subprocess.Popen([railyard, "collect", "--listen", "127.0.0.1:0", "--dir", store],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()  # "railyard collect: listening on 127.0.0.1:PORT"
    if "listening on" not in line:
        sys.exit("the receiver did not start: " + line)
    return proc, int(line.rsplit(":", 1)[1])


def report_for(template, i):
    node = f"load-r{i // 100:03d}-n{i % 100:02d}"
    body = dict(template)
    body["node"] = node
    body["host"] = dict(template["host"], hostname=node, boot_id=f"00000000-0000-4000-8000-{i:012d}")
    return node, (json.dumps(body, indent=2) + "\n").encode()


def post(conn, body):
    conn.request("POST", "/api/v1/reports", body=body, headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    r.read()
    return r.status


def slow_clients(port, template):
    stop = threading.Event()
    socks = []
    for _ in range(SLOW):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"P")
        socks.append(s)

    def drip():
        request = b"OST /api/v1/reports HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"y" * 1000
        at = 0
        while not stop.wait(SLOW_GAP):
            for s in socks:
                try:
                    s.sendall(request[at:at + 1])
                except OSError:
                    pass
            at = min(at + 1, len(request) - 1)

    t = threading.Thread(target=drip, daemon=True)
    t.start()
    time.sleep(SLOW_GAP + 0.5)  # the slow clients have dripped at least once
    latencies = []
    for i in range(10):
        _, body = report_for(template, 900000 + i)
        start = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        status = post(conn, body)
        latencies.append((time.monotonic() - start) * 1000)
        conn.close()
        if status != 201:
            sys.exit(f"a valid report among the slow clients got {status}")
        time.sleep(0.5)
    stop.set()
    alive = 0
    for s in socks:
        try:
            s.sendall(b"y")
            alive += 1
        except OSError:
            pass
        s.close()
    latencies.sort()
    print(f"slow clients: {SLOW} sockets, one byte every {SLOW_GAP:g} s; 10 valid POSTs among them: "
          f"median {latencies[5]:.1f} ms, max {latencies[-1]:.1f} ms (target: under 1000 ms); "
          f"{alive} slow sockets still open at the end")
    return latencies[-1] < 1000


def load(port, template, store):
    bodies = [report_for(template, i) for i in range(COUNT)]
    statuses = [0] * COUNT
    next_index = [0]
    lock = threading.Lock()

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= COUNT:
                break
            try:
                statuses[i] = post(conn, bodies[i][1])
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                statuses[i] = post(conn, bodies[i][1])
        conn.close()

    start = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - start
    created = sum(s == 201 for s in statuses)
    same = 0
    for i, (node, body) in enumerate(bodies):
        path = os.path.join(store, node, f"00000000-0000-4000-8000-{i:012d}.json")
        try:
            with open(path, "rb") as f:
                same += f.read() == body
        except OSError:
            pass
    size = sum(len(b) for _, b in bodies)
    print(f"load: {COUNT} reports ({size / 2**20:.0f} MiB) from {CLIENTS} parallel clients in {seconds:.1f} s: "
          f"{COUNT / seconds:.0f} reports/s; answered 201: {created}; stored byte for byte: {same}")
    return created == COUNT and same == COUNT


def main():
    railyard, golden, work = sys.argv[1:4]
    with open(golden) as f:
        template = json.load(f)
    ok = True
    for name, run in (("slow", slow_clients), ("load", load)):
        store = os.path.join(work, name)
        os.makedirs(store, exist_ok=True)
        proc, port = start_receiver(railyard, store)
        try:
            ok &= run(port, template) if name == "slow" else run(port, template, store)
        finally:
            proc.terminate()
            proc.wait()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
