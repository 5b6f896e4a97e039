#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import QuakeFormat

/// Where a command's `--out` goes, opened the way coreutils treat an output path. Every command
/// that writes a user-named path opens it here, so none of them destroys what the path names:
/// - `-` is standard output;
/// - `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` are that descriptor, used as it is
///   (a shell's `> file`, `>> file` or pipe keeps its meaning);
/// - a symlink is followed, and its target is written as below (a dangling one creates its target);
/// - a FIFO, a character or block device or a socket is opened and written in place, never
///   replaced, and its write errors are reported (`/dev/full` is "No space left on device");
/// - a regular file, or a new path, is written under a temporary name beside it and renamed into
///   place by ``commit(sync:)`` (keeping an existing file's permission bits), so a failed or
///   interrupted write leaves the old file, or nothing, under the name;
/// - a directory is an error.
///
/// Writes are sequential (``write(_:)``): FIFOs and pipes take nothing else.
package final class OutputTarget {
    /// How the path is written.
    package enum Mode: Sendable, Equatable {
        /// Standard output, or another descriptor the process already holds.
        case descriptor
        /// Opened and written in place: a FIFO, device or socket.
        case inPlace
        /// Written to ``OutputTarget/temporaryPath`` and renamed to ``OutputTarget/finalPath``.
        case replaced
    }

    /// The path as given, which errors name (`stdout` for `-`).
    package let path: String
    package let mode: Mode
    /// The file that receives the output once committed: the symlink's target when `path` is one.
    package let finalPath: String
    /// Where a ``Mode/replaced`` target is written until ``commit(sync:)``.
    package let temporaryPath: String?
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var open = true
    /// Bytes written so far.
    package private(set) var written = 0

    /// Opens `path` for writing as the type describes.
    /// - Throws: `.io` naming `path`: a directory, a symlink loop, or what `open(2)` refuses.
    package init(_ path: String) throws(QuakeError) {
        if let inherited = Self.inheritedDescriptor(path) {
            self.path = path == "-" ? "stdout" : path
            mode = .descriptor
            finalPath = self.path
            temporaryPath = nil
            fd = inherited
            ownsDescriptor = false
            return
        }
        self.path = path
        let target = try Self.followLinks(path)
        var st = stat()
        if stat(target, &st) == 0 {
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR { throw .system(path, EISDIR) }
            if type != S_IFREG {
                fd = try FileIO.open(target, O_WRONLY | O_NOCTTY)
                mode = .inPlace
                finalPath = target
                temporaryPath = nil
                ownsDescriptor = true
                return
            }
        }
        let existingMode: mode_t? = stat(target, &st) == 0 ? st.st_mode & 0o7777 : nil
        let slash = target.lastIndex(of: "/")
        let dir = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let tmp = dir + "." + name + ".tmp-\(FileIO.processID)"
        do {
            fd = try FileIO.open(tmp, O_CREAT | O_TRUNC | O_WRONLY)
        } catch {
            // the error names the path given, not the temporary name beside it
            throw .system(path, error.errno ?? EIO)
        }
        if let existingMode { _ = fchmod(fd, existingMode) }
        mode = .replaced
        finalPath = target
        temporaryPath = tmp
        ownsDescriptor = true
    }

    deinit { abandon() }

    /// Appends `bytes`; a failed write (a full disk, a closed pipe) is an error naming ``path``.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(QuakeError) {
        try FileIO.writeAll(fd, bytes, path: path)
        written += bytes.count
    }

    /// Appends `bytes`.
    package func write(_ bytes: [UInt8]) throws(QuakeError) {
        // SAFETY: withStoreBytes lends the array's bytes for the call only; write(_:) does not keep them.
        try bytes.withStoreBytes { (b) throws(QuakeError) in try write(b) }
    }

    /// Ends the output. A replaced file is flushed to the device (with `sync`), closed and renamed
    /// into place; with `rename: false` it stays under ``temporaryPath`` for the caller to rename
    /// (an export that publishes many files at once). On a failure the temporary file is removed.
    package func commit(sync: Bool = true, rename: Bool = true) throws(QuakeError) {
        guard open else { return }
        open = false
        guard let temporaryPath else {
            if ownsDescriptor { FileIO.close(fd) }
            return
        }
        do throws(QuakeError) {
            if sync { try FileIO.fsync(fd, path: path) }
            FileIO.close(fd)
            if rename { try FileIO.rename(temporaryPath, finalPath) }
        } catch {
            FileIO.remove(temporaryPath)
            throw error
        }
    }

    /// Gives up: closes the output and removes a temporary file, so nothing new appears under the
    /// name. What was already written to a FIFO or device stays written.
    package func abandon() {
        guard open else { return }
        open = false
        if ownsDescriptor { FileIO.close(fd) }
        if let temporaryPath { FileIO.remove(temporaryPath) }
    }

    /// The descriptor a path names directly: `-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
    /// `/proc/self/fd/N`; nil for any other path, or a descriptor the process does not hold.
    static func inheritedDescriptor(_ path: String) -> Int32? {
        let descriptor: Int32?
        switch path {
        case "-", "/dev/stdout": descriptor = 1
        case "/dev/stderr": descriptor = 2
        default:
            let prefixes = ["/dev/fd/", "/proc/self/fd/", "/proc/\(FileIO.processID)/fd/"]
            descriptor = prefixes.first(where: path.hasPrefix).flatMap { Int32(path.dropFirst($0.count)) }
        }
        guard let descriptor, descriptor >= 0, fcntl(descriptor, F_GETFD) >= 0 else { return nil }
        return descriptor
    }

    /// The path a chain of symlinks ends at (itself when it is none), whether or not that exists.
    static func followLinks(_ path: String) throws(QuakeError) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            // SAFETY: readlink writes at most buf.count - 1 bytes into buf, and `length` counts those it wrote.
            let length = readlink(current, &buf, buf.count - 1)
            guard length >= 0 else { throw .system(current, errno) }
            let link = String(decoding: buf[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("/") {
                current = link
            } else {
                let dir = current.lastIndex(of: "/").map { String(current[...$0]) } ?? ""
                current = dir + link
            }
        }
        throw QuakeError(.io, path: path, errno: ELOOP, detail: "too many levels of symbolic links")
    }
}
