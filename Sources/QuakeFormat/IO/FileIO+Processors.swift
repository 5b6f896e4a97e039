#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

extension FileIO {
    /// The processors this process may run on: its CPU affinity (as `nproc` counts them), cut to
    /// the cgroup's CPU quota when one is set. Foundation's `activeProcessorCount` ignores the
    /// affinity and reads the quota through `URL`, whose first use scans every protocol
    /// conformance in the binary, about 0.3 ms of a one-shot query; this reads both through the
    /// I/O layer.
    package static func processorCount() -> Int {
        var count = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #if canImport(Darwin)
        // no affinity masks and no cgroups: every processor online
        #elseif canImport(Glibc)
        // the affinity mask as the kernel reports it (`sched_getaffinity` is not in Swift's Glibc)
        if let status = try? readToEnd("/proc/self/status", limit: 1 << 14), let allowed = allowedProcessors(status) {
            count = allowed
        }
        if let bytes = try? readToEnd("/sys/fs/cgroup/cpu.max", limit: 64), let quota = cgroupQuota(bytes) {
            count = min(count, quota)
        }
        #endif
        return max(1, count)
    }

    /// The processors the `Cpus_allowed:` line of `/proc/self/status` allows (a hex mask in
    /// comma-separated groups), or nil when there is no such line or it does not read as one.
    package static func allowedProcessors(_ status: [UInt8]) -> Int? {
        let key = Array("Cpus_allowed:".utf8)
        var position = 0
        // the line's start: the file's, or the byte after a newline
        while position + key.count <= status.count, !status[position..<(position + key.count)].elementsEqual(key) {
            guard let next = status[position...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            position = next + 1
        }
        guard position + key.count <= status.count else { return nil }
        position += key.count
        var bits = 0, digits = 0
        while position < status.count, status[position] != UInt8(ascii: "\n") {
            let byte = status[position]
            position += 1
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): bits += Int(byte - UInt8(ascii: "0")).nonzeroBitCount
            case UInt8(ascii: "a")...UInt8(ascii: "f"): bits += Int(byte - UInt8(ascii: "a") + 10).nonzeroBitCount
            case UInt8(ascii: "A")...UInt8(ascii: "F"): bits += Int(byte - UInt8(ascii: "A") + 10).nonzeroBitCount
            case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\t"): continue
            default: return nil
            }
            digits += 1
        }
        return digits > 0 && bits > 0 ? bits : nil
    }

    /// The whole processors a cgroup v2 `cpu.max` ("quota period", or "max period" for none)
    /// allows, rounded up; nil for no quota or text that does not read as one.
    package static func cgroupQuota(_ text: [UInt8]) -> Int? {
        var fields: [Int] = []
        var value = 0, digits = 0
        for b in text + [UInt8(ascii: " ")] {
            if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                guard digits < 15 else { return nil }
                value = value * 10 + Int(b - UInt8(ascii: "0"))
                digits += 1
            } else if b == UInt8(ascii: " ") || b == UInt8(ascii: "\n") {
                if digits > 0 { fields.append(value) }
                value = 0
                digits = 0
            } else {
                // "max": no quota
                return nil
            }
        }
        guard fields.count == 2, fields[0] > 0, fields[1] > 0 else { return nil }
        return (fields[0] + fields[1] - 1) / fields[1]
    }
}
