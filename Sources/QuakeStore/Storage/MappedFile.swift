#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only memory map of a whole file. The only owner of raw file memory in the store.
final class MappedFile: @unchecked Sendable {
    let path: String
    let bytes: UnsafeRawBufferPointer

    init(path: String) throws(StoreError) {
        self.path = path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .io("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .io("\(path): \(String(cString: strerror(errno)))") }
        let size = Int(st.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw .io("\(path): mmap failed: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: p, count: size)
    }

    deinit {
        if let b = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: b), bytes.count) }
    }
}
