/// A point of a chart, in whatever units the caller plots in (dots, for ``BrailleCanvas``).
struct ChartPoint: Hashable, Sendable {
    var x: Double
    var y: Double
}

/// Seed 003's smooth lines, done for data: simplify with Ramer–Douglas–Peucker at the plot's resolution, then
/// draw through what is left with centripetal Catmull-Rom (no loops, no cusps). A series that never falls
/// (mileage) never dips between two samples.
enum Smoothing {
    /// Ramer–Douglas–Peucker: keeps the first and last points, and every point farther than `epsilon` from the
    /// line through the points kept on either side of it; every point dropped lies within `epsilon` of the
    /// simplified line. Iterative (a stack, not recursion), so a long series cannot exhaust the stack.
    static func simplify(_ points: [ChartPoint], epsilon: Double) -> [ChartPoint] {
        guard points.count > 2 else { return points }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var pending = [(0, points.count - 1)]
        while let (first, last) = pending.popLast() {
            guard last - first > 1 else { continue }
            var farthest = first
            var distance = -1.0
            for index in (first + 1)..<last {
                let d = Self.distance(points[index], toSegment: points[first], points[last])
                if d > distance {
                    distance = d
                    farthest = index
                }
            }
            if distance > epsilon {
                keep[farthest] = true
                pending.append((first, farthest))
                pending.append((farthest, last))
            }
        }
        return points.indices.filter { keep[$0] }.map { points[$0] }
    }

    /// The distance from `point` to the segment `a`–`b` (to `a` when the segment is a point).
    static func distance(_ point: ChartPoint, toSegment a: ChartPoint, _ b: ChartPoint) -> Double {
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let length = dx * dx + dy * dy
        guard length > 0 else {
            return ((point.x - a.x) * (point.x - a.x) + (point.y - a.y) * (point.y - a.y)).squareRoot()
        }
        let t = max(0, min(1, ((point.x - a.x) * dx + (point.y - a.y) * dy) / length))
        let (px, py) = (a.x + t * dx - point.x, a.y + t * dy - point.y)
        return (px * px + py * py).squareRoot()
    }

    /// A centripetal Catmull-Rom spline (α = ½) through `points`, `samples` points per segment, passing through
    /// every control point. Each sample stays within its segment's x range (time never runs back), and when the
    /// series never falls (or never rises) neither does the curve. Duplicate points, one point or none give
    /// no NaN.
    static func catmullRom(_ points: [ChartPoint], samples: Int) -> [ChartPoint] {
        guard points.count > 2 else { return points }
        // A series that never falls (or never rises, as a rising one does on a screen, whose y runs down).
        let rising = zip(points, points.dropFirst()).allSatisfy { $0.y <= $1.y }
        let falling = zip(points, points.dropFirst()).allSatisfy { $0.y >= $1.y }
        let forward = zip(points, points.dropFirst()).allSatisfy { $0.x <= $1.x }
        var curve: [ChartPoint] = [points[0]]
        for index in 0..<(points.count - 1) {
            let p1 = points[index]
            let p2 = points[index + 1]
            // The ends get a neighbour mirrored across them.
            let p0 = index > 0 ? points[index - 1] : ChartPoint(x: 2 * p1.x - p2.x, y: 2 * p1.y - p2.y)
            let p3 =
                index + 2 < points.count ? points[index + 2] : ChartPoint(x: 2 * p2.x - p1.x, y: 2 * p2.y - p1.y)
            let steps = max(1, samples)
            for step in 1...steps {
                var point =
                    step == steps
                    ? p2 : segment(p0, p1, p2, p3, at: Double(step) / Double(steps))
                point.x = min(max(point.x, min(p1.x, p2.x)), max(p1.x, p2.x))
                if forward { point.x = max(point.x, curve.last?.x ?? point.x) }
                if rising {
                    point.y = min(max(point.y, p1.y, curve.last?.y ?? p1.y), p2.y)
                } else if falling {
                    point.y = max(min(point.y, p1.y, curve.last?.y ?? p1.y), p2.y)
                }
                curve.append(point)
            }
        }
        return curve
    }

    /// The point at `fraction` (0…1) of the way from `p1` to `p2` on the centripetal curve (Barry–Goldman).
    static func segment(
        _ p0: ChartPoint, _ p1: ChartPoint, _ p2: ChartPoint, _ p3: ChartPoint, at fraction: Double
    ) -> ChartPoint {
        func knot(_ a: ChartPoint, _ b: ChartPoint) -> Double {
            // α = ½ of the distance: the squared distance to the power ¼. Never 0, so no division by it.
            max((((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y))).squareRoot().squareRoot(), 1e-9)
        }
        let t0 = 0.0
        let t1 = t0 + knot(p0, p1)
        let t2 = t1 + knot(p1, p2)
        let t3 = t2 + knot(p2, p3)
        let t = t1 + (t2 - t1) * fraction
        func mix(_ a: ChartPoint, _ b: ChartPoint, _ ta: Double, _ tb: Double) -> ChartPoint {
            let (wa, wb) = ((tb - t) / (tb - ta), (t - ta) / (tb - ta))
            return ChartPoint(x: wa * a.x + wb * b.x, y: wa * a.y + wb * b.y)
        }
        let a1 = mix(p0, p1, t0, t1)
        let a2 = mix(p1, p2, t1, t2)
        let a3 = mix(p2, p3, t2, t3)
        let b1 = mix(a1, a2, t0, t2)
        let b2 = mix(a2, a3, t1, t3)
        let c = mix(b1, b2, t1, t2)
        guard c.x.isFinite, c.y.isFinite else {
            return ChartPoint(x: p1.x + (p2.x - p1.x) * fraction, y: p1.y + (p2.y - p1.y) * fraction)
        }
        return c
    }
}
