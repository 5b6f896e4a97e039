/// The localities of one partition, each with the least and greatest magnitude of its rows: what
/// the store catalog keeps per partition, so that a place search top-N by magnitude opens only
/// the partitions holding a matching locality, best bound first (see ``Catalog/Places``).
///
/// A locality is what ``PlacePayload/split(_:)`` leaves of a place after its `<N> km <DIR> of `
/// prefix (the whole place when it has none); rows without a place have none.
package struct PlaceSummary: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var locality: [UInt8]
        /// The least and greatest magnitude of the locality's rows; nil when none has one.
        package var least: Double?
        package var greatest: Double?
    }

    /// Sorted by locality bytes, each locality once.
    package var entries: [Entry]

    /// A summary of entries already sorted by locality, each once (as a catalog holds them).
    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// Folds `(locality, magnitude)` pairs, in any order, into a summary.
    private init(_ pairs: [[UInt8]: (least: Double?, greatest: Double?)]) {
        entries = pairs.map { Entry(locality: $0.key, least: $0.value.least, greatest: $0.value.greatest) }
            .sorted { $0.locality.lexicographicallyPrecedes($1.locality) }
    }

    private static func fold(_ into: inout [[UInt8]: (least: Double?, greatest: Double?)], _ locality: [UInt8],
                             least: Double?, greatest: Double?) {
        var bounds = into[locality] ?? (nil, nil)
        if let newLeast = least, bounds.least.map({ newLeast < $0 }) ?? true { bounds.least = newLeast }
        if let newGreatest = greatest, bounds.greatest.map({ newGreatest > $0 }) ?? true {
            bounds.greatest = newGreatest
        }
        into[locality] = bounds
    }

    /// The summary of stored rows, place by place: the naive reference that ``verify`` holds
    /// the catalog to.
    /// - Complexity: O(rows).
    package init(places: ByteArena, mags: [Int64]) {
        var pairs: [[UInt8]: (least: Double?, greatest: Double?)] = [:]
        // SAFETY: i < places.count, so each row range lies in the arena's bytes and `rest` lies in `place`; the
        // slices are copied into arrays and no pointer outlives the closure.
        places.bytes.withUnsafeBytes { b in
            for i in 0..<Swift.min(places.count, mags.count) {
                let range = places.range(i)
                if range.isEmpty { continue }
                let place = UnsafeRawBufferPointer(rebasing: b[range])
                let loc = PlacePayload.split(place).map { Array(place[$0.rest]) } ?? Array(place)
                let magnitude = ScaledDecimal.double(mags[i]) + 0.0
                let known: Double? = magnitude.isNaN ? nil : magnitude
                Self.fold(&pairs, loc, least: known, greatest: known)
            }
        }
        self.init(pairs)
    }

    /// The summary of a partition from its place index and its blocks' place dictionaries,
    /// without decoding a row; nil when the partition has no place index.
    /// - Complexity: O(place index entries + dictionary bytes).
    package init?(_ r: PartitionReader) throws(QuakeError) {
        guard let index = try r.placeIndex() else { return nil }
        let directory = try r.directory()
        let values = directory.granules.magValues
        var pairs: [[UInt8]: (least: Double?, greatest: Double?)] = [:]
        for k in 0..<directory.blockSizes.count {
            let (dict, _) = try r.placeCodes(block: k, rows: 0..<0)
            let list: ArraySlice<PlaceIndex.Entry>
            do throws(QuakeError) { list = try index.entries(block: k) } catch { throw error.at(r.path) }
            for e in list where e.code != 0 {
                guard Int(e.code) <= dict.count else { throw .corrupt(r.path, "place index names locality \(e.code)") }
                let none = e.least == PlaceIndex.noMag
                guard none || Int(e.greatest) < values.count else {
                    throw .corrupt(r.path, "place index names magnitude \(e.greatest)")
                }
                Self.fold(&pairs, Array(dict.bytes[dict.range(Int(e.code) - 1)]),
                          least: none ? nil : values[Int(e.least)], greatest: none ? nil : values[Int(e.greatest)])
            }
        }
        self.init(pairs)
    }
}
