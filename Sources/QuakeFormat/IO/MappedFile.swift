#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only memory map of a whole file. The only owner of raw file memory in the store.
package final class MappedFile: @unchecked Sendable {
    package let path: String
    package let bytes: UnsafeRawBufferPointer

    package init(path: String) throws(QuakeError) {
        self.path = path
        let fd = try FileIO.openForReading(path)
        defer { FileIO.close(fd) }
        let size = try FileIO.size(of: fd, path: path)
        bytes = size == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : try FileIO.mapReadOnly(fd, count: size, path: path)
    }

    deinit { FileIO.unmap(bytes) }
}
