#!/usr/bin/env bash
# The benchmark suite (issues 4 and 6): navigation, scale, ingest, terminal output, server, cache.
# Installs what it needs (wrk and tmux from apt when missing; pyodata and mock-sap into
# Benchmarks/.venv), builds release, runs every section, prints a markdown report and writes
# BENCHMARKS.md. Scratch files go to Benchmarks/.work. Loopback only; every wait is bounded.
# Usage: Benchmarks/run.sh [SECTION ...]   (navigation scale ingest terminal server cache writes ssh signin; default all)
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v wrk >/dev/null || need_apt+=(wrk)
command -v tmux >/dev/null || need_apt+=(tmux)
if ((${#need_apt[@]})); then
    echo "[bench] installing ${need_apt[*]} with apt-get" >&2
    apt-get install -y "${need_apt[@]}" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "${need_apt[@]}" >/dev/null; }
fi

VENV=Benchmarks/.venv
if ! "$VENV/bin/python" -c 'import pyodata, mocksap, paramiko, odatapy' 2>/dev/null; then
    echo "[bench] creating $VENV (pyodata, mock-sap, paramiko, odatapy)" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet pyodata==1.12.1 mock-sap==0.22.0 requests paramiko==5.1.0 odatapy==5.3.0
fi

echo "[bench] swift build -c release (the app, then the benchmarks' package)" >&2
build_start=$(date +%s)
swift build -c release >&2
# (SwiftPM keeps a path dependency's list of files from the last build of this package: a file added to the app
# since is not seen until the manifest is read again, so it is made to be)
touch Benchmarks/Package.swift
swift build -c release --package-path Benchmarks >&2
export BENCH_BUILD_SECONDS=$(( $(date +%s) - build_start ))

exec "$VENV/bin/python" Benchmarks/suite/main.py "$@"
