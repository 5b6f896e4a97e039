#if canImport(Glibc)
@_silgen_name("malloc_trim") private func glibcMallocTrim(_ pad: Int) -> Int32
@_silgen_name("mallopt") private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32
#endif

/// The C heap's retention policy. Queries keep freed block buffers (a fresh mapping costs page
/// faults on every query); a load hands back what one pass freed before the next pass starts,
/// so its peak is that of its largest pass rather than the sum of them.
package enum MallocPolicy {
    /// Keeps freed allocations up to `mmapThreshold` bytes in the heap, and trims the heap's top
    /// only when more than `trimThreshold` bytes are free there.
    package static func retain(mmapThreshold: Int32, trimThreshold: Int32) {
        #if canImport(Glibc)
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD */, mmapThreshold)
        _ = glibcMallopt(-1 /* M_TRIM_THRESHOLD */, trimThreshold)
        #endif
    }

    /// Returns the free pages of every arena to the kernel.
    package static func releaseFree() {
        #if canImport(Glibc)
        _ = glibcMallocTrim(0)
        #endif
    }
}
