import QuakeFormat

/// The rows a CSV parser builds, in column buffers allocated once per reader and reused for
/// every batch, then copied out as a ``RowBatch``.
///
/// A field costs one store (a number) or one copy (text): no array uniqueness check, no
/// per-row append, no nested array. Every number of the batch starts null, so a row touches
/// only the fields its record holds; a text column's row ends where its bytes end when the row
/// ends. A rejected row is dropped with ``abandonRow()``.
///
/// Memory: the number buffers hold `capacity` rows of every number column; the text buffers
/// grow to the largest batch's text and stay that size.
package struct RowBuilder: ~Copyable {
    /// Rows a batch holds at most.
    package let capacity: Int
    /// Rows ended so far in this batch.
    package private(set) var count = 0
    /// Per column, `capacity` numbers (number columns only), column-major.
    private let ints: UnsafeMutablePointer<Int64>
    /// Per column, `capacity` text row ends (text columns only), column-major.
    private let ends: UnsafeMutablePointer<Int>
    /// Per column: its text buffer, the bytes used and the bytes it has room for.
    private let texts: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>>
    private let used: UnsafeMutablePointer<Int>
    private let room: UnsafeMutablePointer<Int>
    private let present: UnsafeMutablePointer<UInt64>
    private let seq: UnsafeMutablePointer<Int64>

    private static let intColumns = RowBatch.intColumns
    private static let textColumns = RowBatch.textColumns
    private static let initialTextRoom = 1 << 12

    package init(capacity: Int) {
        let cap = max(1, capacity)
        self.capacity = cap
        let columns = Column.count
        // SAFETY: each buffer is allocated once here, owned by this ~Copyable value (never copied), and
        // freed once in deinit; used, room, texts and the number columns are initialised below.
        ints = .allocate(capacity: columns * cap)
        ends = .allocate(capacity: columns * cap)
        texts = .allocate(capacity: columns)
        used = .allocate(capacity: columns)
        room = .allocate(capacity: columns)
        present = .allocate(capacity: cap)
        seq = .allocate(capacity: cap)
        used.initialize(repeating: 0, count: columns)
        room.initialize(repeating: 0, count: columns)
        // SAFETY: every number column's `cap` rows lie inside the `columns * cap` allocated above.
        for c in RowBuilder.intColumns { (ints + c * cap).initialize(repeating: RowBatch.null, count: cap) }
        for c in 0..<columns {
            let initialRoom = RowBuilder.textColumns.contains(c) ? RowBuilder.initialTextRoom : 1
            (texts + c).initialize(to: .allocate(capacity: initialRoom))
            room[c] = initialRoom
        }
    }

    deinit {
        // SAFETY: deinit runs once: each text buffer, then every allocation of init, is freed exactly once.
        for c in 0..<Column.count { texts[c].deallocate() }
        ints.deallocate()
        ends.deallocate()
        texts.deallocate()
        used.deallocate()
        room.deallocate()
        present.deallocate()
        seq.deallocate()
    }

    /// True when no more row fits this batch.
    package var isFull: Bool { count == capacity }

    /// Sets number column `c` of the row being built (``count``, below ``capacity``).
    @inline(__always)
    package mutating func setInt(_ c: Column, _ v: Int64) {
        assert(count < capacity, "a row is built only while the batch has room")
        // SAFETY: count < capacity while a row is built (the reader checks isFull first).
        ints[c.rawValue * capacity + count] = v
    }

    /// Sets text column `c` of the row being built to `bytes` (once per row and column).
    @inline(__always)
    package mutating func setText(_ c: Column, _ bytes: UnsafeRawBufferPointer) {
        let column = c.rawValue
        let length = bytes.count
        if used[column] + length > room[column] { grow(column, to: used[column] + length) }
        // SAFETY: grow left room for length more bytes after `used[column]`; `bytes` holds length bytes.
        if let src = bytes.baseAddress {
            // SAFETY: the readers' bytes are [UInt8] buffers, already bound to UInt8; see the note above.
            let dst = texts[column] + used[column]
            let from = src.assumingMemoryBound(to: UInt8.self)
            // most fields are a few bytes: a loop costs less than a call to memmove
            if length <= 16 {
                for i in 0..<length { dst[i] = from[i] }
            } else {
                dst.initialize(from: from, count: length)
            }
        }
        // `used[column] = used[column] + length`, not `+=`: a compound assignment through a pointer
        // field of this ~Copyable struct crashes the compiler under -sanitize=thread (swiftlang/swift#86265).
        used[column] = used[column] + length
    }

    /// The number the row being built holds in column `c` (null when unset).
    @inline(__always)
    // SAFETY: count < capacity while a row is built (the reader checks isFull first).
    package func currentInt(_ c: Column) -> Int64 { ints[c.rawValue * capacity + count] }

    /// True when the row being built has no text in column `c`.
    @inline(__always)
    package func currentTextIsEmpty(_ c: Column) -> Bool { used[c.rawValue] == rowStart(c.rawValue) }

    /// Calls `body` with the text the row being built holds in column `c` (empty when unset).
    package func withCurrentText<T>(_ c: Column, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let column = c.rawValue
        let start = rowStart(column)
        // SAFETY: the row's bytes of the column lie in its buffer from the row's start to its used
        // bytes; the buffer is read only while `body` runs, and nothing writes it meanwhile.
        return body(UnsafeBufferPointer(start: texts[column] + start, count: used[column] - start))
    }

    /// Removes the text the row being built holds in column `c`: the row stores null there.
    package mutating func clearCurrentText(_ c: Column) {
        let column = c.rawValue
        used[column] = rowStart(column)
    }

    /// Ends the row being built.
    @inline(__always)
    package mutating func endRow(present mask: UInt64, seq s: Int64) {
        assert(count < capacity, "a row is built only while the batch has room")
        // SAFETY: count < capacity; each text column's row end lies in its `capacity` rows.
        for c in RowBuilder.textColumns { ends[c * capacity + count] = used[c] }
        present[count] = mask
        seq[count] = s
        count += 1
    }

    /// Drops the row being built: its numbers back to null, its text removed.
    package mutating func abandonRow() {
        assert(count < capacity, "a row is built only while the batch has room")
        // SAFETY: count < capacity; the row's slots lie inside every column's rows.
        for c in RowBuilder.intColumns { ints[c * capacity + count] = RowBatch.null }
        for c in RowBuilder.textColumns { used[c] = rowStart(c) }
    }

    /// The batch built so far, and an empty builder for the next one.
    package mutating func finish() -> RowBatch {
        var batch = RowBatch()
        let rows = count
        let cap = capacity
        batch.count = rows
        for c in RowBuilder.intColumns {
            // SAFETY: rows 0..<rows of column c were initialized (null or set); the copy reads those.
            batch.ints[c] = Array(uninitializedCount: rows) { buf, k in
                // SAFETY: rows > 0 here (a count of 0 never calls this closure), so baseAddress is non-nil.
                buf.baseAddress!.initialize(from: ints + c * cap, count: rows)
                k = rows
            }
            (ints + c * cap).update(repeating: RowBatch.null, count: rows)
        }
        for c in RowBuilder.textColumns {
            let byteCount = used[c]
            // SAFETY: the column's first byteCount bytes and first `rows` row ends were written this batch.
            let bytes = [UInt8](uninitializedCount: byteCount) { buf, k in
                // SAFETY: byteCount > 0 here (a count of 0 never calls this closure), so baseAddress is non-nil.
                buf.baseAddress!.initialize(from: texts[c], count: byteCount)
                k = byteCount
            }
            let rowEnds = [Int](uninitializedCount: rows) { buf, k in
                // SAFETY: rows > 0 here (a count of 0 never calls this closure), so baseAddress is non-nil.
                buf.baseAddress!.initialize(from: ends + c * cap, count: rows)
                k = rows
            }
            batch.text[c] = ByteArena(bytes: bytes, ends: rowEnds)
            used[c] = 0
        }
        // SAFETY: rows 0..<rows of `present` and `seq` were written by endRow.
        batch.present = Array(UnsafeBufferPointer(start: present, count: rows))
        batch.seq = Array(UnsafeBufferPointer(start: seq, count: rows))
        count = 0
        return batch
    }

    /// Where the row being built starts in text column `c`.
    @inline(__always)
    private func rowStart(_ c: Int) -> Int {
        // SAFETY: count - 1 is a row ended this batch, inside the column's rows.
        count == 0 ? 0 : ends[c * capacity + count - 1]
    }

    /// Gives text column `k` room for at least `need` bytes, keeping what it holds.
    private mutating func grow(_ k: Int, to need: Int) {
        let newRoom = max(need, 2 * room[k])
        // SAFETY: the new buffer is freshly allocated; texts[k] takes it over below and deinit frees it.
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: newRoom)
        // SAFETY: the old buffer holds used[k] <= room[k] bytes; the new one holds newRoom >= need.
        buffer.initialize(from: texts[k], count: used[k])
        texts[k].deallocate()
        texts[k] = buffer
        room[k] = newRoom
    }
}

extension RowBuilder {
    /// One batch of up to `maxRows` rows read by `fill`, into `spare`'s buffers when they have
    /// that capacity (else new ones); the buffers go back to `spare` for the next batch. After a
    /// failed fill they are dropped: it may have left a row half built.
    package static func batch(_ spare: inout RowBuilder?, maxRows: Int,
                              _ fill: (inout RowBuilder) throws(QuakeError) -> Void) throws(QuakeError) -> RowBatch? {
        let capacity = min(max(1, maxRows), 1 << 20)
        var rows = spare.take() ?? RowBuilder(capacity: capacity)
        if rows.capacity != capacity { rows = RowBuilder(capacity: capacity) }
        let filled = Result { () throws(QuakeError) in try fill(&rows) }
        let batch = rows.count == 0 ? nil : rows.finish()
        if case .success = filled { spare = consume rows }
        try filled.get()
        return batch
    }
}
