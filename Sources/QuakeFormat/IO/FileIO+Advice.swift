#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

extension FileIO {
    /// Whether ``dropFromPageCache(_:)`` can work here: `posix_fadvise` exists (Linux), or nil;
    /// otherwise the reason it cannot.
    package static var pageCacheDropUnavailableReason: String? {
        #if canImport(Glibc)
        return nil
        #else
        return "posix_fadvise(POSIX_FADV_DONTNEED) is not available on this system"
        #endif
    }

    /// Asks the kernel to drop the file's clean pages from the page cache
    /// (`posix_fadvise(POSIX_FADV_DONTNEED)`), which needs no privilege. Pages a live memory
    /// mapping holds stay. Throws ``QuakeError/Kind/unsupported`` where the call does not exist,
    /// or the system error naming `path`.
    package static func dropFromPageCache(_ path: String) throws(QuakeError) {
        #if canImport(Glibc)
        let fd = try openForReading(path)
        defer { close(fd) }
        let code = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        guard code == 0 else { throw .system(path, code, call: "posix_fadvise") }
        #else
        throw .unsupported(pageCacheDropUnavailableReason ?? "posix_fadvise is not available")
        #endif
    }
}
