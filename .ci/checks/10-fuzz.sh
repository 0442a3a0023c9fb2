#!/usr/bin/env bash
# Bounded fuzzing of the parsers that read what servers send (≈ 120 s of fuzzing in all).
set -euo pipefail
cd "$(dirname "$0")/../.."
Fuzz/run.sh "${FUZZ_SECONDS:-30}"
