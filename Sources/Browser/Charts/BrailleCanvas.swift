/// A grid of braille cells, each 2 dots wide and 4 high (U+2800–U+28FF): a terminal's finest plot. Where the
/// terminal cannot show braille, a canvas of one dot per cell draws in ASCII instead.
struct BrailleCanvas {
    let columns: Int
    let rows: Int
    /// Dots per cell: (2, 4) for braille, (1, 1) for ASCII.
    let dotsPerCell: (columns: Int, rows: Int)
    private(set) var bits: [UInt8]
    /// Cells holding a real sample (not only the line between samples).
    private(set) var sampleCells: Set<Int> = []

    init(columns: Int, rows: Int, dotsPerCell: (columns: Int, rows: Int) = (2, 4)) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        self.dotsPerCell = dotsPerCell
        bits = [UInt8](repeating: 0, count: self.columns * self.rows)
    }

    var dotWidth: Int { columns * dotsPerCell.columns }
    var dotHeight: Int { rows * dotsPerCell.rows }

    /// The bit of each dot of a cell, by column (0…1) and row (0…3) within it.
    static let dotBits: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]

    /// Sets the dot at `x` (from the left) and `y` (from the top); outside the canvas, nothing.
    mutating func set(x: Int, y: Int) {
        guard x >= 0, y >= 0, x < dotWidth, y < dotHeight else { return }
        let (across, down) = dotsPerCell
        bits[(y / down) * columns + x / across] |= Self.dotBits[x % across][y % down]
    }

    /// Marks a real sample: a 2×2 knot of dots in braille (the line passes through it), its cell in ASCII.
    mutating func mark(_ point: ChartPoint) {
        guard point.x.isFinite, point.y.isFinite else { return }
        let (x, y) = (Int(point.x.rounded()), Int(point.y.rounded()))
        guard x >= 0, y >= 0, x < dotWidth, y < dotHeight else { return }
        if dotsPerCell.columns > 1 {
            for dx in 0...1 { for dy in -1...0 { set(x: x - x % 2 + dx, y: y + dy) } }
        }
        sampleCells.insert((y / dotsPerCell.rows) * columns + x / dotsPerCell.columns)
    }

    /// A straight line of dots between two points in dot coordinates (non-finite ends draw nothing).
    mutating func line(from a: ChartPoint, to b: ChartPoint) {
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return }
        let steps = Int(max(abs(b.x - a.x), abs(b.y - a.y)).rounded(.up))
        guard steps > 0 else {
            set(x: Int(a.x.rounded()), y: Int(a.y.rounded()))
            return
        }
        for step in 0...min(steps, 4 * (dotWidth + dotHeight)) {
            let f = Double(step) / Double(steps)
            set(x: Int((a.x + (b.x - a.x) * f).rounded()), y: Int((a.y + (b.y - a.y) * f).rounded()))
        }
    }

    /// The character of cell (`column`, `row`); nil where no dot is set. In ASCII, `*`.
    func character(column: Int, row: Int, ascii: Bool = false) -> Character? {
        let value = bits[row * columns + column]
        guard value != 0 else { return nil }
        if ascii { return sampleCells.contains(row * columns + column) ? "o" : "*" }
        guard let scalar = Unicode.Scalar(0x2800 + UInt32(value)) else { return nil }
        return Character(scalar)
    }
}
