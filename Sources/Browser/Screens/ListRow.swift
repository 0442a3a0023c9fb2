import EntityCache
import Terminal

/// One row of a list screen: the entity shown, and for rows reached through a link
/// entity (a person's cars through `PersonCar`) the link itself, which drill-downs
/// and prefetches start from.
struct ListRow: Hashable {
    var position: Int
    /// The entity the row shows; nil while it is not cached yet (`loading…`).
    var shown: CachedEntity?
    /// The link entity hopped through, if any.
    var link: CachedEntity?

    /// The entity prefetching and drilling start from.
    var anchor: CachedEntity? { link ?? shown }
}

/// A row as a frame drew it: what it showed, in which columns and widths, and the cells after the gutter.
struct DrawnRow {
    var row: ListRow
    /// Whose draft the row's "has a draft" cell said (read apart from the row).
    var draftHolder: String?
    var columns: [DisplayProfile.Column]
    var widths: [Int]
    var lineWidth: Int
    var cells: [Cell]
}
