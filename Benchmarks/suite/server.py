"""Section 5, server: requests/s and p99 latency under `wrk`, loopback only, same machine, same run.

* built-in: `cardealer serve --people 200` (the demo's data), `Person?$top=50&$expand=PersonCar/Car`.
* peer: `mock-sap` from PyPI (an OData V2 mock of SAP Gateway services over SQLite, pure Python),
  `API_SALES_ORDER_SRV/A_SalesOrder?$top=50&$expand=to_Item`: a page of parents with a to-many
  navigation expanded, the closest shape it serves. Its data set is small (25 orders, 62 items), so
  the response sizes and entity counts are printed next to the figures.
Each: `wrk -t2 -c16 -d10s --latency -H 'Accept: application/json'`, after one warm-up request.
"""
import json
import os
import re
import socket
import subprocess
import time
import urllib.request

from common import REPO, WORK, Server, log

VENV = os.path.join(REPO, "Benchmarks", ".venv")
DURATION = os.environ.get("BENCH_WRK_DURATION", "10s")


def count_entities(value):
    if isinstance(value, dict):
        return (1 if "__metadata" in value else 0) + sum(count_entities(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_entities(v) for v in value)
    return 0


def probe(url):
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return len(body), count_entities(json.loads(body))


def wrk(url):
    out = subprocess.run(["wrk", "-t2", "-c16", "-d" + DURATION, "--latency", "-H", "Accept: application/json", url],
                         capture_output=True, text=True, timeout=120).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\b", out, re.M)
    scale = {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "p99_ms": float(p99.group(1)) * scale, "non_2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1) if socket_errors else None, "wrk": out}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def section():
    results = {}
    os.makedirs(os.path.join(WORK, "data"), exist_ok=True)
    log("server: built-in")
    server = Server(["--people", "200", "--data", os.path.join(WORK, "data", "people-200.sqlite")])
    try:
        url = server.root + "Person?$top=50&$expand=PersonCar/Car"
        size, entities = probe(url)
        results["builtin"] = dict(wrk(url), url_path="Person?$top=50&$expand=PersonCar/Car", response_bytes=size,
                                  entities=entities)
    finally:
        server.stop()
    log("server: mock-sap")
    port = free_port()
    log_file = open(os.path.join(WORK, "mock-sap.log"), "w")
    peer = subprocess.Popen([os.path.join(VENV, "bin", "mock-sap"), "--host", "127.0.0.1", "--port", str(port),
                             "--no-request-log", "-q"], stdout=log_file, stderr=subprocess.STDOUT)
    try:
        path = "sap/opu/odata/sap/API_SALES_ORDER_SRV/A_SalesOrder?$top=50&$expand=to_Item"
        url = "http://127.0.0.1:%d/%s" % (port, path)
        for _ in range(100):
            try:
                size, entities = probe(url)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("mock-sap did not start")
        results["peer"] = dict(wrk(url), url_path=path, response_bytes=size, entities=entities,
                               server="mock-sap " + subprocess.run(
                                   [os.path.join(VENV, "bin", "pip"), "show", "mock-sap"], capture_output=True,
                                   text=True).stdout.split("Version: ")[1].split()[0])
    finally:
        peer.terminate()
        peer.wait(10)
        log_file.close()
    return results
