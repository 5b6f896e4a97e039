#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only memory map of a whole file. The only owner of raw file memory in the store.
// @unchecked: `bytes` points at a read-only (PROT_READ) mapping that no one writes, made in init and
// unmapped only in deinit, once no thread holds the file; both stored properties are `let`. Types
// that read the mapping hold this owner (or a view that the owner outlives), never the pointer alone.
package final class MappedFile: @unchecked Sendable {
    package let path: String
    package let bytes: UnsafeRawBufferPointer

    package init(path: String) throws(QuakeError) {
        self.path = path
        let fd = try FileIO.openForReading(path)
        defer { FileIO.close(fd) }
        let size = try FileIO.size(of: fd, path: path)
        // SAFETY: a read-only private mapping of exactly the file's `size` bytes (none for an empty
        // file, which mmap refuses); it stays valid after the descriptor is closed, until deinit.
        bytes = size == 0 ? UnsafeRawBufferPointer(start: nil, count: 0)
            : try FileIO.mapReadOnly(fd, count: size, path: path)
    }

    // SAFETY: the last reference is gone, so no view of `bytes` is read any more.
    deinit { FileIO.unmap(bytes) }
}
