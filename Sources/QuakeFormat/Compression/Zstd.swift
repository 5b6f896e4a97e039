import QuakeSupport
import CZstd
import Foundation

/// Thin, safe wrapper over libzstd's one-shot and streaming APIs.
package enum Zstd {
    /// Compresses `input` into one zstd frame, with this thread's reusable compression context;
    /// with `checksum` the frame carries zstd's content checksum (off for chunk frames, which
    /// the partition file's own sums cover).
    package static func compress(_ input: [UInt8], level: Int32 = 3, checksum: Bool = true) -> [UInt8] {
        let cctx = CompressionContext.current
        ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters)
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0)
        let bound = ZSTD_compressBound(input.count)
        var out = [UInt8](repeating: 0, count: bound)
        // SAFETY: zstd writes at most `bound` bytes into `dst` (out holds bound) and reads input.count bytes
        // from `src`; neither pointer outlives these closures (a nil src only comes with size 0).
        let written = out.withUnsafeMutableBytes { dst in
            input.withUnsafeBytes { src in
                ZSTD_compress2(cctx, dst.baseAddress, bound, src.baseAddress, input.count)
            }
        }
        precondition(ZSTD_isError(written) == 0, "zstd compress failed: \(String(cString: ZSTD_getErrorName(written)))")
        out.removeLast(bound - written)
        return out
    }

    /// Decompresses one frame whose content size is recorded in its header, with this
    /// thread's reusable decompression context, into an uninitialized buffer.
    package static func decompress(_ input: UnsafeRawBufferPointer, expectedSize: Int) throws(QuakeError) -> [UInt8] {
        // SAFETY: zstd reads at most input.count bytes of the frame header; `input` is borrowed for this call.
        let size = ZSTD_getFrameContentSize(input.baseAddress, input.count)
        guard size != ZSTD_CONTENTSIZE_ERROR, size != ZSTD_CONTENTSIZE_UNKNOWN,
              UInt64(exactly: expectedSize) == size else {
            throw .corrupt("zstd frame header does not match the block footer")
        }
        let dctx = DecompressionContext.current
        var result = 0
        // SAFETY: zstd writes at most expectedSize bytes (the capacity given) into `buf`, which holds that many,
        // and only the `result` bytes it reports are counted as initialised; no pointer escapes.
        let out = [UInt8](uninitializedCount: expectedSize) { buf, initialized in
            result = ZSTD_decompressDCtx(dctx, buf.baseAddress, expectedSize, input.baseAddress, input.count)
            initialized = ZSTD_isError(result) != 0 ? 0 : min(result, expectedSize)
        }
        if ZSTD_isError(result) != 0 {
            throw .corrupt("zstd: \(String(cString: ZSTD_getErrorName(result)))")
        }
        guard result == expectedSize else {
            throw .corrupt("zstd frame decoded to \(result) bytes, expected \(expectedSize)")
        }
        return out
    }
}

/// One zstd decompression context per thread, reused by every block read on that thread.
///
/// Held in a POSIX thread-specific slot, freed when its thread exits. (`Thread.threadDictionary`
/// cost a dictionary, a bridged value and dynamic casts on every block, about 0.8 ms of a one-shot
/// query's 6 ms.)
package enum DecompressionContext {
    private static let slot = ThreadSlot(create: { ZSTD_createDCtx() }, free: { _ = ZSTD_freeDCtx(OpaquePointer($0)) })

    package static var current: OpaquePointer { slot.current }
}

/// One zstd compression context per thread, reset before each frame: creating one per frame
/// cost 4 % of a bulk load's samples (`ZSTD_createCCtx_advanced`, and the kernel clearing the
/// pages of its fresh tables). Freed when its thread exits.
package enum CompressionContext {
    private static let slot = ThreadSlot(create: { ZSTD_createCCtx() }, free: { _ = ZSTD_freeCCtx(OpaquePointer($0)) })

    package static var current: OpaquePointer { slot.current }
}

/// Streaming zstd decompression for `.zst` input files.
package final class ZstdStreamDecoder {
    private let dctx: OpaquePointer
    private var lastResult = 0

    package init() { dctx = ZSTD_createDCtx()! }
    deinit { ZSTD_freeDCtx(dctx) }

    /// Feeds `input` and appends the decompressed bytes to `output`.
    package func decode(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(QuakeError) {
        // SAFETY: `inBuf` points into `input`, which the caller keeps alive for this call; zstd reads at most
        // input.count bytes and inBuf is dropped when decode returns.
        var inBuf = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var chunk = [UInt8](repeating: 0, count: 1 << 17)
        repeat {
            // SAFETY: zstd writes at most dst.count bytes at `dst`; outBuf does not outlive the closure.
            let (status, produced): (Int, Int) = chunk.withUnsafeMutableBytes { dst in
                var outBuf = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
                let result = ZSTD_decompressStream(dctx, &outBuf, &inBuf)
                return (result, outBuf.pos)
            }
            if ZSTD_isError(status) != 0 {
                throw .decompression("zstd: \(String(cString: ZSTD_getErrorName(status)))")
            }
            lastResult = status
            output.append(contentsOf: chunk[0..<produced])
            if produced < chunk.count && inBuf.pos == inBuf.size { break }
        } while true
    }

    /// Throws when the stream ended inside a frame.
    package func finish() throws(QuakeError) {
        if lastResult != 0 { throw .decompression("truncated zstd stream") }
    }
}

/// Streaming zstd compression for writing `.zst` archives.
package final class ZstdStreamEncoder {
    private let cctx: OpaquePointer

    package init(level: Int32 = 3) {
        cctx = ZSTD_createCCtx()!
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)
    }

    deinit { ZSTD_freeCCtx(cctx) }

    package func compress(_ input: [UInt8], end: Bool = false) -> [UInt8] {
        var result: [UInt8] = []
        // SAFETY: `inBuf` points into `src` only while this closure runs; zstd reads at most src.count bytes.
        input.withUnsafeBytes { src in
            var inBuf = ZSTD_inBuffer(src: src.baseAddress, size: src.count, pos: 0)
            var chunk = [UInt8](repeating: 0, count: 1 << 17)
            while true {
                // SAFETY: zstd writes at most dst.count bytes at `dst`; outBuf does not outlive the closure.
                let (status, produced): (Int, Int) = chunk.withUnsafeMutableBytes { dst in
                    var outBuf = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
                    let result = ZSTD_compressStream2(cctx, &outBuf, &inBuf, end ? ZSTD_e_end : ZSTD_e_continue)
                    return (result, outBuf.pos)
                }
                precondition(ZSTD_isError(status) == 0, "zstd stream compression failed")
                result.append(contentsOf: chunk[0..<produced])
                if end ? status == 0 : inBuf.pos == inBuf.size { break }
            }
        }
        return result
    }
}
