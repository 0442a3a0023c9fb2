import Testing

@testable import Browser

/// Seed 003's smoothing, as properties: what the simplification keeps and how close it stays, what the spline
/// passes through, and that a rising series never dips.
@Suite struct SmoothingTests {
    /// A seeded series: x rising with repeats, y a random walk (or rising, when `monotone`).
    static func series(_ count: Int, seed: UInt64, monotone: Bool) -> [ChartPoint] {
        var state = seed | 1
        func next() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 10_000) / 10_000
        }
        var (x, y) = (0.0, 50.0)
        return (0..<count).map { _ in
            x += next() < 0.1 ? 0 : next() * 3  // sometimes the same date twice
            y += monotone ? next() * 4 : (next() - 0.5) * 8
            return ChartPoint(x: x, y: y)
        }
    }

    /// The distance from `point` to the polyline through `line`.
    func distance(_ point: ChartPoint, to line: [ChartPoint]) -> Double {
        zip(line, line.dropFirst()).map { Smoothing.distance(point, toSegment: $0, $1) }.min()
            ?? Smoothing.distance(point, toSegment: line[0], line[0])
    }

    @Test(arguments: [1, 2, 3, 7, 50, 2_000] as [Int])
    func simplification_keeps_the_ends_and_stays_within_epsilon(count: Int) {
        for seed: UInt64 in [1, 2, 3] {
            let points = Self.series(count, seed: seed, monotone: false)
            let simplified = Smoothing.simplify(points, epsilon: 1)
            #expect(simplified.first == points.first && simplified.last == points.last)
            #expect(simplified.count <= points.count)
            for point in points { #expect(distance(point, to: simplified) <= 1 + 1e-9) }
        }
    }

    @Test func a_long_history_reads_as_far_fewer_points_at_a_screens_resolution() {
        // 2,000 records across 160 dots of width: a line, not a scribble
        let points = Self.series(2_000, seed: 7, monotone: true)
        let span = points.last!.x - points.first!.x
        let scaled = points.map { ChartPoint(x: ($0.x - points[0].x) / span * 159, y: $0.y / points.last!.y * 79) }
        #expect(Smoothing.simplify(scaled, epsilon: 0.5).count < 400)
    }

    @Test func the_spline_passes_through_its_control_points_and_keeps_time_forward() {
        let points = Self.series(40, seed: 11, monotone: false)
        let curve = Smoothing.catmullRom(points, samples: 8)
        for point in points { #expect(curve.contains(point)) }
        #expect(zip(curve, curve.dropFirst()).allSatisfy { $0.x <= $1.x })
        #expect(curve.allSatisfy { $0.x.isFinite && $0.y.isFinite })
    }

    @Test(arguments: [false, true])
    func a_series_that_never_falls_never_dips(upsideDown: Bool) {
        // (on screen y runs down, so a rising series is a falling one there)
        let points = Self.series(60, seed: 5, monotone: true).map {
            upsideDown ? ChartPoint(x: $0.x, y: -$0.y) : $0
        }
        let curve = Smoothing.catmullRom(points, samples: 12)
        let ordered = zip(curve, curve.dropFirst()).allSatisfy { upsideDown ? $0.y >= $1.y : $0.y <= $1.y }
        #expect(ordered)
    }

    @Test func no_nan_from_repeated_single_or_no_points() {
        let same = ChartPoint(x: 3, y: 4)
        for points in [[], [same], [same, same], [same, same, same], [same, ChartPoint(x: 3, y: 9), same]] {
            let curve = Smoothing.catmullRom(Smoothing.simplify(points, epsilon: 0.5), samples: 8)
            #expect(curve.allSatisfy { $0.x.isFinite && $0.y.isFinite }, "\(points)")
        }
    }

    @Test func the_canvas_sets_the_braille_dot_of_each_position() {
        var canvas = BrailleCanvas(columns: 2, rows: 1)
        canvas.set(x: 0, y: 0)
        canvas.set(x: 3, y: 3)
        canvas.set(x: 9, y: 9)  // outside: nothing
        #expect(canvas.character(column: 0, row: 0) == "\u{2801}")
        #expect(canvas.character(column: 1, row: 0) == "\u{2880}")
        var line = BrailleCanvas(columns: 4, rows: 2)
        line.line(from: ChartPoint(x: 0, y: 7), to: ChartPoint(x: 7, y: 0))
        #expect((0..<4).allSatisfy { column in (0..<2).contains { line.character(column: column, row: $0) != nil } })
    }
}
