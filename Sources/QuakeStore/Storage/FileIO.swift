import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
@_silgen_name("syncfs") private func linuxSyncfs(_ fd: Int32) -> Int32
@_silgen_name("inotify_init1") private func linuxInotifyInit(_ flags: Int32) -> Int32
@_silgen_name("inotify_add_watch") private func linuxInotifyAddWatch(_ fd: Int32, _ path: UnsafePointer<CChar>,
                                                                     _ mask: UInt32) -> Int32
#endif

/// Durable file operations for commits: write + fsync, directory fsync, atomic rename.
enum FileIO {
    static func errorText() -> String { String(cString: strerror(errno)) }

    /// Flushes every dirty file of the filesystem holding `path` (Linux `syncfs`), so a
    /// commit pays one flush instead of one `fsync` per column file.
    static func syncFilesystem(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw .io("\(path): \(errorText())") }
        defer { close(fd) }
        #if os(Linux)
        guard linuxSyncfs(fd) == 0 else { throw .io("\(path): syncfs: \(errorText())") }
        #else
        guard fsync(fd) == 0 else { throw .io("\(path): fsync: \(errorText())") }
        #endif
    }

    /// Writes a file without flushing it; a later ``syncFilesystem(_:)`` makes it durable.
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(StoreError) {
        try write(path, bytes, sync: false)
    }

    /// Writes a file and fsyncs it.
    static func writeDurably(_ path: String, _ bytes: [UInt8]) throws(StoreError) {
        try write(path, bytes, sync: true)
    }

    private static func write(_ path: String, _ bytes: [UInt8], sync: Bool) throws(StoreError) {
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o644)
        guard fd >= 0 else { throw .io("\(path): \(errorText())") }
        defer { close(fd) }
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { b -> Int in
                // SAFETY: off < b.count, so the source range stays inside bytes.
                guard let base = b.baseAddress else { return 0 }
                return Glibc.write(fd, base + off, b.count - off)
            }
            if n < 0 { if errno == EINTR { continue }; throw .io("\(path): \(errorText())") }
            if n == 0 { throw .io("\(path): the device accepts no more bytes") }
            off += n
        }
        if sync { guard fsync(fd) == 0 else { throw .io("\(path): fsync: \(errorText())") } }
    }

    /// Writes all of `bytes` at `offset`, retrying short writes; a full disk is an error naming `path`.
    static func pwriteAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(StoreError) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { b -> Int in
                // SAFETY: off < b.count, so the source range stays inside bytes.
                guard let base = b.baseAddress else { return 0 }
                return pwrite(fd, base + off, b.count - off, off_t(offset + off))
            }
            if n < 0 { if errno == EINTR { continue }; throw .io("\(path): \(errorText())") }
            if n == 0 { throw .io("\(path): the device accepts no more bytes") }
            off += n
        }
    }

    /// Reads exactly `count` bytes at `offset`; a short read is an error naming `path`.
    static func preadExactly(_ fd: Int32, count: Int, at offset: Int, path: String) throws(StoreError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { b -> Int in
                // SAFETY: got < b.count, so the destination range stays inside out.
                guard let base = b.baseAddress else { return 0 }
                return pread(fd, base + got, b.count - got, off_t(offset + got))
            }
            if n < 0 { if errno == EINTR { continue }; throw .io("\(path): \(errorText())") }
            if n == 0 { throw .io("\(path): ends after \(offset + got) bytes, expected \(offset + count)") }
            got += n
        }
        return out
    }

    static func fsyncDirectory(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw .io("\(path): \(errorText())") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io("\(path): fsync: \(errorText())") }
    }

    /// Creates a directory and any missing parents.
    static func makeDirectory(_ path: String) throws(StoreError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        if errno == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != path {
                try makeDirectory(parent)
                if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
            }
        }
        throw .io("\(path): \(errorText())")
    }

    static func rename(_ from: String, _ to: String) throws(StoreError) {
        guard Glibc.rename(from, to) == 0 else { throw .io("rename \(from) -> \(to): \(errorText())") }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Names in a directory (not `.` or `..`); empty when it does not exist.
    static func list(_ path: String) -> [String] {
        guard let d = opendir(path) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    /// Size of a file in bytes; 0 when it cannot be read.
    static func size(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// What identifies one version of a file: inode, size and modification time (ns); nil
    /// when it cannot be read. A rename over the file changes the inode.
    static func identity(_ path: String) -> [Int64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [Int64(truncatingIfNeeded: st.st_ino), Int64(st.st_size), Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec)]
    }

    /// A descriptor that becomes readable when an entry of `directory` is created, written
    /// or renamed into it (Linux inotify); nil where inotify is unavailable.
    static func watchDirectory(_ directory: String) -> Int32? {
        #if os(Linux)
        let fd = linuxInotifyInit(Int32(O_NONBLOCK | O_CLOEXEC))
        guard fd >= 0 else { return nil }
        let inCloseWrite: UInt32 = 0x08, inMovedTo: UInt32 = 0x80, inCreate: UInt32 = 0x100
        guard linuxInotifyAddWatch(fd, directory, inCloseWrite | inMovedTo | inCreate) >= 0 else {
            close(fd)
            return nil
        }
        return fd
        #else
        return nil
        #endif
    }

    /// Waits up to `milliseconds` for `fd` to become readable, then drains what it holds.
    /// Returns true when something arrived.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, milliseconds) > 0 else { return false }
        var buf = [UInt8](repeating: 0, count: 4096)
        while buf.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
        return true
    }

    /// Last modification time in epoch milliseconds, rounded up; nil when it cannot be read.
    static func modifiedMillis(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_mtim.tv_sec) * 1000 + (Int64(st.st_mtim.tv_nsec) + 999_999) / 1_000_000
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes a file or a directory tree.
    /// A new file at `path` for writing (truncated), as a descriptor.
    static func create(_ path: String) throws(StoreError) -> Int32 {
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io("\(path): \(errorText())") }
        return fd
    }

    /// Flushes `fd` to the device and closes it.
    static func syncAndClose(_ fd: Int32, path: String) throws(StoreError) {
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io("\(path): \(errorText())") }
    }

    static func closeQuietly(_ fd: Int32) { close(fd) }

    static func remove(_ path: String) {
        if isDirectory(path) {
            for n in list(path) { remove(path + "/" + n) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
