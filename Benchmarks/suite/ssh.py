"""Section 8, SSH: the browser served by `cardealer serve-ssh`, measured from the client side.

The client is paramiko (PyPI) on 127.0.0.1: every SSH_MSG_CHANNEL_DATA it receives is stamped (one message
is one packet on the wire: the gateway sets TCP_NODELAY and writes each message on its own), and the socket
under it counts every byte it reads (encryption, MACs and SSH framing included). 80×24, TERM=xterm-256color,
each session with a cold cache of its own (as every visitor's is), the built-in demo with 200 people.

Run twice in one run: with frames (the gateway reads a session's pty until 2 ms of quiet, the default, which
BENCH_SSH_FRAME_QUIET_MS changes, and sends what it read as one message) and without (`--frame-quiet-ms 0`:
every read sent as it comes, as a plain pty-to-socket copy does). Steps: first frame (connect → 1.5 s without
output), cursor one row (`j`, five times, median), drill-down (Enter), Esc back, the first car's chart (`c`)
and its point moved (`h`, five times, median), 10 idle seconds. Then, in both modes, 50 sessions at once, each
pressing `j`/`k` every 100 ms for 10 s: keypress → first data back, p50 and p99 (the client's own 50 Python
threads included), and the resident memory of the sessions' processes.

With frames, the same presses again from `ssh-bench` (swift-nio-ssh on one event-loop thread, Benchmarks/SSHBench),
whose own cost is small: 50 new sessions whose presses are spread over each 100 ms (independent visitors), three
runs of 10 s pooled, then all pressing at the same instant (the worst case; one run). The goal row reads the spread
runs.
"""
import json
import os
import socket
import subprocess
import threading
import time

import paramiko

from common import BENCH_BINARIES, BIN, REPO, WORK, fresh_dir, log, percentile

CONCURRENT = int(os.environ.get("BENCH_SSH_SESSIONS", "50"))
# The swift-nio-ssh client's spread runs (10 s each, new sessions each time), pooled.
NIO_RUNS = int(os.environ.get("BENCH_SSH_NIO_RUNS", "3"))


class CountingSocket:
    """A socket that counts what it reads (the wire bytes into the client)."""

    def __init__(self, sock):
        self.sock = sock
        self.received = 0

    def recv(self, size, *flags):
        data = self.sock.recv(size, *flags)
        self.received += len(data)
        return data

    def __getattr__(self, name):
        return getattr(self.sock, name)


# Every channel data message, stamped: paramiko calls Channel._feed once per SSH_MSG_CHANNEL_DATA.
_original_feed = paramiko.Channel._feed


def _stamped_feed(self, message):
    data = message if isinstance(message, bytes) else message.get_binary()
    record = getattr(self, "stamps", None)
    if record is not None:
        record.append((time.monotonic(), len(data)))
        self.wire_marks.append((time.monotonic(), self.counter.received))
    return _original_feed(self, data)


# The transport dispatches through a table built when the class was defined, so the entry is replaced there.
paramiko.Transport._channel_handler_table[paramiko.common.MSG_CHANNEL_DATA] = _stamped_feed


