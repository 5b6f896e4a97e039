import Foundation

/// A C object per thread in a POSIX thread-specific slot: made by `create` on a thread's first
/// use, and handed to `free` when the thread exits. Holds the zstd contexts, which are costly
/// to make and must not be shared between threads.
package struct ThreadSlot: Sendable {
    private let key: pthread_key_t
    private let create: @Sendable () -> OpaquePointer?

    /// - Parameter free: receives only objects that `create` made, once each.
    package init(create: @escaping @Sendable () -> OpaquePointer?,
                 free: @convention(c) (UnsafeMutableRawPointer?) -> Void) {
        var key = pthread_key_t()
        // SAFETY: `key` is a local the call fills in; `free` is a C function that takes only the
        // objects `create` made (its contract above).
        let status = pthread_key_create(&key, free)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        self.key = key
        self.create = create
    }

    /// This thread's object, made on first use.
    package var current: OpaquePointer {
        // SAFETY: the slot is per thread: it holds nil or an object this thread made with `create`
        // and alone uses; pthread frees it (through `free`) only when this thread exits.
        if let value = pthread_getspecific(key) { return OpaquePointer(value) }
        let object = create()!
        pthread_setspecific(key, UnsafeRawPointer(object))
        return object
    }
}
