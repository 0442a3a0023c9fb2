import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// `c` on a list: a number over a date of the list's entities, as a smooth braille line (seed 003).
///
/// Any list whose entity type has a date-like property and a numeric one can be charted: the first of each
/// (the key left out), which on Maintenance is mileage over service date. The chart's highlighted point and
/// the list's cursor are the same record: ← → move both, Enter opens that record, Esc goes back to the list
/// with its cursor on it. The line goes through every sample after a Ramer–Douglas–Peucker pass at the plot's
/// resolution and a centripetal Catmull-Rom spline; a series that never falls never dips.
@MainActor
final class ChartController: ScreenController {
    let screenID: ScreenID
    var breadcrumb: String { spec.title.map { String($0.prefix(60)) } ?? "\(spec.y) by \(spec.x)" }
    let kindTitle = "Chart"
    let environment: BrowserEnvironment
    /// The list charted (which owns the data and the cursor).
    weak var list: (any ChartedList)?

    /// One chart of a list: a number over a date; `cumulative` adds the running total as a line over bars.
    struct Spec: Equatable {
        var x: String
        var y: String
        var cumulative = false
        /// The title the service gives the chart (`UI.Chart`'s `Title`).
        var title: String? = nil
    }

    /// The charts this list offers (the display profile's, else the first date and number); Tab cycles them.
    let specs: [Spec]
    var current = 0
    var spec: Spec { specs[current] }
    var xName: String { spec.x }
    var yName: String { spec.y }

    /// One record on the chart: its list position, its values and the entity.
    struct Sample {
        var position: Int
        var x: Double
        var y: Double
        var entity: CachedEntity
        var xValue: ODataValue
        var yValue: ODataValue
    }

    /// The records with both values, in date order.
    var samples: [Sample] = []
    var highlighted = 0

    /// A chart of `list`, or nil when its entities have no date and number to plot.
    init?(environment: BrowserEnvironment, list: any ChartedList, specs named: [Spec]? = nil) {
        guard let set = list.shownSet else { return nil }
        let specs = named ?? Self.specs(of: set, in: environment)
        guard !specs.isEmpty else { return nil }
        self.environment = environment
        self.list = list
        self.specs = specs
        self.screenID = environment.nextScreenID()
    }

    /// Why `:chart Y by X` cannot chart a list, in a sentence.
    struct Refusal: Error {
        let message: String
    }

    /// `:chart Y by X`: a chart of `list` with the number `y` over the date `x` (and the list's other charts after).
    static func named(
        y: String, x: String, for list: any ChartedList, in environment: BrowserEnvironment
    )
        -> Result<ChartController, Refusal>
    {
        guard let set = list.shownSet, let type = environment.model.entityType(ofSet: set) else {
            return .failure(Refusal(message: "This list has nothing to chart."))
        }
        let keys = Set(environment.model.keyProperties(of: type))
        let properties = environment.model.properties(of: type).filter { !keys.contains($0.name) }
        let numbers = properties.filter(isNumeric).map(\.name)
        let dates = properties.filter(isDateLike).map(\.name)
        guard let yName = numbers.first(where: { $0.lowercased() == y.lowercased() }) else {
            return .failure(
                Refusal(
                    message: "\(set) has no number called “\(y)”"
                        + (numbers.isEmpty ? "." : "; its numbers: " + numbers.joined(separator: ", ") + ".")))
        }
        guard let xName = dates.first(where: { $0.lowercased() == x.lowercased() }) else {
            return .failure(
                Refusal(
                    message: "\(set) has no date called “\(x)”"
                        + (dates.isEmpty ? "." : "; its dates: " + dates.joined(separator: ", ") + ".")))
        }
        let chosen = Spec(x: xName, y: yName)
        let others = specs(of: set, in: environment).filter { $0.x != chosen.x || $0.y != chosen.y }
        guard let chart = ChartController(environment: environment, list: list, specs: [chosen] + others) else {
            return .failure(Refusal(message: "This list has nothing to chart."))
        }
        return .success(chart)
    }

