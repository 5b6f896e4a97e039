import QuakeSupport

/// Point lookups in one id-index bucket file: a v4 file through its block directory, checking
/// and decoding only the blocks the keys fall in (each once); an older file read whole.
package final class IdBucketLookup {
    /// Where an entry places its event: a partition ordinal and a minute hint there.
    package struct Place: Sendable, Equatable {
        package let ordinal: Int
        package let hint: UInt32
    }

    private let mapped: MappedFile
    /// The v4 file, or nil for an older one (then `whole` holds its entries).
    private let blocked: IdBucketFile?
    private let whole: IdHashes?
    private let wholeDirectory: IdHashes.Directory?
    /// Blocks decoded so far, by index.
    private var decoded: [Int: IdBucketFile.Entries] = [:]
    /// Key bits of the file.
    package let bits: Int

    /// Opens the bucket file at `path`; `bucket` and `partitioning` read older files whole.
    package init(path: String, bucket: Int, partitioning: Partitioning) throws(QuakeError) {
        mapped = try MappedFile(path: path)
        if IdBucketFile.isV4(mapped.bytes) {
            // SAFETY: `mapped` (a stored property) keeps the bytes mapped for this object's life.
            let file = try IdBucketFile(mapped.bytes, path: path)
            blocked = file
            whole = nil
            wholeDirectory = nil
            bits = file.bits
        } else {
            // SAFETY: decode copies what it keeps out of the mapping, which `mapped` holds.
            let hashes = try IdHashes.decode(mapped.bytes, bucket: bucket, partitioning: partitioning, path: path)
            blocked = nil
            whole = hashes
            wholeDirectory = IdHashes.Directory(hashes)
            bits = hashes.bits
        }
    }

    /// The places of every entry of each of `keys`.
    /// - Complexity: each block the keys fall in is checked and decoded once per lookup object.
    package func places(of keys: [UInt64]) throws(QuakeError) -> [Place] {
        var out: [Place] = []
        for key in keys {
            if let whole, let wholeDirectory {
                for entry in wholeDirectory.entries(key, in: whole) {
                    out.append(Place(ordinal: whole.ordinals[entry], hint: whole.hints[entry]))
                }
                continue
            }
            guard let blocked, let range = blocked.blockRange(of: key) else { continue }
            for blockIndex in range {
                let entries = try entries(blocked, blockIndex)
                var low = 0
                var high = entries.keys.count
                while low < high {
                    let middle = (low + high) / 2
                    if entries.keys[middle] < key { low = middle + 1 } else { high = middle }
                }
                while low < entries.keys.count, entries.keys[low] == key {
                    out.append(Place(ordinal: entries.ordinals[low], hint: entries.hints[low]))
                    low += 1
                }
            }
        }
        return out
    }

    /// Block `index` of `file`, decoded once.
    private func entries(_ file: IdBucketFile, _ index: Int) throws(QuakeError) -> IdBucketFile.Entries {
        if let cached = decoded[index] { return cached }
        let entries = try file.entries(ofBlock: index)
        decoded[index] = entries
        return entries
    }
}
