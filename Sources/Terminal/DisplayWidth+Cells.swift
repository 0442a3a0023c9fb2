/// Splitting a grapheme cluster into the terminal cells it fills.
///
/// A terminal keeps one spacing scalar per cell, with the zero-width scalars that follow it
/// (combining marks, variation selectors, ZWJ and, in tmux, whatever the ZWJ joins). ncurses
/// holds at most ``maxScalarsPerCell`` of them in a cell. So a cluster is laid out as:
///
/// * each spacing scalar starts a cell as wide as the scalar (``width(of:)-(Unicode.Scalar)``);
/// * a zero-width scalar joins the current cell; with no cell yet, or a full one, it starts a
///   one-column cell on a dotted circle `◌` instead of vanishing or piling onto the wrong cell;
/// * a ZWJ joins the current cell together with the scalar after it, which adds no column — if
///   both fit; otherwise the ZWJ is left out and the scalar after it is laid out on its own
///   (a 7-scalar family shows as `👨‍👩‍👧` then `👦`: every person visible, columns right);
/// * a ZWJ that ends the cluster would join the next cluster's first scalar in the terminal,
///   so it shows as ``TextSanitizer/invisiblePlaceholder`` (`␣`), one column;
/// * controls are skipped (``TextSanitizer`` has replaced them already).
extension DisplayWidth {
    /// What one terminal cell shows: a spacing scalar and the scalars joined onto it.
    public struct CellText: Hashable, Sendable {
        /// The scalars, in order; never more than ``DisplayWidth/maxScalarsPerCell``.
        public var text: String
        /// 1 or 2.
        public var width: Int
    }

    /// ncurses' `CCHARW_MAX`: the most scalars one cell can hold.
    public static let maxScalarsPerCell = 5
    /// Carries zero-width scalars that have no cell to join.
    public static let dottedCircle: Unicode.Scalar = "\u{25CC}"
    static let zeroWidthJoiner: Unicode.Scalar = "\u{200D}"

    /// The terminal cells `character` fills, left to right; their widths add up to ``width(of:)-(Character)``.
    public static func cells(of character: Character) -> [CellText] {
        var cells: [CellText] = []
        layout(character) { scalar, cellWidth in
            if cellWidth > 0 {
                cells.append(CellText(text: String(scalar), width: cellWidth))
            } else {
                cells[cells.count - 1].text.unicodeScalars.append(scalar)
            }
        }
        return cells
    }

    /// Walks the layout: `emit(scalar, width)` starts a cell of `width` with `scalar`, or with
    /// `width` 0 appends `scalar` to the cell last started.
    static func layout(_ character: Character, _ emit: (Unicode.Scalar, Int) -> Void) {
        let scalars = character.unicodeScalars
        var inCell = 0  // scalars in the current cell; 0 before the first cell
        var joinNext = false
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            if isControl(scalar) { continue }
            if joinNext {
                emit(scalar, 0)
                inCell += 1
                joinNext = false
                continue
            }
            if scalar == zeroWidthJoiner {
                if index == scalars.endIndex || inCell == 0 {
                    emit(TextSanitizer.invisiblePlaceholder.unicodeScalars.first!, 1)
                    inCell = 1
                } else if inCell + 2 <= maxScalarsPerCell {
                    emit(scalar, 0)
                    inCell += 1
                    joinNext = true
                }
                continue
            }
            let width = width(of: scalar)
            if width > 0 {
                emit(scalar, width)
                inCell = 1
                continue
            }
            if inCell == 0 || inCell == maxScalarsPerCell {
                emit(dottedCircle, 1)
                inCell = 1
            }
            emit(scalar, 0)
            inCell += 1
        }
    }
}
