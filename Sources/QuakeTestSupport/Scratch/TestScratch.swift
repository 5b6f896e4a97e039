import Foundation

/// The scratch folder of one test process: `quakes-test-run-PID` under the system's temporary
/// directory, removed with everything in it when the process exits, so repeated test runs
/// (and CI on a shared machine) do not fill the disk. The first use also removes the folders
/// of earlier runs whose process is gone (killed, or unable to remove all at exit).
package enum TestScratch {
    private static let prefix = "quakes-test-run-"

    package static let root: String = {
        let base = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(),
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            remove(base + name)
        }
        let path = base + prefix + "\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { TestScratch.remove(TestScratch.root) }
        return path
    }()

    /// A new folder under ``root`` whose name starts with `tag`.
    package static func folder(_ tag: String) -> String {
        let path = root + "/\(tag)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Removes `path` and all below it, going on past what cannot be removed; file systems a
    /// test mounted below it (a small tmpfs) are detached first.
    private static func remove(_ path: String) {
        unmount(under: path)
        let fm = FileManager.default
        if (try? fm.removeItem(atPath: path)) != nil { return }
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
              let names = try? fm.contentsOfDirectory(atPath: path) else { return }
        for n in names { remove(path + "/" + n) }
        try? fm.removeItem(atPath: path)
    }

    private static func unmount(under path: String) {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 1, fields[1].hasPrefix(path + "/") else { continue }
            _ = umount2(String(fields[1]), 2 /* MNT_DETACH */)
        }
        #endif
    }
}
