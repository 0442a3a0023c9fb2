"""Section signin: does renewing an OAuth 2.0 token ever hold up a frame?

The same 60-step scripted walk (navigation's walker) over mock-sap's GWSAMPLE_BASIC twice, from an empty cache:
once open, once behind OAuth 2.0 client credentials whose access tokens end after 5 s (`--token-ttl 5`), so that
a token is renewed every few seconds while keys are pressed. Both start at the business partners list and think
THINK (600 ms) between keys, so the walk lasts several token lifetimes. Figures: key → frame p50 and p99 (in-process, from `--trace`), and how many tokens the signed-in
run asked for and how many of its requests the service refused with 401 (mock-sap's own request log).
"""
import json
import os
import urllib.request

from common import REPO, Tmux, Trace, browser_env, free_port, fresh_dir, log, shell_command, start_server, BIN
import navigation

STEPS = int(os.environ.get("BENCH_SIGNIN_STEPS", "60"))
# Longer than navigation's: the walk lasts several token lifetimes, so renewals fall among the keys.
THINK = float(os.environ.get("BENCH_SIGNIN_THINK_MS", "600")) / 1000
PYTHON = os.path.join(REPO, "Benchmarks", ".venv", "bin", "python")
CLIENT, SECRET = "bench-client", "bench-Secret-42"


def mock_sap(oauth):
    port = free_port()
    args = [PYTHON, "-m", "mocksap", "--host", "127.0.0.1", "--port", str(port), "-q"]
    if oauth:
        args += ["--oauth", "%s:%s" % (CLIENT, SECRET), "--token-ttl", "5"]
    origin = "http://127.0.0.1:%d" % port
    return start_server(args, origin + "/_mock/health", "mock-sap"), origin


def requests_of(origin):
    with urllib.request.urlopen(origin + "/_mock/requests?limit=5000", timeout=5) as answer:
        return json.load(answer)["results"]


def run(oauth):
    process, origin = mock_sap(oauth)
    root = origin + "/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/"
    base = fresh_dir("signin", "oauth" if oauth else "open")
    trace_path = os.path.join(base, "trace.jsonl")
    env = browser_env(os.path.join(base, "cache"), os.path.join(base, "data"), term="tmux-256color")
    argv = [BIN, "browse", root + "BusinessPartnerSet", "--trace", trace_path]
    overrides = {k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "TERM", "LANG")}
    overrides["XDG_STATE_HOME"] = os.path.join(base, "state")
    if oauth:
        argv += ["--client-id", CLIENT, "--token-url", origin + "/sap/bc/sec/oauth2/token"]
        overrides["CARDEALER_CLIENT_SECRET"] = SECRET
    session = Tmux("signin", shell_command(argv, overrides))
    trace = Trace(trace_path)
    try:
        if not trace.wait(lambda t: t.settled(quiet=1.0), timeout=60):
            raise RuntimeError("the list did not settle: " + session.capture())
        steps = navigation.walk(session, trace, STEPS, THINK)
        trace.wait(lambda t: t.settled(quiet=0.5), timeout=10)
        session.send("q")
        trace.wait(lambda t: False, timeout=0.3)
        trace.poll()
        figures = navigation.summarise(trace, steps, 0, "oauth" if oauth else "open")
        seen = requests_of(origin)
        figures["token_requests"] = sum(1 for r in seen if r["path"].endswith("/oauth2/token"))
        figures["refused_401"] = sum(1 for r in seen if r["status"] == 401)
        figures["service_requests"] = sum(1 for r in seen if "/odata/" in r["path"])
        return figures
    finally:
        session.kill()
        process.kill()
        process.wait()


def section():
    results = {}
    for oauth in (False, True):
        log("signin: %s" % ("OAuth 2.0, 5 s tokens" if oauth else "open"))
        results["oauth" if oauth else "open"] = run(oauth)
        log("  %s" % {k: v for k, v in results["oauth" if oauth else "open"].items() if not k.endswith("_ms") or "p" in k})
    return results
