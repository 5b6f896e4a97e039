import QuakeSupport

/// Point lookups in one id-index bucket file: a v4 file through its block directory, reading,
/// checking and decoding only the blocks the keys fall in (each once); an older file read whole.
/// A v4 file is read with `pread`, not mapped: a lookup reads a few kilobytes of a file of
/// hundreds, and unmapping a file that two threads had touched cost more than reading it.
package final class IdBucketLookup {
    /// Where an entry places its event: a partition ordinal and a minute hint there.
    package struct Place: Sendable, Equatable {
        package let ordinal: Int
        package let hint: UInt32
    }

    /// Bytes read from the end of a v4 file at first: its directory and trailer, for a file of
    /// up to about 290 blocks (74,000 entries); a longer directory takes a second read.
    static let tailRead = 8192

    private let path: String
    /// The open v4 file, or -1 for an older one (then `whole` holds its entries).
    private let descriptor: Int32
    private let blocked: IdBucketFile?
    private let whole: IdHashes?
    private let wholeDirectory: IdHashes.Directory?
    /// Blocks decoded so far, by index.
    private var decoded: [Int: IdBucketFile.Entries] = [:]
    /// Key bits of the file.
    package let bits: Int

    /// Opens the bucket file at `path`; `bucket` and `partitioning` read older files whole.
    package init(path: String, bucket: Int, partitioning: Partitioning) throws(QuakeError) {
        self.path = path
        let fd = try FileIO.openForReading(path)
        do throws(QuakeError) {
            let size = try FileIO.size(of: fd, path: path)
            var tail = try FileIO.preadExactly(fd, count: Swift.min(size, Self.tailRead),
                                               at: size - Swift.min(size, Self.tailRead), path: path)
            // SAFETY: the array's bytes are lent for the call only.
            let isV4 = tail.withUnsafeBytes { IdBucketFile.isV4($0) }
            if isV4 {
                let needed = try tail.withStoreBytes { (b) throws(QuakeError) in
                    try IdBucketFile.directoryTail(b, fileSize: size, path: path)
                }
                if needed > tail.count {
                    tail = try FileIO.preadExactly(fd, count: needed, at: size - needed, path: path)
                }
                // SAFETY: the tail's bytes are lent for the parse, which copies what it keeps.
                let file = try tail.withStoreBytes { (b) throws(QuakeError) in
                    try IdBucketFile(tail: b, fileSize: size, path: path)
                }
                descriptor = fd
                blocked = file
                whole = nil
                wholeDirectory = nil
                bits = file.bits
                return
            }
            let bytes = try FileIO.preadExactly(fd, count: size, at: 0, path: path)
            FileIO.close(fd)
            // SAFETY: decode copies what it keeps out of the array's bytes, lent for the call.
            let hashes = try bytes.withStoreBytes { (b) throws(QuakeError) in
                try IdHashes.decode(b, bucket: bucket, partitioning: partitioning, path: path)
            }
            descriptor = -1
            blocked = nil
            whole = hashes
            wholeDirectory = IdHashes.Directory(hashes)
            bits = hashes.bits
        } catch {
            FileIO.close(fd)
            throw error
        }
    }

    deinit {
        if descriptor >= 0 { FileIO.close(descriptor) }
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

    /// Block `index` of `file`, read and decoded once.
    private func entries(_ file: IdBucketFile, _ index: Int) throws(QuakeError) -> IdBucketFile.Entries {
        if let cached = decoded[index] { return cached }
        let extent = file.extent(ofBlock: index)
        let raw = try FileIO.preadExactly(descriptor, count: extent.length, at: extent.offset, path: path)
        // SAFETY: the block's bytes are lent for the decode, which copies what it keeps.
        let entries = try raw.withStoreBytes { (b) throws(QuakeError) in try file.entries(ofBlock: index, raw: b) }
        decoded[index] = entries
        return entries
    }
}
