#!/usr/bin/env bash
# The tree is formatted as .swift-format says: lint only (never rewrites), with the toolchain's swift format.
# To fix what it reports: swift format format -i -r Sources Tests Benchmarks Package.swift
set -euo pipefail
cd "$(dirname "$0")/../.."
swift format lint --strict --recursive Sources Tests Benchmarks Package.swift
echo "format: clean"
