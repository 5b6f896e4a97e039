#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ThreadSanitizer's annotation hooks, found at run time: nil unless the process runs under
/// `--sanitize=thread`, whose runtime exports them.
///
/// Synchronization's `Mutex` takes its lock inside the standard library, which is not
/// instrumented, so on Linux ThreadSanitizer cannot see it and reports every pair of critical
/// sections as a race (two threads appending to an array under one `Mutex` give a report).
/// ``Mutex/locked(_:)`` tells it about each acquire and release through these hooks.
package enum RaceDetector {
    package typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void

    /// `__tsan_acquire`: what the last release of the same address published is seen now.
    package static let acquire: Hook? = lookup("__tsan_acquire")
    /// `__tsan_release`: what this thread wrote so far is published at the address.
    package static let release: Hook? = lookup("__tsan_release")

    private static func lookup(_ name: String) -> Hook? {
        #if canImport(Darwin)
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(everywhere, name) else { return nil }
        // SAFETY: both symbols are ThreadSanitizer's `void f(void *addr)`, which this C function
        // type matches; a process without the runtime finds neither and gets nil.
        return unsafeBitCast(symbol, to: Hook.self)
    }
}
