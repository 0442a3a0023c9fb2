"""Section annotated: does a list the service describes (issue 33) cost frames?

odatapy (PyPI) serves 400 work orders twice (`annotated_service.py`): once described by a UI.LineItem of 12
labelled columns, four coloured by UI.Criticality through a level property, with a UI.HeaderInfo and a sort
order; once with no annotations at all, the baseline (every property a column by its name). The same scripted
walk (navigation's walker: down, a page, Enter into details, back) runs over each in tmux at 170×30, where all 12
columns fit, from an empty cache, after the list has settled. Figure: key → frame p50 and p99 (in-process, from
`--trace`); the annotated run's columns are checked on screen before the walk.
"""
import os

from common import BIN, REPO, Tmux, Trace, browser_env, free_port, fresh_dir, log, shell_command, start_server
import navigation

STEPS = int(os.environ.get("BENCH_ANNOTATED_STEPS", "200"))
THINK = float(os.environ.get("BENCH_THINK_MS", "200")) / 1000
PYTHON = os.path.join(REPO, "Benchmarks", ".venv", "bin", "python")
SERVICE = os.path.join(REPO, "Benchmarks", "suite", "annotated_service.py")
LABELS = ["Order", "Status", "Priority", "Site", "Asset", "Technician", "Opened", "Due", "Hours", "Parts", "Cost",
          "Note"]


def serve(variant):
    port = free_port()
    root = "http://127.0.0.1:%d/odata/" % port
    return start_server([PYTHON, SERVICE, str(port), variant], root + "$metadata", "the work-order service"), root


def run(variant):
    process, root = serve(variant)
    base = fresh_dir("annotated", variant)
    trace_path = os.path.join(base, "trace.jsonl")
    env = browser_env(os.path.join(base, "cache"), os.path.join(base, "data"), term="tmux-256color")
    overrides = {k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "TERM", "LANG")}
    overrides["XDG_STATE_HOME"] = os.path.join(base, "state")
    session = Tmux("annotated", shell_command([BIN, "browse", root + "WorkOrder", "--trace", trace_path], overrides),
                   width=170, height=30)
    trace = Trace(trace_path)
    try:
        if not trace.wait(lambda t: t.settled(quiet=1.0), timeout=60):
            raise RuntimeError("the list did not settle: " + session.capture())
        screen = session.capture()
        header = screen.splitlines()[1] if len(screen.splitlines()) > 1 else ""
        columns = sum(1 for label in LABELS if label in header.split())
        if variant == "annotated" and columns != len(LABELS):
            raise RuntimeError("the 12 labelled columns are not on screen: " + screen)
        steps = navigation.walk(session, trace, STEPS, THINK)
        trace.wait(lambda t: t.settled(quiet=0.5), timeout=10)
        session.send("q")
        trace.wait(lambda t: False, timeout=0.3)
        trace.poll()
        figures = navigation.summarise(trace, steps, 0, variant)
        figures["labelled_columns"] = columns
        return figures
    finally:
        session.kill()
        process.kill()
        process.wait()


def section():
    results = {}
    for variant in ("plain", "annotated"):
        log("annotated: %s" % variant)
        results[variant] = run(variant)
        log("  p50 %.2f ms, p99 %.2f ms" % (results[variant]["key_to_frame_p50_ms"] or 0,
                                             results[variant]["key_to_frame_p99_ms"] or 0))
    return results
