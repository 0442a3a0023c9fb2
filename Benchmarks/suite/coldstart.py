"""Section coldstart: what reading a v2 service's annotation document costs a first start (issue 33).

mock-sap (PyPI) serves GWSAMPLE_BASIC, a v2 service whose service document names its annotation document, with
100 ms added to every request (`--latency-ms`). The browser starts from an empty cache on a pseudo-terminal (80×24),
opened straight on the sales orders (`--open SalesOrderSet`), twice over:
* baseline: `--no-annotation-documents`, only `$metadata` read (what a start cost before annotation documents);
* annotated: as a user starts it, the service document asked alongside `$metadata` and the document it names
  after it (and, the root being a Gateway one, the SAP catalog's document asked once: mock-sap has none).
Figure: exec → the first frame whose rows are all there (no `loading…`), median of RUNS starts each, from
`--trace` (CLOCK_MONOTONIC, as the start is stamped); and the requests each start sent before that frame, in the
order they were sent, with the longest chain of them one after another (round trips).
"""
import os
import statistics
import time

from common import BIN, REPO, Trace, browser_env, free_port, fresh_dir, log, start_server
from terminal import PtySession

RUNS = int(os.environ.get("BENCH_COLDSTART_RUNS", "5"))
LATENCY_MS = 100
PYTHON = os.path.join(REPO, "Benchmarks", ".venv", "bin", "python")
PATH = "/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/"


def chain(requests):
    """How many requests ran one after another: the longest run where each started after the previous ended."""
    longest = 0
    ends = []  # (end time, chain length ending there)
    for start, end in sorted(requests):
        before = max([length for finished, length in ends if finished <= start], default=0)
        ends.append((end, before + 1))
        longest = max(longest, before + 1)
    return longest


def start_once(root, variant, index):
    base = fresh_dir("coldstart", "%s-%d" % (variant, index))
    env = browser_env(os.path.join(base, "cache"), os.path.join(base, "data"))
    env["XDG_STATE_HOME"] = os.path.join(base, "state")
    trace_path = os.path.join(base, "trace.jsonl")
    stamps = os.path.join(base, "pty-bytes")
    open(stamps, "w").close()
    argv = [BIN, "browse", root, "--open", "SalesOrderSet", "--trace", trace_path]
    if variant == "baseline":
        argv.append("--no-annotation-documents")
    trace = Trace(trace_path)
    started = time.monotonic()
    session = PtySession(argv, env, stamps)
    try:
        full = trace.wait(lambda t: [e for e in t.of("frame") if not e["loading"]], timeout=60)
        if not full:
            raise RuntimeError("no full frame within 60 s (%s)" % variant)
        first = full[0]["t"]
        ends = {e["id"]: e for e in trace.of("request_end")}
        sent = [e for e in trace.of("request_start") if e["t"] <= first]
        requests = [(e["t"], ends[e["id"]]["t"] if e["id"] in ends else first) for e in sent]
        paths = [e["url"].split(PATH, 1)[-1] or "(service document)" for e in sent]
        return (first - started) * 1000, paths, chain(requests)
    finally:
        session.close()


def section():
    port = free_port()
    root = "http://127.0.0.1:%d%s" % (port, PATH)
    process = start_server(
        [PYTHON, "-m", "mocksap", "--port", str(port), "--latency-ms", str(LATENCY_MS), "--no-request-log"],
        root + "$metadata", "mock-sap")
    results = {"latency_ms": LATENCY_MS, "runs": RUNS}
    try:
        for variant in ("baseline", "annotated"):
            log("coldstart: %s, %d starts" % (variant, RUNS))
            times, paths, chains = [], None, []
            for index in range(RUNS):
                ms, sent, length = start_once(root, variant, index)
                times.append(ms)
                chains.append(length)
                paths = sent
            results[variant] = {
                "first_full_frame_median_ms": statistics.median(times), "first_full_frame_ms": times,
                "requests_before_frame": paths, "round_trips_before_frame": max(chains),
            }
            log("  median %.1f ms, %d round trips: %s" % (statistics.median(times), max(chains), ", ".join(paths)))
    finally:
        process.kill()
        process.wait()
    return results