class Gateway:
    def __init__(self, base, frame_quiet_ms, max_sessions=64, marks=True):
        env = dict(os.environ, HOME=base, XDG_DATA_HOME=os.path.join(base, "data"),
                   XDG_STATE_HOME=os.path.join(base, "state"), TMPDIR=base)
        self.out = os.path.join(base, "serve-ssh-%d.out" % frame_quiet_ms)
        self.process = subprocess.Popen(
            [BIN, "serve-ssh", "--port", "0", "--people", "200", "--quiet", "--frame-quiet-ms", str(frame_quiet_ms),
             "--max-sessions", str(max_sessions), "--connections-per-minute", "1000"] + ([] if marks else ["--no-frame-mark"]),
            stdout=open(self.out, "w"), stderr=subprocess.STDOUT, env=env)
        self.port = None
        end = time.monotonic() + 120
        while time.monotonic() < end and self.port is None:
            text = open(self.out).read()
            if "Auth:" in text:
                self.port = int(text.split("ssh://127.0.0.1:")[1].split()[0].rstrip(")"))
            elif self.process.poll() is not None:
                raise RuntimeError("serve-ssh did not start: " + text[-2000:])
            time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise RuntimeError("serve-ssh did not start in time")

    def children(self):
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = open("/proc/%s/stat" % entry).read()
                except OSError:
                    continue
                if int(stat[stat.rindex(")") + 2:].split()[1]) == self.process.pid:
                    found.append(int(entry))
        return found

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Client:
    """One SSH session with a pty; `stamps` is [(monotonic, bytes)] per data message."""

    def __init__(self, port):
        raw = socket.create_connection(("127.0.0.1", port), timeout=30)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.counter = CountingSocket(raw)
        self.transport = paramiko.Transport(self.counter)
        self.transport.connect(username="bench", password="-")
        self.channel = self.transport.open_session()
        self.channel.stamps = []
        self.channel.wire_marks = []
        self.channel.counter = self.counter
        self.channel.get_pty("xterm-256color", 80, 24)
        self.started = time.monotonic()
        self.channel.invoke_shell()
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _drain(self):
        try:
            while True:
                data = self.channel.recv(65536)
                if not data:
                    return
        except Exception:
            return

    @property
    def stamps(self):
        return list(self.channel.stamps)

    def wire_at(self, moment):
        """Wire bytes read by `moment` (from the last data message stamped before it)."""
        marks = [b for t, b in list(self.channel.wire_marks) if t <= moment]
        return marks[-1] if marks else 0

    def wait_quiet(self, quiet, limit=30, after=None):
        """Until no data for `quiet` seconds (and, with `after`, once something came after that moment)."""
        end = time.monotonic() + limit
        while time.monotonic() < end:
            stamps = self.stamps
            last = stamps[-1][0] if stamps else self.started
            if after is not None and last < after and time.monotonic() - after < 5:
                time.sleep(0.005)
                continue
            if time.monotonic() - last >= quiet:
                return
            time.sleep(0.02)

    def between(self, start, end):
        chosen = [(t, n) for t, n in self.stamps if start <= t < end]
        return {"messages": len(chosen), "bytes": sum(n for _, n in chosen),
                "wire_bytes": self.wire_at(end) - self.wire_at(start - 1e-9) if chosen else 0}

    def step(self, key, quiet=1.0):
        start = time.monotonic()
        self.channel.send(key)
        self.wait_quiet(quiet, after=start)
        return self.between(start, time.monotonic())

    def close(self):
        try:
            self.channel.send("q")
            time.sleep(0.3)
            self.transport.close()
        except Exception:
            pass


