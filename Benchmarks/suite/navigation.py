"""Section 1, navigation: a scripted 200-step browse session in tmux, read back from `--trace`.

The script: on People, move down (`j`, sometimes `PgDn`) and drill into a person not opened before;
on a person's Cars, drill into a car not opened before, move down, or go back (`Escape`); on a car's
Maintenance, move down or go back. Choices come from a seeded generator and from what the screen shows
(depth of the navigation stack, "row n of total" in the status line), so both modes walk the same path.
After each key the driver waits until a frame after that key shows no `loading…` (at most 10 s), then
pauses THINK seconds (a person reading the screen) before the next key. Every run starts from an empty
cache and waits for the People screen to settle first.

Definitions (every time is in-process, CLOCK_MONOTONIC, from the trace):
* key → frame: from the app receiving the key to the first frame presented after it.
* drill-down: an Enter that opens a related list (a person's cars, a car's maintenance).
  It needed **no network wait** when the first frame after the Enter already shows the new screen
  (the stack is one deeper) with no `loading…` row.
* time to content: from the Enter to the first frame on the new screen with no `loading…` row.
* requests / bytes: every request the browser sent from start to quit (`$metadata` included);
  bytes are response bodies as they crossed the wire (gzip from the built-in service), decoded bytes
  as the transport handed them on.
"""
import os
import random
import re
import time

from common import BIN, Tmux, Trace, browser_env, fresh_dir, log, mean, percentile, shell_command

STEPS = int(os.environ.get("BENCH_NAV_STEPS", "200"))
THINK = float(os.environ.get("BENCH_THINK_MS", "200")) / 1000
ROW = re.compile(r"(\d[\d,]*) of (\d[\d,]*)")


def position(frame):
    """(row, total) from the status line, or None."""
    match = ROW.search(frame.get("status", "")) if frame else None
    if not match:
        return None
    return int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))


class Walker:
    """Chooses the next key from what is on screen."""

    def __init__(self, seed=6):
        self.random = random.Random(seed)
        self.opened = set()

    def next_key(self, frame):
        roll = self.random.random()
        depth = frame["depth"]
        where = position(frame)
        place = (depth, frame["title"], where[0] if where else 0)
        at_end = where is not None and where[0] >= where[1]
        fresh = place not in self.opened and where is not None and where[1] > 0
        if depth == 1:
            if fresh and roll < 0.45:
                self.opened.add(place)
                return "Enter"
            return "PageDown" if roll > 0.92 else "j"
        if depth == 2:
            if fresh and roll < 0.5:
                self.opened.add(place)
                return "Enter"
            return "j" if roll < 0.75 and not at_end else "Escape"
        return "j" if roll < 0.4 and not at_end else "Escape"


# Modes: prefetching as shipped; prefetching whole entities (`--no-select`, the $select lever off);
# fetch-on-navigate (`--no-prefetch`), the baseline.
MODES = {"prefetch": [], "prefetch-whole": ["--no-select"], "no-prefetch": ["--no-prefetch"]}


def walk(session, trace, count, think):
    """`count` keys chosen by a Walker, each waited for (its frame without `loading…`, at most 10 s), `think`
    seconds apart; the (key, depth, trace mark) of each."""
    walker = Walker()
    steps = []
    for _ in range(count):
        trace.poll()
        frame = trace.last_frame()
        key = walker.next_key(frame)
        mark = len(trace.events)
        keys_before = len(trace.of("key"))
        session.send(key)
        trace.wait(lambda t: len(t.of("key")) > keys_before, timeout=5)
        trace.wait(lambda t: any(e["event"] == "frame" and not e["loading"] for e in t.events[mark:])
                   or (t.of("key", mark) and not t.of("frame", mark) and not t.in_flight()
                       and time.monotonic() - t.of("key", mark)[0]["t"] > 0.5),
                   timeout=10)
        steps.append((key, frame["depth"], mark))
        time.sleep(think)
    return steps


def run(latency_ms, mode, people=200):
    """One session; returns the figures of that run."""
    base = fresh_dir("nav", "%s-%d" % (mode, latency_ms))
    trace_path = os.path.join(base, "trace.jsonl")
    env = browser_env(os.path.join(base, "cache"), os.path.join(os.path.dirname(base), "data"), term="tmux-256color")
    argv = [BIN, "--people", str(people), "--latency", str(latency_ms), "--trace", trace_path]
    argv += MODES[mode]
    overrides = {k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "TERM", "LANG")}
    session = Tmux("nav", shell_command(argv, overrides))
    trace = Trace(trace_path)
    try:
        if not trace.wait(lambda t: t.settled(quiet=1.0), timeout=60):
            raise RuntimeError("People did not settle: " + session.capture())
        steps = walk(session, trace, STEPS, THINK)
        trace.wait(lambda t: t.settled(quiet=0.5), timeout=10)
        session.send("q")
        trace.wait(lambda t: False, timeout=0.3)
        trace.poll()
        return summarise(trace, steps, latency_ms, mode)
    finally:
        session.kill()


def summarise(trace, steps, latency_ms, mode):
    events = trace.events
    key_to_frame, cached_key_to_frame, drills, waits, contents = [], [], 0, 0, []
    marks = [mark for _, _, mark in steps] + [len(events)]
    for index, (key, depth, mark) in enumerate(steps):
        after = events[mark:marks[index + 1]]
        pressed = next((e for e in after if e["event"] == "key"), None)
        frames = [e for e in after if e["event"] == "frame" and pressed and e["t"] >= pressed["t"]]
        if not pressed or not frames:
            continue
        first = frames[0]
        elapsed = (first["t"] - pressed["t"]) * 1000
        key_to_frame.append(elapsed)
        if not first["loading"]:
            cached_key_to_frame.append(elapsed)
        opened = [f for f in frames if f["depth"] == depth + 1]
        if key == "Enter" and opened:
            drills += 1
            if first["depth"] != depth + 1 or first["loading"]:
                waits += 1
            content = next((f for f in opened if not f["loading"]), None)
            if content:
                contents.append((content["t"] - pressed["t"]) * 1000)
    ends = [e for e in events if e["event"] == "request_end"]
    return {
        "latency_ms": latency_ms, "mode": mode, "steps": len(steps), "drills": drills,
        "no_wait_share": (drills - waits) / drills if drills else None,
        "key_to_frame_p50_ms": percentile(key_to_frame, 0.5), "key_to_frame_p99_ms": percentile(key_to_frame, 0.99),
        "cached_key_to_frame_p50_ms": percentile(cached_key_to_frame, 0.5),
        "cached_key_to_frame_p99_ms": percentile(cached_key_to_frame, 0.99),
        "cached_keys": len(cached_key_to_frame), "cached_key_to_frame_ms": cached_key_to_frame,
        "time_to_content_mean_ms": mean(contents), "time_to_content_p50_ms": percentile(contents, 0.5),
        "requests": len(ends), "bytes": sum(e.get("wire", e["bytes"]) for e in ends),
        "decoded_bytes": sum(e["bytes"] for e in ends),
        "duration_s": events[-1]["t"] - events[0]["t"] if events else None,
    }


def section():
    latencies = [int(v) for v in os.environ.get("BENCH_NAV_LATENCIES", "0,100,300").split(",")]
    results = []
    for latency in latencies:
        modes = os.environ.get("BENCH_NAV_MODES", ",".join(MODES)).split(",")
        for mode in modes:
            log("navigation: %d ms, %s" % (latency, mode))
            results.append(run(latency, mode))
            log("  %s" % results[-1])
    return results
