#!/usr/bin/env bash
# Builds and runs ODataCore's libFuzzer targets.
#
#   Fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Targets: json-decoder, edmx-parser, key-predicate (default: all). Each is
# compiled with ODataCore's sources into one binary under Fuzz/.out/, seeded
# from Fuzz/corpus/<name>/ (new inputs go to Fuzz/.out/corpus-<name>/, so the
# committed corpus stays small) and run for the given time. Exits non-zero on
# the first crash; the crashing input is kept in Fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json-decoder edmx-parser key-predicate)

mkdir -p .out artifacts
sources=$(find ../Sources/ODataCore -name '*.swift' | sort)
for target in "${targets[@]}"; do
    corpus=corpus/${target%-*}
    [ "$target" = key-predicate ] && corpus=corpus/keys
    binary=.out/$target
    support=""
    [ "$target" = json-decoder ] && support=targets/fuzz-metadata.swift
    echo "fuzz: building $target"
    if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name ODataCore \
        $sources $support "targets/$target.swift" -o "$binary" >".out/build-$target.log" 2>&1; then
        grep -E "error" ".out/build-$target.log" | head -20
        echo "fuzz: $target did not build"
        exit 1
    fi
    mkdir -p ".out/corpus-$target"
    echo "fuzz: running $target for ${seconds}s"
    status=0
    ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no "./$binary" -max_total_time="$seconds" -max_len=65536 \
        -rss_limit_mb=2048 -timeout=10 -artifact_prefix="artifacts/$target-" -print_final_stats=1 \
        ".out/corpus-$target" "$corpus" >".out/run-$target.log" 2>&1 || status=$?
    grep -E "^(INFO: Seed|Fatal error|==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|Done )" ".out/run-$target.log" || true
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $target FAILED (exit $status); inputs in Fuzz/artifacts/"
        exit "$status"
    fi
done
echo "fuzz: no crashes"
