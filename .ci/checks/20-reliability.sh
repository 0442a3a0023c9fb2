#!/usr/bin/env bash
# The reliability suite's long forms (issue 7), after `swift test` has built everything:
#   * the fault soak for RELIABILITY_SOAK_STEPS steps (default 6,000; `swift test` runs 2,000) with another seed;
#   * the SIGKILL-mid-ingest test with RELIABILITY_KILLS kills (default 30; `swift test` runs 20).
# Each run is bounded by `timeout`, so a hang fails the check instead of stalling CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
export RELIABILITY_SOAK_STEPS=${RELIABILITY_SOAK_STEPS:-6000}
export RELIABILITY_SOAK_SEED=${RELIABILITY_SOAK_SEED:-$(( $(date +%s) % 1000000 + 1 ))}
export RELIABILITY_KILLS=${RELIABILITY_KILLS:-30}
echo "reliability: soak ${RELIABILITY_SOAK_STEPS} steps, seed ${RELIABILITY_SOAK_SEED}; ${RELIABILITY_KILLS} kills"
start=$(date +%s)
set +e
timeout 600 swift test --skip-build --filter 'ReliabilityTests.(FaultSoakTests|CrashSafetyTests)' >.ci-reliability.log 2>&1
status=$?
set -e
tail -n 30 .ci-reliability.log
echo "reliability: done in $(( $(date +%s) - start )) s (exit ${status})"
exit "$status"
