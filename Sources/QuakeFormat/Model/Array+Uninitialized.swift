extension Array where Element: BitwiseCopyable {
    /// `Array(unsafeUninitializedCapacity:initializingWith:)`, except that a count of 0 gives `[]`
    /// without calling `body`: initialising an empty array writes the count of Swift's one shared
    /// empty storage, from every thread that does it (ThreadSanitizer reports the parallel merge).
    @inlinable
    package init(uninitializedCount n: Int,
                 _ body: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void) rethrows {
        if n == 0 {
            self = []
            return
        }
        // SAFETY: n > 0 here; `body` gets a buffer of n slots and sets the count to the ones it initialised,
        // and the buffer must not escape `body` (the callers' contract).
        try self.init(unsafeUninitializedCapacity: n, initializingWith: body)
    }
}
