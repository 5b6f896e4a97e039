extension Catalog.Places {
    /// The section with some partitions' summaries replaced (nil: the partition has none), from
    /// this one's localities and entries: the bytes ``encode(_:)`` writes for the new summaries.
    ///
    /// Nil when the locality list itself would change (a summary names a locality the section
    /// lacks, or no partition holds one any more): the whole encode then runs.
    /// - Complexity: O(localities + entries); no partition is opened.
    func patched(_ changes: [Int: PlaceSummary?]) throws(QuakeError) -> [UInt8]? {
        var ordinals: [[UInt8]: UInt32] = [:]
        ordinals.reserveCapacity(localities.count)
        for index in 0..<localities.count { ordinals[Array(localities.bytes[localities.range(index)])] = UInt32(index) }
        let partitions = summarized.count
        // per partition, its entries as (ordinal, least bits, greatest bits), the replaced ones from their summaries
        var rows: [[(UInt32, UInt64, UInt64)]] = []
        rows.reserveCapacity(partitions)
        var flags: [Bool] = []
        flags.reserveCapacity(partitions)
        var references = [Int](repeating: 0, count: localities.count)
        for partition in 0..<partitions {
            var entries: [(UInt32, UInt64, UInt64)] = []
            if let change = changes[partition] {
                flags.append(change != nil)
                for entry in change?.entries ?? [] {
                    guard let ordinal = ordinals[entry.locality] else { return nil }
                    entries.append((ordinal, (entry.least ?? .nan).bitPattern, (entry.greatest ?? .nan).bitPattern))
                }
            } else {
                flags.append(summarized[partition])
                // checks the entries as a search does before they are copied
                _ = try bound(partition: partition, matches: [])
                for index in offsets[partition]..<offsets[partition + 1] {
                    let (ordinal, least, greatest) = entry(index)
                    entries.append((ordinal, least.bitPattern, greatest.bitPattern))
                }
            }
            for entry in entries { references[Int(entry.0)] += 1 }
            rows.append(entries)
        }
        guard !references.contains(0) else { return nil }
        var writer = ByteWriter()
        writer.u32(UInt32(localities.count))
        for index in 0..<localities.count { writer.blob(Array(localities.bytes[localities.range(index)])) }
        writer.u32(UInt32(partitions))
        for flag in flags { writer.u8(flag ? 1 : 0) }
        var written: UInt32 = 0
        writer.u32(0)
        for entries in rows {
            written += UInt32(entries.count)
            writer.u32(written)
        }
        for entries in rows {
            for (ordinal, least, greatest) in entries {
                writer.u32(ordinal)
                writer.u64(least)
                writer.u64(greatest)
            }
        }
        return writer.bytes
    }
}
