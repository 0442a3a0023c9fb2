"""Section 2, scale: the browser on a service with 1,000,000 people.

`cardealer serve --people 1000000 --latency 100` runs as its own process (its data file is generated
once under Benchmarks/.work and reused), so the browser's memory is the browser's alone; the browser
is `cardealer browse ROOT --profile Sources/Browser/Profile/cardealer.profile.json --trace …` in tmux at 80×24 with an
empty cache. Steps: wait for People to settle; `End`; then `/`, `samson`, Enter.
* End → last row: from the End key to the first frame whose status line reads `N of N` (N the total)
  with no `loading…` row. The round trip it is held against is the longest request the browser made
  in that interval (trace `request_end.ms`); target: ≤ that + 20 ms.
* filter: from the last filter keystroke to the first frame with no `loading…` row that shows the
  service's answer (not the cached matches shown while it is asked).
* peak RSS: VmHWM of the browser process just before quitting. Cache size: the cache directory after.
"""
import os
import time

from common import BIN, REPO, WORK, Server, Tmux, Trace, browser_env, dir_bytes, fresh_dir, log, peak_rss_kib, shell_command
from navigation import position

PEOPLE = int(os.environ.get("BENCH_SCALE_PEOPLE", "1000000"))
LATENCY = 100


def section():
    data_dir = os.path.join(WORK, "data")
    os.makedirs(data_dir, exist_ok=True)
    data = os.path.join(data_dir, "people-%d.sqlite" % PEOPLE)
    generated = not os.path.exists(data)
    log("scale: serving %d people (%s)" % (PEOPLE, "generating" if generated else "reusing data"))
    started = time.monotonic()
    server = Server(["--people", str(PEOPLE), "--data", data, "--latency", str(LATENCY)])
    serve_ready_s = time.monotonic() - started
    base = fresh_dir("scale")
    trace_path = os.path.join(base, "trace.jsonl")
    env = browser_env(os.path.join(base, "cache"), os.path.join(base, "data"), term="tmux-256color")
    overrides = {k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "TERM", "LANG")}
    profile = os.path.join(REPO, "Sources", "Browser", "Profile", "cardealer.profile.json")
    tmux = Tmux("scale", shell_command([BIN, "browse", server.root, "--profile", profile, "--trace", trace_path], overrides))
    trace = Trace(trace_path)
    try:
        if not trace.wait(lambda t: t.settled(quiet=1.0), timeout=120):
            raise RuntimeError("People did not settle: " + tmux.capture())
        pid = tmux.pane_pid()
        first_content = next(e for e in trace.of("frame") if not e["loading"] and position(e))
        open_ms = (first_content["t"] - trace.events[0]["t"]) * 1000

        mark = len(trace.events)
        tmux.send("End")

        def at_end(t):
            for e in t.of("frame", mark):
                where = position(e)
                if where and where[0] == where[1] and where[1] > 0 and not e["loading"]:
                    return e
            return None
        shown = trace.wait(at_end, timeout=30)
        key = trace.of("key", mark)[0]
        end_ms = (shown["t"] - key["t"]) * 1000 if shown else None
        trips = [e["ms"] for e in trace.of("request_end", mark) if shown and e["t"] <= shown["t"]]
        round_trip_ms = max(trips) if trips else None
        total = position(shown)[1] if shown else None
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=30)

        mark = len(trace.events)
        tmux.send("/")
        for character in "samson":
            tmux.send(character)
        trace.wait(lambda t: len(t.of("key", mark)) >= 7, timeout=10)
        last_key = trace.of("key", mark)[-1]
        # The service's answer, not the cached matches shown while it is asked ("… asking the service").
        content = trace.wait(lambda t: next((e for e in t.of("frame", mark) if e["t"] >= last_key["t"]
                                             and not e["loading"] and "asking the service" not in e["status"]
                                             and not t.in_flight()), None), timeout=60)
        filter_ms = (content["t"] - last_key["t"]) * 1000 if content else None
        filter_status = content["status"] if content else None
        tmux.send("Enter")
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=30)
        rss = peak_rss_kib(pid) if pid else None
        tmux.send("q")
        time.sleep(0.5)
    finally:
        tmux.kill()
        server.stop()
    return {
        "people": PEOPLE, "latency_ms": LATENCY, "data_generated_now": generated, "serve_ready_s": serve_ready_s,
        "open_people_ms": open_ms, "total_rows": total, "end_to_last_row_ms": end_ms,
        "round_trip_ms": round_trip_ms, "filter_ms": filter_ms, "filter_status": filter_status,
        "peak_rss_mib": rss / 1024 if rss else None, "cache_bytes": dir_bytes(os.path.join(base, "cache")),
    }
