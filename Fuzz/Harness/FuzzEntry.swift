// libFuzzer entry points for quakes' parsers and decoders. Build and run with `make fuzz`
// (see Fuzz/README.md). One binary holds every harness; QUAKES_FUZZ_TARGET picks one, and
// QUAKES_FUZZ_SEEDS=DIR writes that harness's generated seeds to DIR instead of fuzzing.
@testable import QuakeStore
@testable import QuakeFormat
@testable import QuakeTestSupport
import Foundation

nonisolated(unsafe) var selected: (any FuzzHarness.Type)?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    let env = ProcessInfo.processInfo.environment
    let name = env["QUAKES_FUZZ_TARGET"] ?? ""
    guard let h = fuzzHarnesses.first(where: { $0.name == name }) else {
        let names = fuzzHarnesses.map { $0.name }.joined(separator: ", ")
        FileHandle.standardError.write(Data("set QUAKES_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    selected = h
    if let dir = env["QUAKES_FUZZ_SEEDS"] {
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (i, s) in h.seeds().enumerated() {
            FileManager.default.createFile(atPath: "\(dir)/gen-\(i)", contents: Data(s))
        }
        exit(0)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let h = selected else { return 0 }
    // SAFETY: libFuzzer hands `size` readable bytes at `data` for the duration of the call.
    h.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// SwiftPM links an executable target's entry point as `<target>_main`; hand it to libFuzzer.
@_cdecl("quakes_fuzz_main")
public func quakesFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v, { data, size in fuzzTestOneInput(data, size) })
}
