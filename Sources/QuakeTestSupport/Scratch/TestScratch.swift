import Foundation

/// The scratch folder of one test process: `quakes-test-run-PID` under the system's temporary
/// directory, removed with everything in it when the process exits, so repeated test runs
/// (and CI on a shared machine) do not fill the disk.
package enum TestScratch {
    package static let root: String = {
        let p = NSTemporaryDirectory() + "quakes-test-run-\(getpid())"
        try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestScratch.root) }
        return p
    }()

    /// A new folder under ``root`` whose name starts with `tag`.
    package static func folder(_ tag: String) -> String {
        let p = root + "/\(tag)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }
}