    /// The charts the display profile names for `set` (those whose properties exist with the right types), else
    /// the first date-like and numeric properties.
    static func specs(of set: String, in environment: BrowserEnvironment) -> [Spec] {
        let model = environment.model
        guard let type = model.entityType(ofSet: set) else { return [] }
        let properties = Dictionary(
            model.properties(of: type).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let named = (environment.profile.set(named: set)?.charts ?? []).compactMap { chart -> Spec? in
            guard let x = properties[chart.x], isDateLike(x), let y = properties[chart.y], isNumeric(y) else {
                return nil
            }
            return Spec(x: chart.x, y: chart.y, cumulative: chart.cumulative ?? false)
        }
        if !named.isEmpty { return named }
        // The service's `UI.Chart`s: each measure over the first dimension that is a date (the only axis drawn).
        let declared = (type.ui.charts ?? []).flatMap { chart -> [Spec] in
            guard let x = chart.dimensions.first(where: { properties[$0].map(isDateLike) == true }) else { return [] }
            let title = chart.title.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
            return chart.measures.filter { properties[$0].map(isNumeric) == true }.map {
                Spec(x: x, y: $0, title: title)
            }
        }
        if !declared.isEmpty { return declared }
        return axes(of: set, in: model).map { [Spec(x: $0.x, y: $0.y)] } ?? []
    }

    static func isDateLike(_ property: Property) -> Bool {
        [.dateTime, .dateTimeOffset, .date].contains(property.type.primitive)
    }

    static func isNumeric(_ property: Property) -> Bool {
        let numeric: Set<EdmPrimitiveType> = [.byte, .sByte, .int16, .int32, .int64, .decimal, .double, .single]
        return property.type.primitive.map(numeric.contains) == true
    }

    /// The first date-like property and the first numeric one (keys left out) of `set`'s type.
    static func axes(of set: String, in model: ServiceModel) -> (x: String, y: String)? {
        guard let type = model.entityType(ofSet: set) else { return nil }
        let keys = Set(model.keyProperties(of: type))
        let properties = model.properties(of: type).filter { !keys.contains($0.name) }
        guard let x = properties.first(where: isDateLike), let y = properties.first(where: isNumeric) else {
            return nil
        }
        return (x.name, y.name)
    }

    static func number(_ value: ODataValue?) -> Double? {
        switch value {
        case .int(let number)?: Double(number)
        case .decimal(let text)?: Double(text)
        case .double(let number)? where number.isFinite: number
        case .dateTime(let instant)?, .dateTimeOffset(let instant)?: Double(instant.millisecondsSince1970)
        default: nil
        }
    }

    var statusSummary: String {
        guard !samples.isEmpty else { return "nothing to chart yet" }
        return "\(highlighted + 1) of \(samples.count) · ← → move · Enter opens"
            + (specs.count > 1 ? " · Tab next chart" : "")
    }

    func willAppear() { update() }

    /// The list keeps reading the cache under the chart, so rows that arrive fill the chart in. (The stack tells
    /// the list it disappeared after the chart appeared, so this is the first moment it can start again; the
    /// list's own appearance later starts it afresh.)
    func didAppear() {
        list?.reload()
        update()
    }

    /// Reads the list's rows (what the list read from the cache) into samples; keeps the list's record highlighted.
    func update() {
        guard let list else { return }
        var read: [Sample] = []
        for position in 0..<list.rowCount {
            guard let entity = list.row(at: position)?.shown,
                let xValue = entity[xName], let yValue = entity[yName],
                let x = Self.number(xValue), let y = Self.number(yValue)
            else { continue }
            read.append(Sample(position: position, x: x, y: y, entity: entity, xValue: xValue, yValue: yValue))
        }
        read.sort { ($0.x, $0.position) < ($1.x, $1.position) }
        samples = read
        highlighted = samples.firstIndex { $0.position == list.selectedPosition } ?? min(highlighted, samples.count - 1)
        highlighted = max(0, highlighted)
    }

    func handle(_ key: Key) -> ScreenAction {
        if key == .tab || key == .char("c") || key == .backTab, specs.count > 1 {
            current = (current + (key == .backTab ? specs.count - 1 : 1)) % specs.count
            update()
            environment.setNeedsDisplay()
            return .handled
        }
        guard !samples.isEmpty else { return .ignored }
        switch key {
        case .left, .char("h"), .up, .char("k"): move(to: highlighted - 1)
        case .right, .char("l"), .down, .char("j"): move(to: highlighted + 1)
        case .home, .char("g"): move(to: 0)
        case .end, .char("G"): move(to: samples.count - 1)
        case .enter:
            let entity = samples[highlighted].entity
            return .push(
                EntityDetailController(
                    environment: environment, key: entity.key, breadcrumb: environment.label(of: entity)))
        default: return .ignored
        }
        environment.setNeedsDisplay()
        return .handled
    }

    /// Highlights sample `index` and puts the list's cursor on the same record.
    func move(to index: Int) {
        highlighted = min(max(0, index), samples.count - 1)
        list?.select(position: samples[highlighted].position)
    }

    /// The characters of the frame: braille and box drawing, or ASCII where the terminal cannot show braille.
    struct Glyphs {
        var tick = "┤", axis = "│", corner = "└", rule = "─", mark = "●", line = "⠉", bars = "⡇"
        static let ascii = Glyphs(tick: "+", axis: "|", corner: "+", rule: "-", mark: "@", line: ".", bars: "|")
    }

    func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        let columns = buffer.size.columns
        guard !samples.isEmpty else {
            buffer.put(" No \(yName) by \(xName) to chart in this list (yet).", row: rows.lowerBound, column: 0)
            return
        }
        let ascii = !environment.canShowBraille
        let glyphs = ascii ? Glyphs.ascii : Glyphs()
        let integral = samples.allSatisfy { $0.y == $0.y.rounded() }
        // The values drawn against the left scale (each sample's), and for a cumulative chart the running total
        // against the right one.
        var totals: [Double] = []
        var running = 0.0
        for sample in samples {
            running += sample.y
            totals.append(running)
        }
        let minY = spec.cumulative ? min(0, samples.map(\.y).min()!) : samples.map(\.y).min()!
        let maxY = samples.map(\.y).max()!
        let (minX, maxX) = (samples.first!.x, samples.last!.x)
        let topLabel = Self.label(maxY, integral: integral)
        let bottomLabel = Self.label(minY, integral: integral)
        let labelWidth = max(topLabel.count, bottomLabel.count) + 1
        let totalLabel = spec.cumulative ? "Σ " + Self.label(totals.last!, integral: integral) : ""
        let rightWidth = spec.cumulative ? totalLabel.count + 1 : 0
        let plotColumns = columns - labelWidth - 2 - rightWidth
        let plotRows = rows.count - 3
        guard plotColumns >= 10, plotRows >= 3 else {
            buffer.put(" The terminal is too small for a chart.", row: rows.lowerBound, column: 0)
            return
        }
        var canvas = BrailleCanvas(columns: plotColumns, rows: plotRows, dotsPerCell: ascii ? (1, 1) : (2, 4))
        let width = Double(canvas.dotWidth - 1)
        let height = Double(canvas.dotHeight - 1)
        func dot(_ x: Double, _ y: Double, low: Double, high: Double) -> ChartPoint {
            let fx = maxX > minX ? (x - minX) / (maxX - minX) : 0.5
            let fy = high > low ? (y - low) / (high - low) : 0.5
            return ChartPoint(x: fx * width, y: (1 - fy) * height)
        }
        let points = samples.map { dot($0.x, $0.y, low: minY, high: maxY) }
        if spec.cumulative {
            // Each value a bar from the baseline; the running total one smooth line over them.
            for point in points { canvas.line(from: ChartPoint(x: point.x, y: height), to: point) }
            let line = zip(samples, totals).map { dot($0.x, $1, low: 0, high: totals.last! > 0 ? totals.last! : 1) }
            draw(line, on: &canvas)
        } else {
            draw(points, on: &canvas)
            // The real samples stay visible on the smoothed line (a knot each), when there is room for them.
            if points.count <= plotColumns / 2 { points.forEach { canvas.mark($0) } }
        }

        let top = rows.lowerBound
        let plotLeft = labelWidth + 1
        for row in 0..<plotRows {
            let label = row == 0 ? topLabel : row == plotRows - 1 ? bottomLabel : ""
            buffer.put(String(repeating: " ", count: labelWidth - 1 - label.count) + label, row: top + row, column: 0)
            buffer.put(label.isEmpty ? glyphs.axis : glyphs.tick, row: top + row, column: labelWidth)
            for column in 0..<plotColumns {
                if let character = canvas.character(column: column, row: row, ascii: ascii) {
                    buffer.put(String(character), row: top + row, column: plotLeft + column)
                }
            }
        }
        if spec.cumulative {
            buffer.put(totalLabel, row: top, column: plotLeft + plotColumns + 1)
            buffer.put("Σ 0", row: top + plotRows - 1, column: plotLeft + plotColumns + 1)
        }
        // The highlighted record, on its cell.
        let mark = points[highlighted]
        buffer.put(
            glyphs.mark, row: top + min(plotRows - 1, Int(mark.y) / canvas.dotsPerCell.rows),
            column: plotLeft + min(plotColumns - 1, Int(mark.x) / canvas.dotsPerCell.columns),
            style: CellStyle(.bold))
        buffer.put(
            String(repeating: " ", count: labelWidth) + glyphs.corner
                + String(repeating: glyphs.rule, count: plotColumns),
            row: top + plotRows, column: 0)
        let first = ValueFormatter.format(samples.first!.xValue, as: "date")
        let last = ValueFormatter.format(samples.last!.xValue, as: "date")
        buffer.put(first, row: top + plotRows + 1, column: plotLeft)
        if plotColumns > first.count + last.count + 2 {
            buffer.put(last, row: top + plotRows + 1, column: plotLeft + plotColumns - last.count)
        }
        let current = samples[highlighted]
        let shown = Self.label(current.y, integral: integral)
        let series =
            spec.cumulative
            ? " \(glyphs.bars) \(yName), \(glyphs.line) total by \(xName)"
            : " \(glyphs.line) \(yName) by \(xName)"
        let legend =
            series + "   \(glyphs.mark) \(ValueFormatter.format(current.xValue, as: "date")): " + shown
            + (spec.cumulative ? " (Σ " + Self.label(totals[highlighted], integral: integral) + ")" : "")
            + "   " + environment.label(of: current.entity)
        buffer.put(legend, row: top + plotRows + 2, column: 0)
    }

