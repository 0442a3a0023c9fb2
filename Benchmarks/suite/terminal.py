"""Section 4, terminal output: bytes the browser writes to an 80×24 terminal.

The suite is the terminal: the browser runs on a pseudo-terminal the suite opened (80×24,
TERM=xterm-256color), and a reader process (`stamp.py`) drains the master side, stamping every
chunk on CLOCK_MONOTONIC — the clock of the `--trace` file — as it arrives (no multiplexer in
between). Keys are written to the master side. The cache is warm (a first session filled it and quit).
* first frame: every byte from exec until the start-up screen settled (terminal set-up included;
  a warm start draws its full first frame at once, then at most a few status-line updates — their
  number is printed).
* one row: after the screen settled (nothing in flight, 1 s quiet), `j`; the bytes from the key
  until the next frame after it, or 100 ms. Five moves, 1.5 s apart; median and largest.
* idle: after settling again, every byte in the next 10 s.
"""
import fcntl
import os
import struct
import subprocess
import termios
import sys
import time

from common import BIN, REPO, Trace, browser_env, fresh_dir, log, percentile

STAMP = os.path.join(REPO, "Benchmarks", "suite", "stamp.py")


class PtySession:
    """The browser on a pty of our own; `chunks` is [(monotonic seconds, bytes)] of its output."""

    def __init__(self, argv, env, stamps):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        start_new_session=True)
        os.close(slave)
        self.stamps = stamps
        self.reader = subprocess.Popen([sys.executable, STAMP, str(self.master), stamps], pass_fds=(self.master,))

    @property
    def chunks(self):
        """[(monotonic seconds, bytes)] read so far."""
        result = []
        with open(self.stamps) as text:
            for line in text:
                if line.endswith("\n"):
                    stamp, size = line.split()
                    result.append((float(stamp), int(size)))
        return result

    def send(self, text):
        os.write(self.master, text.encode())

    def bytes_between(self, start, end):
        return sum(size for stamp, size in self.chunks if start <= stamp < end)

    def close(self):
        if self.process.poll() is None:
            self.send("q")
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.close(self.master)
        try:
            self.reader.wait(5)
        except subprocess.TimeoutExpired:
            self.reader.kill()
            self.reader.wait()


def start(base, name):
    env = browser_env(os.path.join(base, "cache"), os.path.join(base, "data"))
    trace_path = os.path.join(base, name + ".jsonl")
    stamps = os.path.join(base, name + ".pty-bytes")
    open(stamps, "w").close()
    return PtySession([BIN, "--people", "200", "--trace", trace_path], env, stamps), Trace(trace_path)


def section():
    base = fresh_dir("terminal")
    log("terminal: warming the cache")
    warm, trace = start(base, "warm")
    try:
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=60)
    finally:
        warm.close()
    log("terminal: measuring")
    started = time.monotonic()
    session, trace = start(base, "measure")
    try:
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=60)
        frames = trace.of("frame")
        first_frame_bytes = session.bytes_between(started, time.monotonic())
        # Warm start: exec (built-in service started in-process included) to the first frame
        # whose rows are all there (no `loading…`).
        full = [e for e in frames if not e["loading"]]
        start_ms = (full[0]["t"] - started) * 1000 if full else None
        moves = []
        for _ in range(5):
            trace.wait(lambda t: t.settled(quiet=1.0), timeout=20)
            mark = len(trace.events)
            session.send("j")
            time.sleep(1.5)
            trace.poll()
            key = trace.of("key", mark)[0]
            after = [e for e in trace.of("frame", mark) if e["t"] >= key["t"]]
            end = min(after[1]["t"], key["t"] + 0.1) if len(after) > 1 else key["t"] + 0.1
            moves.append(session.bytes_between(key["t"], end))
        trace.wait(lambda t: t.settled(quiet=1.0), timeout=20)
        idle_start = time.monotonic()
        time.sleep(10)
        idle_end = time.monotonic()
        trace.poll()
        idle_bytes = session.bytes_between(idle_start, idle_end)
        idle_frames = len([e for e in trace.of("frame") if idle_start <= e["t"] < idle_end])
    finally:
        session.close()
    return {
        "first_frame_bytes": first_frame_bytes, "startup_frames": len(frames), "warm_start_ms": start_ms,
        "row_move_bytes": moves, "row_move_median_bytes": percentile(moves, 0.5), "row_move_max_bytes": max(moves),
        "idle_10s_bytes": idle_bytes, "idle_10s_frames": idle_frames,
    }
