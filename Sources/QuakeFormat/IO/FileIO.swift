import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

#if canImport(Glibc)
@_silgen_name("inotify_init1") private func linuxInotifyInit(_ flags: Int32) -> Int32
@_silgen_name("inotify_add_watch") private func linuxInotifyAddWatch(_ fd: Int32, _ path: UnsafePointer<CChar>,
                                                                     _ mask: UInt32) -> Int32
#endif

/// The one I/O layer: every system call the package makes on files goes through here (the
/// CLI's terminal questions too). Each call that can be interrupted is retried on `EINTR` by
/// ``retrying(_:)``; each failure is a ``QuakeError`` of kind `.io` carrying the path and `errno`.
/// The calls that create, write, flush, rename, truncate or remove files are made by
/// ``SystemCall``, where a test can plan faults for them (``Faults``).
package enum FileIO {
    /// Runs `call` until it does not fail with `EINTR`; returns its result (negative on failure,
    /// with `errno` set).
    @inline(__always)
    package static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Opens `path` with `flags` (and `mode` when creating); the descriptor is close-on-exec.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(QuakeError) -> Int32 {
        let fd = retrying { SystemCall.open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw .system(path, errno) }
        return fd
    }

    /// Opens `path` for reading, or nil with the errno when it cannot be opened.
    package static func openForReading(_ path: String) throws(QuakeError) -> Int32 { try open(path, O_RDONLY) }

    /// Closes a descriptor; a failure to close a descriptor only read from loses nothing.
    package static func close(_ fd: Int32) { _ = SystemCall.close(fd) }

    /// Reads up to `count` bytes into `base` (at `offset` when given); 0 at the end; an error names `path`.
    package static func read(_ fd: Int32, into base: UnsafeMutableRawPointer, count: Int, at offset: Int? = nil,
                             path: String) throws(QuakeError) -> Int {
        let got = retrying { SystemCall.read(fd, base, count, at: offset) }
        guard got >= 0 else { throw .system(path, errno) }
        return got
    }

    /// Writes all of `bytes` to `fd` (at `offset` when given), retrying short writes. A failed
    /// write, or a device that takes no more bytes, is an error naming `path` (`stdout` for 1).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int? = nil,
                                 path: String) throws(QuakeError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            // SAFETY: done < bytes.count, so [base + done, base + bytes.count) lies inside bytes.
            let written = retrying { SystemCall.write(fd, base + done, bytes.count - done,
                                                      at: offset.map { $0 + done }, path: path) }
            if written < 0 { throw .system(path, errno) }
            if written == 0 { throw .system(path, ENOSPC) }
            done += written
        }
    }

    /// Flushes `fd` to the device.
    package static func fsync(_ fd: Int32, path: String) throws(QuakeError) {
        guard retrying({ SystemCall.fsync(fd, path: path) }) == 0 else { throw .system(path, errno, call: "fsync") }
    }

    /// Cuts the file behind `fd` to `size` bytes.
    package static func truncate(_ fd: Int32, to size: Int, path: String) throws(QuakeError) {
        guard retrying({ SystemCall.truncate(fd, to: size, path: path) }) == 0 else {
            throw .system(path, errno, call: "ftruncate")
        }
    }

    /// Takes an exclusive `flock` without waiting: false when another process holds it.
    package static func tryLockExclusive(_ fd: Int32, path: String) throws(QuakeError) -> Bool {
        if retrying({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw .system(path, errno, call: "flock")
    }

    /// Releases a `flock` (closing the descriptor releases it too).
    package static func unlock(_ fd: Int32) { _ = flock(fd, LOCK_UN) }

    /// The size of the open file behind `fd`.
    package static func size(of fd: Int32, path: String) throws(QuakeError) -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .system(path, errno, call: "fstat") }
        return Int(st.st_size)
    }

    /// The inode of the open file behind `fd`, or nil when it cannot be read.
    package static func inode(of fd: Int32) -> Int64? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return Int64(truncatingIfNeeded: st.st_ino)
    }

    /// Maps `count` bytes of `fd` read-only.
    package static func mapReadOnly(_ fd: Int32, count: Int,
                                    path: String) throws(QuakeError) -> UnsafeRawBufferPointer {
        guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .system(path, errno, call: "mmap")
        }
        // SAFETY: mmap mapped `count` readable bytes at `mapped`; they stay mapped until unmap(_:) is called.
        return UnsafeRawBufferPointer(start: mapped, count: count)
    }

    /// Unmaps what ``mapReadOnly(_:count:path:)`` mapped.
    package static func unmap(_ bytes: UnsafeRawBufferPointer) {
        // SAFETY: bytes came from mmap with this exact length and is unmapped once, by its owner.
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }

    /// The process id, for the lock file.
    package static var processID: Int32 { getpid() }

    /// True when `fd` is a terminal.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Columns of the terminal on `fd`, or nil when it is not a terminal.
    package static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Flushes every dirty file of the filesystem holding `path` (`syncfs` on Linux,
    /// `sync_volume_np` on Darwin), so a commit pays one flush instead of one `fsync` per file.
    package static func syncFilesystem(_ path: String) throws(QuakeError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        guard retrying({ SystemCall.syncFilesystem(fd, path: path) }) == 0 else {
            #if canImport(Darwin)
            throw .system(path, errno, call: "sync_volume_np")
            #else
            throw .system(path, errno, call: "syncfs")
            #endif
        }
    }

    /// Writes a file without flushing it; a later ``syncFilesystem(_:)`` makes it durable.
    package static func writeFile(_ path: String, _ bytes: [UInt8]) throws(QuakeError) {
        try write(path, bytes, sync: false)
    }

    /// Writes a file and fsyncs it.
    package static func writeDurably(_ path: String, _ bytes: [UInt8]) throws(QuakeError) {
        try write(path, bytes, sync: true)
    }

    /// Writes the whole file; one that cannot be written whole (a full disk, a failed flush) is
    /// removed, so that no partial file is left under its name.
    private static func write(_ path: String, _ bytes: [UInt8], sync: Bool) throws(QuakeError) {
        let fd = try open(path, O_CREAT | O_TRUNC | O_WRONLY)
        do throws(QuakeError) {
            // SAFETY: withStoreBytes lends the array's bytes for the call only; writeAll does not keep them.
            try bytes.withStoreBytes { (b) throws(QuakeError) in try writeAll(fd, b, path: path) }
            if sync { try fsync(fd, path: path) }
        } catch {
            close(fd)
            _ = SystemCall.unlink(path)
            throw error
        }
        close(fd)
    }

    /// The whole file at `path`, refusing one larger than `limit` bytes.
    package static func readFile(_ path: String, limit: Int = 1 << 28) throws(QuakeError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        let fileSize = try size(of: fd, path: path)
        guard fileSize <= limit else { throw QuakeError(.format, path: path, detail: "larger than \(limit) bytes") }
        return try preadExactly(fd, count: fileSize, at: 0, path: path)
    }

    /// The bytes of `path` read to its end, at most `limit`: for files whose size `fstat` does
    /// not report (`/proc` gives 0), which ``readFile(_:limit:)`` would read as empty.
    package static func readToEnd(_ path: String, limit: Int) throws(QuakeError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        var out = [UInt8](repeating: 0, count: limit)
        let got = try fill(fd, &out, at: nil, path: path)
        out.removeLast(limit - got)
        return out
    }

    /// Writes all of `bytes` at `offset`, retrying short writes; a full disk is an error naming `path`.
    package static func pwriteAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(QuakeError) {
        // SAFETY: withStoreBytes lends the array's bytes for the call only; writeAll does not keep them.
        try bytes.withStoreBytes { (b) throws(QuakeError) in try writeAll(fd, b, at: offset, path: path) }
    }

    /// Reads exactly `count` bytes at `offset`; a short read is an error naming `path`.
    package static func preadExactly(_ fd: Int32, count: Int, at offset: Int,
                                     path: String) throws(QuakeError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let got = try fill(fd, &out, at: offset, path: path)
        if got < count { throw .io(path, "ends after \(offset + got) bytes, expected \(offset + count)") }
        return out
    }

    /// Reads into all of `out` (from `offset`, or the descriptor's position when nil) until it is
    /// full or the file ends; returns the bytes read.
    private static func fill(_ fd: Int32, _ out: inout [UInt8], at offset: Int?,
                             path: String) throws(QuakeError) -> Int {
        var got = 0
        while got < out.count {
            let result = out.withUnsafeMutableBytes { b -> Result<Int, QuakeError> in
                // SAFETY: got < b.count, so the destination range stays inside out.
                guard let base = b.baseAddress else { return .success(0) }
                return Result { () throws(QuakeError) in
                    try read(fd, into: base + got, count: b.count - got, at: offset.map { $0 + got }, path: path)
                }
            }
            let chunk = try result.get()
            if chunk == 0 { break }
            got += chunk
        }
        return got
    }

    /// Flushes the file at `path` to disk (`fsync`).
    package static func fsyncFile(_ path: String) throws(QuakeError) {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        try fsync(fd, path: path)
    }

    package static func fsyncDirectory(_ path: String) throws(QuakeError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: path)
    }

    /// Creates a directory and any missing parents.
    package static func makeDirectory(_ path: String) throws(QuakeError) {
        if SystemCall.mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        if errno == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != path {
                try makeDirectory(parent)
                if SystemCall.mkdir(path, 0o755) == 0 || errno == EEXIST { return }
            }
        }
        throw .system(path, errno)
    }

    /// Renames `from` to `to`, replacing what `to` names; an error names `to`, and `from` in its detail.
    package static func rename(_ from: String, _ to: String) throws(QuakeError) {
        guard SystemCall.rename(from, to) == 0 else {
            throw QuakeError(.io, path: to, errno: errno, detail: "rename from \(from)")
        }
    }

    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Names in a directory (not `.` or `..`); empty when it does not exist.
    package static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            // SAFETY: d_name is a NUL-terminated array inside the entry, read before the next readdir.
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out.sorted()
    }

    /// Size of a file in bytes; 0 when it cannot be read.
    package static func size(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// What identifies one version of a file: inode, size and modification time (ns); nil
    /// when it cannot be read. A rename over the file changes the inode.
    package static func identity(_ path: String) -> [Int64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let modified = st.modified
        return [Int64(truncatingIfNeeded: st.st_ino), Int64(st.st_size), Int64(modified.tv_sec),
                Int64(modified.tv_nsec)]
    }

    /// A descriptor that becomes readable when an entry of `directory` is created, written
    /// or renamed into it (Linux inotify); nil where inotify is unavailable (Darwin: callers poll).
    package static func watchDirectory(_ directory: String) -> Int32? {
        #if canImport(Glibc)
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
    package static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, milliseconds) > 0 else { return false }
        var buf = [UInt8](repeating: 0, count: 4096)
        // SAFETY: each read fills at most the buffer's own 4096 bytes.
        while buf.withUnsafeMutableBytes({ SystemCall.read(fd, $0.baseAddress, $0.count, at: nil) }) > 0 {}
        return true
    }

    /// Sleeps the calling thread (a writer waiting for another of its process).
    package static func sleep(milliseconds: Int) {
        var delay = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var left = timespec()
        while nanosleep(&delay, &left) != 0 && errno == EINTR { delay = left }
    }

    /// Last modification time in epoch milliseconds, rounded up; nil when it cannot be read.
    package static func modifiedMillis(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let modified = st.modified
        return Int64(modified.tv_sec) * 1000 + (Int64(modified.tv_nsec) + 999_999) / 1_000_000
    }

    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// A new file at `path` for writing (truncated), as a descriptor.
    package static func create(_ path: String) throws(QuakeError) -> Int32 {
        try open(path, O_CREAT | O_TRUNC | O_WRONLY)
    }

    /// Flushes `fd` to the device and closes it.
    package static func syncAndClose(_ fd: Int32, path: String) throws(QuakeError) {
        defer { close(fd) }
        try fsync(fd, path: path)
    }

    package static func closeQuietly(_ fd: Int32) { close(fd) }

    /// Removes a file or a directory tree; what cannot be removed stays (a later collection retries).
    package static func remove(_ path: String) {
        if isDirectory(path) {
            for n in list(path) { remove(path + "/" + n) }
            _ = SystemCall.rmdir(path)
        } else {
            _ = SystemCall.unlink(path)
        }
    }
}
