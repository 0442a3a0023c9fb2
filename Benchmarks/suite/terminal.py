"""Section 4, terminal output: bytes the browser writes to an 80×24 terminal.

The browser runs in tmux; `tmux pipe-pane -O` hands every byte the program writes to its pty to
`stamp.py`, which timestamps each chunk on CLOCK_MONOTONIC, the clock of the `--trace` file. The
program is held behind a start gate until the pipe is attached, so no byte escapes counting.
The cache is warm (a first session filled it and quit), as after any earlier use.
* first frame: every byte from exec until the first frame was presented (terminal set-up included),
  counted up to 100 ms after that frame or until the second frame, whichever is first.
* one row: after the screen settled (nothing in flight, 1 s quiet), `j`; the bytes from the key to
  100 ms after its frame (or to the next frame). Five moves, 1.5 s apart; median and largest.
* idle: after settling again, every byte in the next 10 s.
"""
import os
import time

from common import BIN, REPO, Tmux, Trace, browser_env, fresh_dir, log, percentile, shell_command

STAMP = os.path.join(REPO, "Benchmarks", "suite", "stamp.py")


def read_chunks(path):
    chunks = []
    if os.path.exists(path):
        with open(path) as text:
            for line in text:
                stamp, size = line.split()
                chunks.append((float(stamp), int(size)))
    return chunks


def bytes_between(chunks, start, end):
    return sum(size for stamp, size in chunks if start <= stamp < end)


def session(base, name, gate=None, out=None):
    env = browser_env(os.path.join(base, "cache"), os.path.join(base, "data"))
    overrides = {k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "TERM", "LANG")}
    trace_path = os.path.join(base, name + ".jsonl")
    command = shell_command([BIN, "--people", "200", "--trace", trace_path], overrides)
    if gate:
        command = "while [ ! -e %s ]; do sleep 0.02; done; %s" % (gate, command)
    tmux = Tmux(name, command)
    if out:
        tmux.run("pipe-pane", "-O", "-t", name, "exec python3 %s %s" % (STAMP, out))
    return tmux, Trace(trace_path)


def section():
    base = fresh_dir("terminal")
    log("terminal: warming the cache")
    warm, trace = session(base, "warm")
    try:
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=60)
        warm.send("q")
        time.sleep(0.5)
    finally:
        warm.kill()
    log("terminal: measuring")
    gate = os.path.join(base, "go")
    out = os.path.join(base, "pane-bytes.txt")
    tmux, trace = session(base, "measure", gate=gate, out=out)
    try:
        time.sleep(0.5)
        open(gate, "w").close()
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=60)
        frames = trace.of("frame")
        first = frames[0]["t"]
        first_end = min(first + 0.1, frames[1]["t"]) if len(frames) > 1 else first + 0.1
        first_frame_bytes = bytes_between(read_chunks(out), 0, first_end)
        moves = []
        for _ in range(5):
            trace.wait(lambda t: t.settled(quiet=1.0), timeout=20)
            mark = len(trace.events)
            tmux.send("j")
            time.sleep(1.5)
            trace.poll()
            key = trace.of("key", mark)[0]
            after = [e for e in trace.of("frame", mark) if e["t"] >= key["t"]]
            end = min(after[0]["t"] + 0.1, after[1]["t"]) if len(after) > 1 else after[0]["t"] + 0.1
            moves.append(bytes_between(read_chunks(out), key["t"], end))
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=20)
        idle_start = time.monotonic()
        time.sleep(10)
        idle_end = time.monotonic()
        trace.poll()
        idle_bytes = bytes_between(read_chunks(out), idle_start, idle_end)
        idle_frames = len([e for e in trace.of("frame") if idle_start <= e["t"] < idle_end])
        tmux.send("q")
        time.sleep(0.3)
    finally:
        tmux.kill()
    return {
        "first_frame_bytes": first_frame_bytes, "row_move_bytes": moves,
        "row_move_median_bytes": percentile(moves, 0.5), "row_move_max_bytes": max(moves),
        "idle_10s_bytes": idle_bytes, "idle_10s_frames": idle_frames,
    }
