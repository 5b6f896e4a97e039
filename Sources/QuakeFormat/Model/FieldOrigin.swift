/// Where a stored event's fields came from, so that folding versions does not depend on how
/// they were grouped into loads.
///
/// A version carries the fields of its source (a CSV its header's columns, a GeoJSON feature its
/// properties, a ``Quake`` value all of them); ``RowBatch/present`` holds them per row. The fold
/// rule gives each field the value of the newest version that carried it. A stored row that is
/// the fold of several versions keeps, for that, two things:
/// - its ``RowBatch/present`` mask: the fields any of its versions carried (the others have never
///   been seen, and any version that carries them fills them);
/// - a few origins: for fields whose value came from a version older than the row's `updated`,
///   that version's `updated`, grouped by it.
///
/// A field with no origin came from a version whose `updated` is the row's own. A row that is
/// one version, or whose newest version carried every field it has, has no origins.
package struct FieldOrigin: Sendable, Equatable, Hashable {
    /// The fields whose values came from the version updated at ``updated``.
    package var mask: UInt64
    /// That version's `updated` (epoch ms; `Int64.min` when it had none).
    package var updated: Int64

    package init(mask: UInt64, updated: Int64) {
        self.mask = mask
        self.updated = updated
    }

    /// The `updated` of the version column `column` of a row came from: the origin that holds
    /// it, else `rowUpdated` (nil when the row's versions never carried it).
    @inline(__always)
    package static func updated(of column: Column, present: UInt64, origins: [FieldOrigin]?,
                                rowUpdated: Int64) -> Int64? {
        guard present & column.bit != 0 else { return nil }
        if let origins {
            for origin in origins where origin.mask & column.bit != 0 { return origin.updated }
        }
        return rowUpdated
    }

    /// The origins of a folded row: per carried field, the `updated` of its source
    /// (`fieldUpdated`, nil for fields never carried), grouped, less those equal to
    /// `rowUpdated`. Sorted by `updated`, so equal folds give equal lists.
    package static func origins(fieldUpdated: [Int64?], rowUpdated: Int64) -> [FieldOrigin] {
        var list: [FieldOrigin] = []
        for column in Column.allCases {
            guard let updated = fieldUpdated[column.rawValue], updated != rowUpdated else { continue }
            if let index = list.firstIndex(where: { $0.updated == updated }) {
                list[index].mask |= column.bit
            } else {
                list.append(FieldOrigin(mask: column.bit, updated: updated))
            }
        }
        list.sort { $0.updated < $1.updated }
        return list
    }
}
