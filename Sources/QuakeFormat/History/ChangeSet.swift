/// What one load did to the events whose new version lies in one partition: the ids it
/// inserted, updated (each with the columns that changed) and left unchanged, and the time
/// span of the changed events before and after. Built by ``MergePass``, one per partition.
package struct ChangeSet: Sendable {
    package var inserted = ByteArena()
    package var updated = ByteArena()
    /// Per updated id, a ``Column/bit`` mask of the columns whose values changed.
    package var changedColumns: [UInt64] = []
    package var unchanged = ByteArena()
    /// Earliest and latest time of an inserted or updated event, old and new versions both
    /// (`Int64.max`/`Int64.min` when none changed).
    package var minTime = Int64.max
    package var maxTime = Int64.min

    package init() {}

    package var isEmpty: Bool { inserted.count == 0 && updated.count == 0 && unchanged.count == 0 }

    package mutating func touch(_ t: Int64) {
        guard t != RowBatch.null else { return }
        minTime = min(minTime, t)
        maxTime = max(maxTime, t)
    }

    /// The section of a history file holding this set for partition `key`: the three lists,
    /// each `u64 raw size`, `u64 compressed size` and the compressed bytes.
    ///
    /// With `partitionRows`, the rows of the partition file this load wrote for `key`: when
    /// every one of them is an insert (nothing updated or unchanged, as many inserts as rows),
    /// the inserted list is a ``HistoryReference`` to that file instead of a copy of its ids.
    package func encoded(key: String, partitionRows: Int? = nil) -> EncodedChanges {
        var writer = ByteWriter()
        let reference = partitionRows == inserted.count && inserted.count > 0 && updated.count == 0
            && unchanged.count == 0
        for (k, (ids, masks)) in [(inserted, [UInt64]()), (updated, changedColumns), (unchanged, [])].enumerated() {
            if k == 0 && reference {
                writer.u64(HistoryReference.marker)
                writer.u64(0)
                continue
            }
            let raw = HistoryIdList.encode(ids, masks: masks)
            writer.u64(UInt64(raw.rawSize))
            writer.u64(UInt64(raw.bytes.count))
            writer.bytes.append(contentsOf: raw.bytes)
        }
        return EncodedChanges(section: HistoryFile.Section(
            key: key, minTime: minTime, maxTime: maxTime, inserted: inserted.count, updated: updated.count,
            unchanged: unchanged.count, offset: 0, length: writer.bytes.count, checksum: Checksum.hash(writer.bytes),
            reference: reference), body: writer.bytes)
    }
}

/// A ``ChangeSet`` as a history file section: its header entry (offset still 0) and its bytes.
package struct EncodedChanges: Sendable {
    package var section: HistoryFile.Section
    package var body: [UInt8]
}

extension RowBatch {
    /// A ``Column/bit`` mask of the columns whose values differ between row `i` and row `j`
    /// of `other`.
    package func changedColumns(_ i: Int, _ other: RowBatch, _ j: Int) -> UInt64 {
        var mask: UInt64 = 0
        for c in Column.allCases {
            let same = RowBatch.isInt(c) ? ints[c.rawValue][i] == other.ints[c.rawValue][j]
                : text[c.rawValue].equal(i, other.text[c.rawValue], j)
            if !same { mask |= c.bit }
        }
        return mask
    }
}
