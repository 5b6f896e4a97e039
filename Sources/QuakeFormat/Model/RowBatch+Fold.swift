/// Folding an event's versions by row index: which row supplies each column, without building
/// a row per version.
///
/// The rule (the fold table in docs/Inputs.md): each field takes the value of the newest version that
/// carried it, by that version's `updated` (a stored row's fields keep the `updated` of the
/// versions they came from: ``FieldOrigin``); on equal `updated`, the later load wins, except
/// that a coarser copy of a time never replaces a precise one and a double-encoded (mojibake)
/// copy of a text never replaces the clean text. A field no version carried stays null. The
/// outcome is the same whether the versions arrive in one load or in many.
extension RowBatch {
    /// What a fold makes of an event besides its values: the fields its versions carried, and
    /// the origins of those that came from versions older than its `updated`.
    package struct Provenance: Equatable {
        package var present: UInt64
        package var origins: [FieldOrigin]
    }

    /// The fold of the versions at `order` (oldest first by `updated`, then load order): per
    /// column, in `sources`, the row whose value the event keeps.
    @discardableResult
    package func foldSources(_ order: ArraySlice<Int>, into sources: inout [Int]) -> Provenance {
        var kept = false
        return foldSources(order, into: &sources, keptPreciseTime: &kept)
    }

    /// ``foldSources(_:into:)``, setting `keptPreciseTime` when a coarser time was refused.
    package func foldSources(_ order: ArraySlice<Int>, into sources: inout [Int],
                             keptPreciseTime: inout Bool) -> Provenance {
        guard let first = order.first else { return Provenance(present: 0, origins: []) }
        for column in 0..<Column.count { sources[column] = first }
        var fieldUpdated = [Int64?](repeating: nil, count: Column.count)
        var present: UInt64 = 0
        let updated = ints[Column.updated.rawValue]
        for row in order {
            let mask = self.present[row]
            present |= mask
            let rowOrigins = origins[row]
            for column in Column.allCases where mask & column.bit != 0 {
                let index = column.rawValue
                guard let candidate = FieldOrigin.updated(of: column, present: mask, origins: rowOrigins,
                                                          rowUpdated: updated[row]) else { continue }
                if let best = fieldUpdated[index] {
                    let source = sources[index]
                    if candidate < best { continue }
                    if candidate == best {
                        // versions without `updated`: the later write wins; others by their values
                        if candidate == RowBatch.null {
                            if seq[row] < seq[source] { continue }
                        } else if !winsTie(column, row, over: source, keptPreciseTime: &keptPreciseTime) {
                            continue
                        }
                    }
                    if !RowBatch.isInt(column), text[index].garbles(row, of: text[index], source) { continue }
                }
                sources[index] = row
                fieldUpdated[index] = candidate
            }
        }
        let rowUpdated = ints[Column.updated.rawValue][sources[Column.updated.rawValue]]
        return Provenance(present: present,
                          origins: FieldOrigin.origins(fieldUpdated: fieldUpdated, rowUpdated: rowUpdated))
    }

    /// Whether row `row`'s value of `column` replaces row `source`'s when both came from versions
    /// with the same `updated`: a precise time over its coarser copy, a clean text over its
    /// mojibake copy, a value over null, else the greater value. The choice depends on the two
    /// values alone, not on which arrived first.
    package func winsTie(_ column: Column, _ row: Int, over source: Int, keptPreciseTime: inout Bool) -> Bool {
        let index = column.rawValue
        if RowBatch.isInt(column) {
            let candidate = ints[index][row]
            let kept = ints[index][source]
            if column == .time {
                if TimePrecision.coarsens(candidate, kept) {
                    keptPreciseTime = true
                    return false
                }
                return RowBatch.timeWinsTie(candidate, over: kept)
            }
            if column.kind == .decimal, candidate != RowBatch.null, kept != RowBatch.null {
                // the greater number, not the greater encoding (digits, then scale): 6 over 5.7;
                // equal numbers written two ways ("6", "6.0") fall to the encoding, as before
                let candidateValue = ScaledDecimal.double(candidate)
                let keptValue = ScaledDecimal.double(kept)
                if candidateValue != keptValue { return candidateValue > keptValue }
            }
            return kept == RowBatch.null ? candidate != RowBatch.null : candidate > kept
        }
        let arena = text[index]
        if arena.garbles(row, of: arena, source) { return false }
        if arena.garbles(source, of: arena, row) { return true }
        return arena.compare(row, arena, source) > 0
    }

    /// Whether time `candidate` replaces time `kept` of a version with the same `updated` (see
    /// ``winsTie(_:_:over:keptPreciseTime:)``): the resolve pass places the event by the same
    /// rule, so that the folded time lies in the partition chosen for it.
    package static func timeWinsTie(_ candidate: Int64, over kept: Int64) -> Bool {
        if TimePrecision.coarsens(candidate, kept) { return false }
        if TimePrecision.coarsens(kept, candidate) { return true }
        return kept == RowBatch.null ? candidate != RowBatch.null : candidate > kept
    }

    /// The provenance of row `row` as it stands.
    package func provenance(_ row: Int) -> Provenance {
        Provenance(present: present[row], origins: origins[row] ?? [])
    }

    /// The columns in which the folded event (its `sources`) differs from row `s`.
    package func changedColumns(sources: [Int], _ s: Int) -> UInt64 {
        var mask: UInt64 = 0
        for c in Column.allCases {
            let index = c.rawValue, source = sources[index]
            if source == s { continue }
            let same = RowBatch.isInt(c) ? ints[index][source] == ints[index][s]
                : text[index].equal(source, text[index], s)
            if !same { mask |= c.bit }
        }
        return mask
    }

    /// Appends the folded event: each column's value from its source row of `rows`.
    package mutating func append(folding rows: RowBatch, sources: [Int], provenance: Provenance, seq s: Int64) {
        for c in Column.allCases {
            let index = c.rawValue
            if RowBatch.isInt(c) {
                ints[index].append(rows.ints[index][sources[index]])
            } else {
                text[index].append(from: rows.text[index], row: sources[index])
            }
        }
        present.append(provenance.present)
        if !provenance.origins.isEmpty { origins[count] = provenance.origins }
        seq.append(s)
        count += 1
    }
}
