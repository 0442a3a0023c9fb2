"""Runs the benchmark sections, prints the markdown report, writes results.json and BENCHMARKS.md.

Usage: main.py [SECTION ...] [--no-write]   (sections: navigation scale ingest terminal server cache writes ssh signin annotated coldstart; default all)
"""
import json
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import common  # noqa: E402
import report  # noqa: E402

SECTIONS = ["navigation", "scale", "ingest", "terminal", "server", "cache", "writes", "ssh", "signin", "annotated", "coldstart"]


def sh(*argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return (done.stdout or done.stderr).strip()
    except OSError:
        return "?"


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    memory = next((l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")), "0")
    return [
        ("CPU", "%s, %s cores online" % (cpu, os.cpu_count())),
        ("memory", "%.1f GiB" % (int(memory) / 1048576)),
        ("kernel", platform.platform()),
        ("load average at start", ", ".join("%.2f" % v for v in os.getloadavg())),
        ("Swift", sh("swift", "--version").splitlines()[0] if sh("swift", "--version") else "?"),
        ("tmux", sh("tmux", "-V")),
        ("wrk", sh("wrk", "--version").splitlines()[0] if sh("wrk", "--version") else "?"),
        ("python (suite venv)", platform.python_version()),
        ("commit", sh("git", "-C", common.REPO, "rev-parse", "--short", "HEAD")),
    ]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    write = "--no-write" not in sys.argv
    chosen = args or SECTIONS
    os.makedirs(common.WORK, exist_ok=True)
    facts = machine()
    results, timings = {}, {}
    started = time.monotonic()
    try:
        for name in chosen:
            begin = time.monotonic()
            module = __import__(name)
            try:
                results[name] = module.section()
            except Exception as error:  # a failed section is reported, the others still run
                common.log("%s failed: %r" % (name, error))
                results[name + "_error"] = repr(error)
            timings[name] = time.monotonic() - begin
    finally:
        common.Tmux.kill_server()
    total = time.monotonic() - started
    with open(os.path.join(common.WORK, "results.json"), "w") as out:
        json.dump({"results": results, "timings": timings}, out, indent=1, default=str)
    body = report.render(results)
    errors = ["- %s: %s" % (k, v) for k, v in results.items() if k.endswith("_error")]
    if errors:
        body += "\n## Sections that failed\n\n" + "\n".join(errors) + "\n"
    timing = "Section wall times: " + ", ".join("%s %.0f s" % (k, v) for k, v in timings.items())
    timing += "; suite %.0f s" % total
    build = os.environ.get("BENCH_BUILD_SECONDS")
    if build:
        timing += "; release build %s s" % build
    print(body)
    print(timing)
    if write:
        write_document(facts, body, timing)


def write_document(facts, body, timing):
    lines = ["# Benchmarks", "",
             "One run of `Benchmarks/run.sh` (what it measures and how: `Benchmarks/README.md`). "
             "Figures are what this run measured on this machine; nothing here is edited by hand.", "",
             "Date: %s" % time.strftime("%Y-%m-%d %H:%M %Z"), "", "## Machine", "",
             report.table(["", ""], facts), "", "## Commands", "",
             "```sh", "Benchmarks/run.sh            # installs wrk/tmux (apt) and a venv (pyodata, mock-sap, odatapy), builds release, runs all",
             "swift build -c release       # what it builds: the app,",
             "swift build -c release --package-path Benchmarks   # and the benchmark programs (a package of their own)",
             "python3 Benchmarks/suite/main.py [navigation scale ingest terminal server cache writes ssh signin annotated coldstart]",
             "```", "", body, "", timing, ""]
    with open(os.path.join(common.REPO, "BENCHMARKS.md"), "w") as out:
        out.write("\n".join(lines))


if __name__ == "__main__":
    main()
