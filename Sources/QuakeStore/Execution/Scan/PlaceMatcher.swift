import QuakeFormat
/// Substring search over pattern-encoded places. The needle is tested once against each
/// locality of the block's dictionary; only when the needle could start inside a
/// `<N> km <DIR> of ` prefix are rows checked one by one, with the prefix built on the stack.
package struct PlaceMatcher {
    package let needle: [UInt8]
    package let insensitive: Bool
    /// Whether a match can start inside the generated prefix.
    package let mayTouchPrefix: Bool

    package init(_ needle: String, insensitive: Bool) {
        self.insensitive = insensitive
        self.needle = insensitive ? ByteSearch.fold(needle) : Array(needle.utf8)
        mayTouchPrefix = PlaceMatcher.mayTouchPrefix(self.needle, insensitive: insensitive)
    }

    /// Whether `needle` could match where a `<N> km <DIR> of ` prefix is: wholly inside one, or
    /// starting inside one and running on into the locality. The prefix is digits, an optional
    /// space, `km `, direction letters and ` of `, so a match that crosses into the locality
    /// starts with prefix bytes that end in a tail of ` of `.
    package static func mayTouchPrefix(_ needle: [UInt8], insensitive: Bool) -> Bool {
        if needle.isEmpty { return true }
        let alphabet = Set("0123456789 kmNSEWof".utf8).union(insensitive ? Set("nsew".utf8) : [])
        let lead = needle.firstIndex { !alphabet.contains($0) } ?? needle.count
        if lead == needle.count { return true }
        let of = Array(" of ".utf8)
        for s in stride(from: 1, through: lead, by: 1) {
            let tail = min(s, of.count)
            if needle[(s - tail)..<s].elementsEqual(of[(of.count - tail)...]) { return true }
        }
        return false
    }

    /// Whether the needle lies inside each locality (by code; slot 0, null, never does). For a
    /// needle that cannot touch the prefix this decides every row.
    package func table(_ dict: ByteArena) -> [Bool] {
        var inside = [Bool](repeating: false, count: dict.count + 1)
        for k in 0..<dict.count {
            let bytes = Array(dict.bytes[dict.range(k)])
            inside[k + 1] = ByteSearch.contains(insensitive ? ByteSearch.fold(bytes) : bytes, needle)
        }
        return inside
    }

    /// One flag per row of the block.
    package func mask(_ p: PlaceBlock) -> [Bool] {
        let dict = p.localities
        let inside = table(dict)
        let folded: [[UInt8]] = mayTouchPrefix ? (0..<dict.count).map { k in
            let bytes = Array(dict.bytes[dict.range(k)])
            return insensitive ? ByteSearch.fold(bytes) : bytes
        } : []
        let rowCount = p.locality.count
        var out = [Bool](repeating: false, count: rowCount)
        if needle.isEmpty {
            for i in 0..<rowCount where p.locality[i] != 0 { out[i] = true }
            return out
        }
        // starts[s][k]: locality k begins with needle[s...]
        var starts: [[Bool]] = []
        if mayTouchPrefix {
            starts = (0..<needle.count).map { s in
                s == 0 ? [] : [false] + folded.map { ByteSearch.hasPrefix($0, needle[s...]) }
            }
        }
        var prefix: [UInt8] = []
        prefix.reserveCapacity(32)
        for i in 0..<rowCount {
            let code = Int(p.locality[i])
            if code == 0 { continue }
            if inside[code] {
                out[i] = true
                continue
            }
            guard mayTouchPrefix, p.direction[i] != PlacePayload.noPattern else { continue }
            prefix.removeAll(keepingCapacity: true)
            p.prefix(i, into: &prefix)
            if insensitive {
                for j in 0..<prefix.count where prefix[j] >= 65 && prefix[j] <= 90 { prefix[j] += 32 }
            }
            if ByteSearch.contains(prefix, needle) {
                out[i] = true
                continue
            }
            let maxS = min(needle.count - 1, prefix.count)
            if maxS < 1 { continue }
            for s in 1...maxS where starts[s][code] {
                if prefix[(prefix.count - s)...].elementsEqual(needle[0..<s]) {
                    out[i] = true
                    break
                }
            }
        }
        return out
    }
}
