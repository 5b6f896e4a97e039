#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

// The C calls whose names the members of ``FileIO`` and ``SystemCall`` shadow, spelled once per
// platform module.
@inline(__always) private func cOpen(_ p: String, _ f: Int32, _ m: mode_t) -> Int32 {
    #if canImport(Darwin)
    Darwin.open(p, f, m)
    #elseif canImport(Glibc)
    Glibc.open(p, f, m)
    #endif
}
@inline(__always) private func cClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    Darwin.close(fd)
    #elseif canImport(Glibc)
    Glibc.close(fd)
    #endif
}
// SAFETY: the five wrappers below only pass a caller's pointer and count to the C library; the callers
// (FileIO's read and write loops) hand in a buffer they own of at least `n` bytes, alive for the call.
@inline(__always) private func cRead(_ fd: Int32, _ b: UnsafeMutableRawPointer?, _ n: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(fd, b, n)
    #elseif canImport(Glibc)
    Glibc.read(fd, b, n)
    #endif
}
@inline(__always) private func cPread(_ fd: Int32, _ b: UnsafeMutableRawPointer?, _ n: Int, _ at: off_t) -> Int {
    #if canImport(Darwin)
    Darwin.pread(fd, b, n, at)
    #elseif canImport(Glibc)
    Glibc.pread(fd, b, n, at)
    #endif
}
@inline(__always) private func cWrite(_ fd: Int32, _ b: UnsafeRawPointer?, _ n: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(fd, b, n)
    #elseif canImport(Glibc)
    Glibc.write(fd, b, n)
    #endif
}
@inline(__always) private func cPwrite(_ fd: Int32, _ b: UnsafeRawPointer?, _ n: Int, _ at: off_t) -> Int {
    #if canImport(Darwin)
    Darwin.pwrite(fd, b, n, at)
    #elseif canImport(Glibc)
    Glibc.pwrite(fd, b, n, at)
    #endif
}
@inline(__always) private func cFsync(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    // fsync(2) on Darwin leaves the data in the drive's cache; F_FULLFSYNC flushes that too.
    // A file system that does not take it (some network ones) still gets the fsync.
    if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
    return Darwin.fsync(fd)
    #elseif canImport(Glibc)
    Glibc.fsync(fd)
    #endif
}
@inline(__always) private func cRename(_ a: String, _ b: String) -> Int32 {
    #if canImport(Darwin)
    Darwin.rename(a, b)
    #elseif canImport(Glibc)
    Glibc.rename(a, b)
    #endif
}
@inline(__always) private func cFtruncate(_ fd: Int32, _ size: off_t) -> Int32 {
    #if canImport(Darwin)
    Darwin.ftruncate(fd, size)
    #elseif canImport(Glibc)
    Glibc.ftruncate(fd, size)
    #endif
}
@inline(__always) private func cMkdir(_ p: String, _ m: mode_t) -> Int32 {
    #if canImport(Darwin)
    Darwin.mkdir(p, m)
    #elseif canImport(Glibc)
    Glibc.mkdir(p, m)
    #endif
}
@inline(__always) private func cUnlink(_ p: String) -> Int32 {
    #if canImport(Darwin)
    Darwin.unlink(p)
    #elseif canImport(Glibc)
    Glibc.unlink(p)
    #endif
}
@inline(__always) private func cRmdir(_ p: String) -> Int32 {
    #if canImport(Darwin)
    Darwin.rmdir(p)
    #elseif canImport(Glibc)
    Glibc.rmdir(p)
    #endif
}

