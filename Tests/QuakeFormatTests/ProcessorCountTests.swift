import Foundation
import Testing
@testable import QuakeFormat

/// The worker count comes from the I/O layer, not Foundation: it must agree with coreutils'
/// `nproc` (the affinity mask, through `sched_getaffinity`), and read a cgroup's CPU quota as the
/// kernel writes it.
struct ProcessorCountTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nproc"), "needs coreutils' nproc"))
    func processorsAgreeWithNproc() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/nproc")
        var env = ProcessInfo.processInfo.environment
        env["OMP_NUM_THREADS"] = nil
        env["OMP_THREAD_LIMIT"] = nil
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let nproc = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        // nproc does not read the cgroup quota; there is none on the machines the tests run on
        let quota = (try? FileIO.readToEnd("/sys/fs/cgroup/cpu.max", limit: 64)).flatMap(FileIO.cgroupQuota)
        #expect(FileIO.processorCount() == min(nproc, quota ?? nproc))
        #expect(FileIO.processorCount() >= 1)
    }

    @Test func affinityMasksCountTheirBits() {
        func count(_ s: String) -> Int? { FileIO.allowedProcessors(Array(s.utf8)) }
        #expect(count("Name:\tquakes\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n") == 2)
        #expect(count("Cpus_allowed:\tff,ffffffff\n") == 40)
        #expect(count("Cpus_allowed:\t00000000,00000001\n") == 1)
        #expect(count("Cpus_allowed:\tA5\n") == 4)
        // the list line alone, no line, an empty mask, a mask of no bits, text that is not hex
        for bad in ["Cpus_allowed_list:\t0-1\n", "Name:\tx\n", "Cpus_allowed:\t\n", "Cpus_allowed:\t0\n",
                    "Cpus_allowed:\tzz\n", "xCpus_allowed:\t3\n"] {
            #expect(count(bad) == nil, "\(bad)")
        }
    }

    @Test func cgroupQuotasReadAsWholeProcessors() {
        func quota(_ s: String) -> Int? { FileIO.cgroupQuota(Array(s.utf8)) }
        #expect(quota("max 100000\n") == nil)
        #expect(quota("100000 100000\n") == 1)
        #expect(quota("150000 100000\n") == 2)
        #expect(quota("200000 100000") == 2)
        #expect(quota("50000 100000\n") == 1)
        #expect(quota("800000 100000\n") == 8)
        for bad in ["", "\n", "100000", "0 100000", "100000 0", "1 2 3", "12a 100000", "99999999999999999 1"] {
            #expect(quota(bad) == nil, "\(bad)")
        }
    }
}
