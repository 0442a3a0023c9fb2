"""Shared pieces of the benchmark suite: paths, processes, tmux, the --trace reader, statistics.

Everything here runs on this machine only: servers listen on 127.0.0.1, every wait has a deadline.
"""
import json
import os
import signal
import subprocess
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.environ.get("BENCH_WORK", os.path.join(REPO, "Benchmarks", ".work"))
BIN = os.path.join(REPO, ".build", "release", "cardealer")
# The benchmark programs: a package of their own (Benchmarks/Package.swift), built by run.sh.
BENCH_BINARIES = os.path.join(REPO, "Benchmarks", ".build", "release")
TMUX_SOCKET = "cardealer-bench-%d" % os.getpid()


def log(message):
    """Progress goes to stderr; stdout carries only the report."""
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), message), flush=True, file=os.sys.stderr)


def fresh_dir(*parts):
    """An empty directory under WORK."""
    path = os.path.join(WORK, *parts)
    subprocess.run(["rm", "-rf", path], check=True)
    os.makedirs(path)
    return path


def percentile(values, fraction):
    """Nearest-rank percentile (fraction in 0…1) of a non-empty list; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, int(-(-fraction * len(ordered) // 1)))  # ceil
    return ordered[min(rank, len(ordered)) - 1]


def mean(values):
    return sum(values) / len(values) if values else None


def dir_bytes(path):
    """Total size of the regular files under path."""
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:
                pass
    return total


def peak_rss_kib(pid):
    """VmHWM (peak resident set) of a live process, in KiB; None when unreadable."""
    try:
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Server:
    """`cardealer serve` in the background; `root` is the (v2) service root it printed first, `root4` the v4 one."""

    def __init__(self, args, env=None, deadline=900):
        self.output_path = os.path.join(WORK, "serve-%d.out" % time.monotonic_ns())
        self.output = open(self.output_path, "w")
        self.process = subprocess.Popen(
            [BIN, "serve", "--host", "127.0.0.1", "--port", "0"] + args,
            stdout=self.output, stderr=subprocess.STDOUT, env=env or os.environ.copy())
        self.root = None
        self.root4 = None
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            with open(self.output_path) as text:
                roots = [line.split()[1] for line in text if line.startswith("Serving ")]
            self.root = roots[0] if roots else None
            self.root4 = roots[1] if len(roots) > 1 else None
            if len(roots) > 1 or self.process.poll() is not None:
                break
            time.sleep(0.1)
        if not self.root:
            self.stop()
            raise RuntimeError("cardealer serve did not start: " + open(self.output_path).read()[-2000:])

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.output.close()


class Tmux:
    """One tmux session on a private server socket, 80×24 unless told otherwise."""

    def __init__(self, name, command, width=80, height=24):
        self.name = name
        self.run("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), command)

    @staticmethod
    def run(*args, check=True):
        return subprocess.run(["tmux", "-L", TMUX_SOCKET] + list(args), check=check,
                              capture_output=True, text=True, timeout=20)

    def send(self, *keys):
        self.run("send-keys", "-t", self.name, *keys)

    def capture(self):
        return self.run("capture-pane", "-p", "-t", self.name).stdout

    def pane_pid(self):
        out = self.run("display-message", "-p", "-t", self.name, "#{pane_pid}").stdout.strip()
        return int(out) if out.isdigit() else None

    def alive(self):
        return self.run("has-session", "-t", self.name, check=False).returncode == 0

    def kill(self):
        self.run("kill-session", "-t", self.name, check=False)

    @classmethod
    def kill_server(cls):
        cls.run("kill-server", check=False)


class Trace:
    """Reads a `--trace` file as it grows: `events` is every JSON line so far."""

    def __init__(self, path):
        self.path = path
        self.events = []
        self._offset = 0
        self._partial = b""

    def poll(self):
        """Reads new lines; returns how many arrived."""
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except FileNotFoundError:
            return 0
        self._offset += len(chunk)
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            if line.strip():
                self.events.append(json.loads(line))
        return len(lines)

    def wait(self, predicate, timeout, interval=0.003):
        """Polls until predicate(self) is truthy or timeout seconds pass; returns its last value."""
        end = time.monotonic() + timeout
        while True:
            self.poll()
            value = predicate(self)
            if value or time.monotonic() >= end:
                return value
            time.sleep(interval)

    def of(self, kind, since=0):
        return [e for e in self.events[since:] if e["event"] == kind]

    def in_flight(self):
        """Requests started and not yet ended."""
        started = {e["id"] for e in self.events if e["event"] == "request_start"}
        ended = {e["id"] for e in self.events if e["event"] == "request_end"}
        return len(started - ended)

    def last_frame(self):
        for event in reversed(self.events):
            if event["event"] == "frame":
                return event
        return None

    def settled(self, quiet=0.5):
        """No request in flight, the last frame shows no `loading…`, and nothing happened for `quiet` s."""
        frame = self.last_frame()
        if frame is None or frame["loading"] or self.in_flight():
            return False
        return time.monotonic() - self.events[-1]["t"] >= quiet


def free_port():
    """A TCP port free on 127.0.0.1 just now."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(argv, probe, what, attempts=200):
    """Starts `argv` and waits (at most `attempts` × 50 ms) until `probe` (a URL) answers; the process."""
    import urllib.request
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(attempts):
        try:
            urllib.request.urlopen(probe, timeout=1)
            return process
        except Exception:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("%s did not start" % what)


def browser_env(cache_home, data_home, term="xterm-256color"):
    """The environment a browser runs in: its own XDG directories, a known terminal.

    Inside tmux, pass term="tmux-256color": tmux encodes keys such as End by its own terminfo entry.
    """
    env = os.environ.copy()
    env["XDG_CACHE_HOME"] = cache_home
    env["XDG_DATA_HOME"] = data_home
    env["TERM"] = term
    env["LANG"] = "C.UTF-8"
    env.pop("NO_COLOR", None)
    return env


def shell_command(argv, env_overrides):
    """A /bin/sh command line running argv with env_overrides, quoted for tmux."""
    import shlex
    assignments = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env_overrides.items())
    return "exec env %s %s" % (assignments, " ".join(shlex.quote(a) for a in argv))


def run_release_bench(name, timeout):
    """Runs `Benchmarks/.build/release/<name>`, a bench that prints its figures on one `json: ` line, and returns them."""
    done = subprocess.run([os.path.join(BENCH_BINARIES, name)],
                          capture_output=True, text=True, check=True, timeout=timeout)
    line = next(l for l in done.stdout.splitlines() if l.startswith("json: "))
    return json.loads(line[len("json: "):])