// Calls one platform's C module does not declare.
#if canImport(Darwin)
// <unistd.h>, macOS 10.8 and later: flushes every dirty file of the volume holding the path.
@_silgen_name("sync_volume_np") private func darwinSyncVolume(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32
private let syncVolumeFullSync: Int32 = 0x01   // SYNC_VOLUME_FULLSYNC: the drive's cache too
private let syncVolumeWait: Int32 = 0x02       // SYNC_VOLUME_WAIT: return once it is done
#elseif canImport(Glibc)
// <unistd.h> with _GNU_SOURCE, which Swift's Glibc module does not define.
@_silgen_name("syncfs") private func linuxSyncfs(_ fd: Int32) -> Int32
#endif

/// The system calls of the I/O layer, in one place: every call that creates, changes or removes
/// a file (and the reads and closes whose C names ``FileIO`` shadows). ``FileIO`` and the other
/// files of this folder reach the C library for these only through here.
///
/// Each returns what the C call returns (-1 with `errno` set when it fails), so callers wrap it in
/// ``FileIO/retrying(_:)`` and read `errno` as before. The calls that change files first ask
/// ``FileIO/Faults`` whether a test planned a fault for them: one relaxed atomic load when none did.
enum SystemCall {
    /// Sets `errno` to `code` and returns -1: a planned failure, as the C call reports one.
    @inline(__always)
    private static func failing<T: BinaryInteger>(_ code: Int32) -> T {
        errno = code
        return -1
    }

    /// `open(2)`. Only an open for writing (`O_WRONLY`, `O_RDWR`, `O_CREAT` or `O_TRUNC`) can be
    /// planned to fail.
    @inline(__always)
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        if flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC) != 0,
           case .fail(let code)? = FileIO.Faults.planned(.open, path) {
            return failing(code)
        }
        return cOpen(path, flags, mode)
    }

    @inline(__always)
    static func close(_ fd: Int32) -> Int32 { cClose(fd) }

    /// `read(2)`, or `pread(2)` at `offset`.
    @inline(__always)
    static func read(_ fd: Int32, _ base: UnsafeMutableRawPointer?, _ count: Int, at offset: Int?) -> Int {
        if let offset { return cPread(fd, base, count, off_t(offset)) }
        return cRead(fd, base, count)
    }

    /// `write(2)`, or `pwrite(2)` at `offset`, of `count` bytes at `base`; `path` names the file
    /// for the fault plan. A planned short write writes fewer bytes than asked and returns how
    /// many it wrote, as a device that takes only part of a write does.
    @inline(__always)
    static func write(_ fd: Int32, _ base: UnsafeRawPointer?, _ count: Int, at offset: Int?, path: String) -> Int {
        var count = count
        if let planned = FileIO.Faults.planned(offset == nil ? .write : .pwrite, path, asking: count) {
            switch planned {
            case .fail(let code): return failing(code)
            case .write(let length):
                if length == 0 { return 0 }
                count = length
            }
        }
        if let offset { return cPwrite(fd, base, count, off_t(offset)) }
        return cWrite(fd, base, count)
    }

    /// `fsync(2)` (with `F_FULLFSYNC` first on Darwin).
    @inline(__always)
    static func fsync(_ fd: Int32, path: String) -> Int32 {
        if case .fail(let code)? = FileIO.Faults.planned(.fsync, path) { return failing(code) }
        return cFsync(fd)
    }

    /// Flushes every dirty file of the file system holding `path`, open as `fd`: `syncfs(2)` on
    /// Linux, `sync_volume_np` on Darwin. A fault plan sees it as an `fsync` of `path`.
    static func syncFilesystem(_ fd: Int32, path: String) -> Int32 {
        if case .fail(let code)? = FileIO.Faults.planned(.fsync, path) { return failing(code) }
        #if canImport(Darwin)
        // returns 0, or an errno (or -1 with errno set)
        let result = darwinSyncVolume(path, syncVolumeFullSync | syncVolumeWait)
        if result == 0 { return 0 }
        if result > 0 { errno = result }
        return -1
        #elseif canImport(Glibc)
        return linuxSyncfs(fd)
        #endif
    }

    /// `rename(2)`; the fault plan matches either path and records `to`.
    @inline(__always)
    static func rename(_ from: String, _ to: String) -> Int32 {
        if case .fail(let code)? = FileIO.Faults.planned(.rename, to, or: from) { return failing(code) }
        return cRename(from, to)
    }

    /// `ftruncate(2)`.
    @inline(__always)
    static func truncate(_ fd: Int32, to size: Int, path: String) -> Int32 {
        if case .fail(let code)? = FileIO.Faults.planned(.truncate, path) { return failing(code) }
        return cFtruncate(fd, off_t(size))
    }

    /// `mkdir(2)`.
    @inline(__always)
    static func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
        if case .fail(let code)? = FileIO.Faults.planned(.mkdir, path) { return failing(code) }
        return cMkdir(path, mode)
    }

    /// `unlink(2)`.
    @inline(__always)
    static func unlink(_ path: String) -> Int32 {
        if case .fail(let code)? = FileIO.Faults.planned(.unlink, path) { return failing(code) }
        return cUnlink(path)
    }

    /// `rmdir(2)`; a fault plan sees it as an `unlink`.
    @inline(__always)
    static func rmdir(_ path: String) -> Int32 {
        if case .fail(let code)? = FileIO.Faults.planned(.unlink, path) { return failing(code) }
        return cRmdir(path)
    }
}

extension stat {
    /// The last modification time: `st_mtim` in Glibc, `st_mtimespec` in Darwin.
    var modified: timespec {
        #if canImport(Darwin)
        st_mtimespec
        #elseif canImport(Glibc)
        st_mtim
        #endif
    }
}
