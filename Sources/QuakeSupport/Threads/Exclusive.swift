import Synchronization

/// A value that is not Sendable (a reader, its decompressor) used by one thread at a time and
/// handed from thread to thread: it lives in a `Mutex`, so whichever thread has it now reaches
/// it only inside ``locked(_:)``, and the compiler checks that nothing of it leaks out.
package final class Exclusive<Value>: Sendable {
    private let value: Mutex<Value>

    package init(_ value: sending Value) { self.value = Mutex(value) }

    package func locked<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result)
        throws(E) -> sending Result {
        try value.locked(body)
    }
}
