#!/usr/bin/env bash
# Bounded fuzzing of the demo service's $filter parser and the terminal's key decoder / text sanitiser
# (issue 7): FUZZ_SECONDS each (default 30), zero crashes allowed. Corpora: Fuzz/corpus/filter, key-decoder.
set -euo pipefail
cd "$(dirname "$0")/../.."
timeout 900 Fuzz/run.sh "${FUZZ_SECONDS:-30}" filter-parser key-decoder