    /// Simplifies the points at the plot's resolution and draws them as a centripetal Catmull-Rom spline.
    func draw(_ points: [ChartPoint], on canvas: inout BrailleCanvas) {
        let curve = Smoothing.catmullRom(Smoothing.simplify(points, epsilon: 0.5), samples: 8)
        if curve.count == 1 { canvas.line(from: curve[0], to: curve[0]) }
        for (a, b) in zip(curve, curve.dropFirst()) { canvas.line(from: a, to: b) }
    }

    /// A tick label: grouped digits (12,345), two decimals for a series that has fractions.
    static func label(_ value: Double, integral: Bool) -> String {
        guard value.isFinite else { return "" }
        if integral, abs(value) < 9e15 { return ValueFormatter.format(.int(Int64(value)), as: "grouped") }
        let cents = Int64((value * 100).rounded())
        let sign = cents < 0 ? "-" : ""
        let whole = ValueFormatter.format(.int(abs(cents) / 100), as: "grouped")
        let fraction = abs(cents) % 100
        return sign + whole + "." + (fraction < 10 ? "0" : "") + String(fraction)
    }
}

/// What a chart needs of the list it charts (issue 33: the chart no longer holds the list controller itself): the
/// set its rows are of, the rows as the list read them, the cursor the two share, and a fresh read of the cache.
@MainActor
protocol ChartedList: AnyObject {
    var shownSet: String? { get }
    var rowCount: Int { get }
    func row(at position: Int) -> ListRow?
    /// The list's cursor: the chart highlights that record, and moving on the chart moves it.
    var selectedPosition: Int { get }
    func select(position: Int)
    /// Reads the rows again and observes them (the chart is on top while the list keeps reading).
    func reload()
}

extension EntityListController: ChartedList {
    var selectedPosition: Int { cursor.selected }
}