def one_session(port):
    client = Client(port)
    try:
        client.wait_quiet(1.5, limit=60)
        first = client.between(client.started, time.monotonic())
        moves = [client.step("j", quiet=0.5) for _ in range(5)]
        drill = client.step("\r")
        back = client.step("\x1b")
        # The first person's first car (a 30-service history), its chart, and the highlighted point moved
        client.step("\r")
        client.step("\r")
        chart = client.step("c")
        points = [client.step("h", quiet=0.5) for _ in range(5)]
        for _ in range(3):
            client.step("\x1b")
        client.wait_quiet(3.0)
        idle_start = time.monotonic()
        time.sleep(10)
        idle = client.between(idle_start, time.monotonic())
    finally:
        client.close()
    median = sorted(moves, key=lambda m: m["bytes"])[len(moves) // 2]
    point = sorted(points, key=lambda m: m["bytes"])[len(points) // 2]
    return {"first": first, "row": median, "rows": moves, "drill": drill, "back": back, "idle": idle,
            "chart": chart, "chart_point": point, "chart_points": points}


def concurrent(port, gateway, count):
    clients = []
    for _ in range(count):
        clients.append(Client(port))
    for client in clients:
        client.wait_quiet(1.0, limit=120)
    rss = []
    for pid in gateway.children():
        try:
            for line in open("/proc/%d/status" % pid):
                if line.startswith("VmRSS:"):
                    rss.append(int(line.split()[1]))
        except OSError:
            pass
    latencies = []
    lock = threading.Lock()

    def press(client):
        keys = ["j", "k"]
        for index in range(100):
            sent = time.monotonic()
            client.channel.send(keys[index % 2])
            end = sent + 0.1
            answered = None
            while time.monotonic() < end:
                after = [t for t, _ in client.channel.stamps[-4:] if t >= sent]
                if after:
                    answered = after[0]
                    break
                time.sleep(0.0005)
            with lock:
                latencies.append(None if answered is None else (answered - sent) * 1000)
            time.sleep(max(0, end - time.monotonic()))

    threads = [threading.Thread(target=press, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for client in clients:
        client.close()
    answered = [l for l in latencies if l is not None]
    # Over every press: one not answered within 100 ms counts as slower than any answered (None in the figures
    # means "over 100 ms"), so a 1 % of late presses cannot hide from the p99.
    everything = [float("inf") if l is None else l for l in latencies]
    def over_all(fraction):
        value = percentile(everything, fraction)
        return None if value == float("inf") else value
    return {"sessions": count, "presses": len(latencies), "unanswered_within_100ms": len(latencies) - len(answered),
            "p50_ms": over_all(0.5), "p99_ms": over_all(0.99), "p99_answered_ms": percentile(answered, 0.99),
            "rss_mib_per_session": (sum(rss) / len(rss) / 1024) if rss else None, "processes": len(rss),
            "gateway_rss_mib": gateway_rss(gateway)}


def nio_concurrent(port, count, phase, runs, base):
    """The same presses from `ssh-bench` (swift-nio-ssh, one event-loop thread; see Benchmarks/SSHBench): `runs`
    runs of 10 s, each with 50 new sessions (cold caches, as in the paramiko run), their presses pooled. ssh-bench
    credits each press with the frame that shows it (its model of the terminal reads the list's position); its
    stderr (the screen of its slowest session, as its model saw it) is kept in `base`."""
    latencies, per_run, first_data = [], [], []
    for run in range(runs):
        # A failed run is logged and left out: the section's other figures stand.
        try:
            done = subprocess.run([os.path.join(BENCH_BINARIES, "ssh-bench"), str(port), str(count), "10",
                                   phase], capture_output=True, text=True, check=True, timeout=600,
                                  env=dict(os.environ, SSH_BENCH_SCREEN="1"))
            with open(os.path.join(base, "ssh-bench-%s-%d.err" % (phase, run + 1)), "w") as kept:
                kept.write(done.stderr)
            line = next(l for l in done.stdout.splitlines() if l.startswith("json: "))
            figures = json.loads(line[len("json: "):])
        except (subprocess.SubprocessError, StopIteration, ValueError) as error:
            log("ssh: ssh-bench failed: %r" % error)
            continue
        latencies += figures["latencies_ms"]
        per_run.append(figures["p99_ms"])
        first_data.append(figures.get("p99_first_data_ms"))
    if not latencies:
        return None
    answered = [l for l in latencies if l is not None]
    everything = [float("inf") if l is None else l for l in latencies]

    def over_all(fraction):
        value = percentile(everything, fraction)
        return None if value == float("inf") else value
    return {"sessions": count, "phase": phase, "runs": runs, "presses": len(latencies),
            "unanswered_within_100ms": len([l for l in everything if l > 100]),
            "never_shown": len(latencies) - len(answered), "p50_ms": over_all(0.5),
            "p99_ms": over_all(0.99), "p99_answered_ms": percentile(answered, 0.99) if answered else None,
            "p99_per_run_ms": per_run, "p99_first_data_per_run_ms": first_data}


def gateway_rss(gateway):
    try:
        for line in open("/proc/%d/status" % gateway.process.pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def section():
    results = {}
    frame_quiet = int(os.environ.get("BENCH_SSH_FRAME_QUIET_MS", "2"))
    results["frame_quiet_ms"] = frame_quiet
    for name, quiet, marks in (("frames", frame_quiet, True), ("quiet", frame_quiet, False), ("raw", 0, False)):
        base = fresh_dir("ssh", name)
        gateway = Gateway(base, quiet, marks=marks)
        try:
            if name != "quiet":
                log("ssh: one session, %s (--frame-quiet-ms %d)" % (name, quiet))
                results[name] = one_session(gateway.port)
            log("ssh: %d sessions at once, %s" % (CONCURRENT, name))
            results["concurrent" if name == "frames" else "concurrent_" + name] = concurrent(
                gateway.port, gateway, CONCURRENT)
            if name == "frames":
                for phase, runs in (("spread", NIO_RUNS), ("aligned", 1)):
                    log("ssh: %d sessions at once, %s, swift-nio-ssh client, %s, %d run(s)" % (CONCURRENT, name, phase, runs))
                    figures = nio_concurrent(gateway.port, CONCURRENT, phase, runs, base)
                    if figures:
                        results["concurrent_nio_" + phase] = figures
        finally:
            gateway.stop()
    return results
