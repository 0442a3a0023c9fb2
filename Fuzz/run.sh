#!/usr/bin/env bash
# Builds and runs ODataCore's libFuzzer targets.
#
#   Fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Targets: json-decoder, edmx-parser, key-predicate, batch-answer (ODataCore), filter-parser
# (the demo service's `$filter` lexer and parser, with ODataCore) and key-decoder
# (Terminal's key decoder and text sanitiser; links ncursesw). Default: the three
# ODataCore targets (.ci/checks/10-fuzz.sh); .ci/checks/21-fuzz-server-terminal.sh
# runs the other two. Each
# is compiled with the sources it needs into one binary under Fuzz/.out/, seeded
# from Fuzz/corpus/<name>/ (new inputs go to Fuzz/.out/corpus-<name>/, so the
# committed corpus stays small) and run for the given time. Exits non-zero on
# the first crash; the crashing input is kept in Fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json-decoder edmx-parser key-predicate batch-answer)

mkdir -p .out artifacts
odata=$(find ../Sources/ODataCore -name '*.swift' | sort)
filter="../Sources/DemoServer/ServiceError.swift ../Sources/DemoServer/Query/FilterExpression.swift
    ../Sources/DemoServer/Query/FilterLexer.swift ../Sources/DemoServer/Query/FilterParser.swift"
terminal="../Sources/Terminal/Key.swift ../Sources/Terminal/KeyDecoder.swift ../Sources/Terminal/TextSanitizer.swift
    ../Sources/Terminal/EscapeSequence.swift ../Sources/Terminal/DisplayWidth.swift ../Sources/Terminal/DisplayWidth+Cells.swift"
for target in "${targets[@]}"; do
    corpus=corpus/${target%-*}
    [ "$target" = key-predicate ] && corpus=corpus/keys
    [ "$target" = key-decoder ] && corpus=corpus/key-decoder
    binary=.out/$target
    module=ODataCore
    sources="$odata"
    flags=()
    case "$target" in
        json-decoder) sources="$odata targets/fuzz-metadata.swift" ;;
        filter-parser) sources="$odata $filter" ;;
        key-decoder) module=Terminal; sources="$terminal"; flags=(-I ../Sources/CNcurses) ;;
    esac
    echo "fuzz: building $target"
    # shellcheck disable=SC2086  # the source lists are meant to split
    if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "$module" "${flags[@]}" \
        $sources "targets/$target.swift" -o "$binary" >".out/build-$target.log" 2>&1; then
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
