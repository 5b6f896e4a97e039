import QuakeSupport

extension MallocPolicy {
    /// Below this resident size a load keeps the pages it freed between passes and partitions:
    /// a small commit would only fault them in again (a tenth of a one-event load's samples were
    /// page faults of its heap).
    package static let keepBelow = 256 << 20

    /// Returns the free pages to the kernel only once the process holds more than `limit`
    /// bytes: trimming after every partition costs page faults when the heap grows again, so a
    /// load trims only where its size calls for it.
    package static func releaseFree(ifResidentAbove limit: Int) {
        guard let resident = residentBytes(), resident > limit else { return }
        releaseFree()
    }

    /// The process's resident set in bytes (`/proc/self/statm`), nil where it cannot be read.
    package static func residentBytes() -> Int? {
        guard let text = try? FileIO.readToEnd("/proc/self/statm", limit: 4096) else { return nil }
        let fields = text.split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: 4096)
        return overflow ? nil : bytes
    }
}
