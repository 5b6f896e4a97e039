extension Catalog {
    /// The catalog's place section: every locality of the store, and per partition the
    /// localities its rows hold with their least and greatest magnitude (``PlaceSummary``). A
    /// place search top-N by magnitude opens only the partitions holding a matching locality,
    /// best bound first.
    ///
    /// ```
    /// u32 localities L, L localities (u32 length + UTF-8) ascending by bytes,
    /// u32 partitions P, P u8 (1: summarized, 0: the partition has no place index),
    /// P + 1 u32 entry offsets,
    /// entries: u32 locality ordinal (ascending within a partition), f64 least, f64 greatest
    ///          (both NaN when none of the locality's rows has a magnitude)
    /// ```
    package struct Places: Sendable {
        /// Every locality of the store, ascending by bytes.
        package let localities: ByteArena
        let summarized: [Bool]
        let offsets: [Int]
        /// The catalog file: it keeps the entries mapped.
        private let file: MappedFile
        /// Where the entries lie in `file`, 20 bytes each, read where a partition's bound is asked
        /// for: a one-shot query asks for a few hundred partitions' and would pay for parsing them all.
        private let entries: Range<Int>
        /// The summaries of a ``CatalogDelta``'s partitions, read instead of the file's (nil for a
        /// partition with none).
        private var overrides: [Int: [CatalogDelta.Place]?] = [:]
        /// What the catalog says of a partition's rows for a set of localities.
        package enum Bound: Equatable {
            /// The partition has no summary: it must be read.
            case unknown
            /// None of its rows holds a matching locality.
            case none
            /// Its matching rows' magnitudes lie in `least...greatest` (nil when none has one).
            case some(least: Double?, greatest: Double?)
        }

        /// The bound of partition `p`'s rows whose locality `matches` accepts; `matches` is
        /// indexed by locality ordinal plus one, as ``localities`` gives them (entry 0 unused).
        /// `rows` is called with each matching locality's least and greatest magnitude (when its
        /// rows have one): magnitudes of rows that exist.
        /// - Complexity: O(the partition's localities).
        package func bound(partition p: Int, matches: [Bool],
                           rows: (Double, Double) -> Void = { _, _ in }) throws(QuakeError) -> Bound {
            guard p >= 0, p < summarized.count else { return .unknown }
            if !overrides.isEmpty, let override = overrides[p] {
                guard let list = override else { return .unknown }
                return try bound(partition: p, count: list.count, matches: matches, rows: rows) { i in
                    (list[i].ordinal, list[i].least, list[i].greatest)
                }
            }
            guard summarized[p] else { return .unknown }
            let first = offsets[p]
            return try bound(partition: p, count: offsets[p + 1] - first, matches: matches, rows: rows) { i in
                entry(first + i)
            }
        }

        /// The bound of partition `p`'s `count` entries, entry `i` given by `entryAt(i)`.
        private func bound(partition p: Int, count: Int, matches: [Bool], rows: (Double, Double) -> Void,
                           entryAt: (Int) -> (UInt32, Double, Double)) throws(QuakeError) -> Bound {
            var any = false
            var lo: Double?, hi: Double?
            var last: UInt32?
            for i in 0..<count {
                let (o32, firstCode, lastCode) = entryAt(i)
                guard Int(o32) < localities.count, last.map({ $0 < o32 }) ?? true, firstCode.isNaN == lastCode.isNaN,
                      firstCode.isNaN || firstCode <= lastCode else {
                    throw .corrupt("place section entry of partition \(p)")
                }
                last = o32
                let offset = Int(o32) + 1
                guard offset < matches.count, matches[offset] else { continue }
                any = true
                if !firstCode.isNaN { rows(firstCode, lastCode) }
                if !firstCode.isNaN { lo = Swift.min(lo ?? firstCode, firstCode) }
                if !lastCode.isNaN { hi = Swift.max(hi ?? lastCode, lastCode) }
            }
            return any ? .some(least: lo, greatest: hi) : .none
        }

        /// Entry `i`: locality ordinal, least and greatest magnitude.
        @inline(__always) func entry(_ i: Int) -> (UInt32, Double, Double) {
            let at = entries.lowerBound + i * 20
            // init checked that `entries` (inside the mapping `file` keeps alive for this call)
            // holds 20 bytes for each of offsets' last count, and every i a bound reads lies below it
            assert(i >= 0 && at + 20 <= entries.upperBound && entries.upperBound <= file.bytes.count)
            let bytes = ChunkBytes(file.bytes)
            return (bytes.load(UInt32.self, at: at), Double(bitPattern: bytes.load(UInt64.self, at: at + 4)),
                    Double(bitPattern: bytes.load(UInt64.self, at: at + 12)))
        }

        /// Partition `index`'s summary, as ``PlaceSummary/init(_:)`` reads it from the partition's
        /// file; nil when it has none. A commit takes the summaries of the partitions it kept
        /// from here, and opens only the partitions it wrote.
        /// - Complexity: O(the partition's localities).
        package func summary(partition index: Int) throws(QuakeError) -> PlaceSummary? {
            guard index >= 0, index < summarized.count else { throw .corrupt("no place summary \(index)") }
            // checks the entries as a search does: ordinals ascending and known, bounds ordered
            _ = try bound(partition: index, matches: [])
            if !overrides.isEmpty, let override = overrides[index] {
                return override.map { list in
                    PlaceSummary(entries: list.map { place in
                        PlaceSummary.Entry(locality: Array(localities.bytes[localities.range(Int(place.ordinal))]),
                                           least: place.least.isNaN ? nil : place.least,
                                           greatest: place.greatest.isNaN ? nil : place.greatest)
                    })
                }
            }
            guard summarized[index] else { return nil }
            var entries: [PlaceSummary.Entry] = []
            entries.reserveCapacity(offsets[index + 1] - offsets[index])
            for entryIndex in offsets[index]..<offsets[index + 1] {
                let (ordinal, least, greatest) = entry(entryIndex)
                let locality = Array(localities.bytes[localities.range(Int(ordinal))])
                entries.append(PlaceSummary.Entry(locality: locality, least: least.isNaN ? nil : least,
                                                  greatest: greatest.isNaN ? nil : greatest))
            }
            return PlaceSummary(entries: entries)
        }

        /// Checks every partition's entries, as ``bound(partition:matches:rows:)`` checks the
        /// ones it reads (for `verify` and `repair`).
        package func checkAll() throws(QuakeError) {
            for p in 0..<summarized.count { _ = try bound(partition: p, matches: []) }
        }

        /// The section with `delta`'s summaries read instead of its own for the delta's partitions.
        func overridden(by delta: CatalogDelta) throws(QuakeError) -> Places {
            guard delta.partitions == summarized.count else { throw .corrupt("the delta lists other partitions") }
            var out = self
            for entry in delta.entries {
                if let places = entry.places, places.contains(where: { Int($0.ordinal) >= localities.count }) {
                    throw .corrupt("the delta names a locality the catalog lacks")
                }
                out.overrides[entry.partition] = .some(entry.places)
            }
            return out
        }

        /// The ordinal of `locality` among ``localities``; nil when the section does not list it.
        /// - Complexity: O(log localities).
        package func ordinal(of locality: [UInt8]) -> UInt32? {
            var low = 0
            var high = localities.count
            while low < high {
                let middle = (low + high) / 2
                if localities.bytes[localities.range(middle)].lexicographicallyPrecedes(locality) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            guard low < localities.count, localities.bytes[localities.range(low)].elementsEqual(locality) else {
                return nil
            }
            return UInt32(low)
        }

        /// The section for `summaries` (one per partition, nil when it has none).
        static func encode(_ summaries: [PlaceSummary?]) -> [UInt8] {
            var distinct = Set<LocalityKey>()
            for summary in summaries {
                for entry in summary?.entries ?? [] { distinct.insert(LocalityKey(bytes: entry.locality)) }
            }
            var all: [[UInt8]] = []
            all.reserveCapacity(distinct.count)
            for key in distinct { all.append(key.bytes) }
            all.sort { $0.lexicographicallyPrecedes($1) }
            var ordinal: [LocalityKey: UInt32] = [:]
            ordinal.reserveCapacity(all.count)
            for (index, locality) in all.enumerated() { ordinal[LocalityKey(bytes: locality)] = UInt32(index) }
            var writer = ByteWriter()
            writer.u32(UInt32(all.count))
            for l in all { writer.blob(l) }
            writer.u32(UInt32(summaries.count))
            for s in summaries { writer.u8(s == nil ? 0 : 1) }
            var written: UInt32 = 0
            writer.u32(0)
            for s in summaries {
                written += UInt32(s?.entries.count ?? 0)
                writer.u32(written)
            }
            for s in summaries {
                for e in s?.entries ?? [] {
                    writer.u32(ordinal[LocalityKey(bytes: e.locality)] ?? 0)
                    writer.u64((e.least ?? .nan).bitPattern)
                    writer.u64((e.greatest ?? .nan).bitPattern)
                }
            }
            return writer.bytes
        }

        /// Parses the section at `range` of the catalog `file` (already checksum-checked), of
        /// `partitions` partitions. The entries are checked where they are read.
        init(_ file: MappedFile, range: Range<Int>, partitions: Int) throws(QuakeError) {
            precondition(range.lowerBound >= 0 && range.upperBound <= file.bytes.count)
            // SAFETY: `range` lies inside the mapping (checked above), which `file` keeps alive
            // for as long as this value.
            let body = UnsafeRawBufferPointer(rebasing: file.bytes[range])
            var reader = ByteReader(body)
            let length = Int(try reader.u32())
            guard length <= body.count / 4 else { throw .corrupt("place section lists \(length) localities") }
            var arena = ByteArena()
            for _ in 0..<length {
                let count = Int(try reader.u32())
                try reader.need(count)
                // SAFETY: need(count) checked that the count bytes lie inside `body`.
                let next = UnsafeRawBufferPointer(rebasing: body[reader.pos..<(reader.pos + count)])
                if arena.count > 0 {
                    let prev = arena.bytes[arena.range(arena.count - 1)]
                    guard prev.lexicographicallyPrecedes(next) else {
                        throw .corrupt("place section localities out of order")
                    }
                }
                arena.append(next)
                reader.pos += count
            }
            guard Int(try reader.u32()) == partitions else { throw .corrupt("place section lists other partitions") }
            let flags = try reader.raw(partitions, as: UInt8.self)
            guard flags.allSatisfy({ $0 <= 1 }) else { throw .corrupt("place section flags") }
            let offs = try reader.raw(partitions + 1, as: UInt32.self).map { Int(UInt32(littleEndian: $0)) }
            guard offs.first == 0, zip(offs, offs.dropFirst()).allSatisfy({ $0 <= $1 }),
                  let total = offs.last, reader.remaining == total * 20 else {
                throw .corrupt("place section offsets are out of order")
            }
            for p in 0..<partitions where flags[p] == 0 && offs[p] != offs[p + 1] {
                throw .corrupt("place section: partition \(p)")
            }
            localities = arena
            summarized = flags.map { $0 == 1 }
            offsets = offs
            // the remaining bytes, total * 20 of them (checked above), to the section's end
            entries = (range.lowerBound + reader.pos)..<range.upperBound
            self.file = file
        }
    }
}

/// A locality's bytes as a dictionary key, hashed at once rather than byte by byte.
private struct LocalityKey: Hashable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        // SAFETY: the closure reads the array's own bytes within its span.
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
