import Foundation
import QuakeFormat

/// The load history of a store: what each committed load inserted, updated and left unchanged.
extension Store {
    /// Where the snapshot this handle reads stands in the history: keep it, and pass it to
    /// `history(since:)` (with a token) later to learn what changed
    /// since.
    public var historyToken: HistoryToken { HistoryToken(generation: freshManifest().generation) }

    /// Retained transactions, their total size on disk, and from where history is complete.
    package var historyExtent: (transactions: Int, bytes: Int, completeAfter: Int) {
        let gens = manifest.history.generations
        return (gens.count, historyBytes(gens), manifest.history.baseGeneration)
    }

    /// Bytes of the transactions of `generations`: their files and the copies of partition ids
    /// that belong to them (``HistoryReference``).
    private func historyBytes(_ generations: [Int]) -> Int {
        let wanted = Set(generations)
        return FileIO.list(path + "/history").reduce(0) { sum, name in
            guard let generation = HistoryReference.generation(ofHistoryFile: name),
                  wanted.contains(generation) else { return sum }
            return sum + FileIO.size(path + "/history/" + name)
        }
    }

    /// Committed loads after `token`, oldest first, like SwiftData's `fetchHistory` with a
    /// `HistoryDescriptor`. With no token, every retained transaction.
    ///
    /// ```swift
    /// var token = store.historyToken
    /// // ... later, after loads by this process or another:
    /// for t in try store.history(since: token) {
    ///     print(t.generation, t.inserted.count, t.updated.map(\.id))
    ///     token = t.token
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - token: Where to resume: the transactions of later generations are returned. Nil
    ///     returns every transaction the store keeps.
    ///   - identifiers: Also read each transaction's inserted and updated ids
    ///     (``HistoryTransaction/inserted``, ``HistoryTransaction/updated``); without it those lists
    ///     are empty.
    ///   - limit: At most this many transactions, the oldest after `token`.
    /// - Returns: The transactions, oldest first.
    /// - Throws: ``QuakeError`` of kind ``QuakeError/Kind/historyUnavailable`` when transactions
    ///   after `token` were pruned or predate history (the answer would be incomplete),
    ///   ``QuakeError/Kind/noTransaction`` for a token past the store's generation, or
    ///   ``QuakeError/Kind/corrupt`` on a damaged history file.
    /// - Complexity: reads one header per transaction, and with `identifiers` its id lists.
    public func history(since token: HistoryToken? = nil, identifiers: Bool = true,
                        limit: Int? = nil) throws -> [HistoryTransaction] {
        _ = freshManifest()
        if let token { try checkCovered(after: token.generation) }
        var out: [HistoryTransaction] = []
        for g in manifest.history.generations where g > (token?.generation ?? Int.min) {
            if let limit, out.count >= limit { break }
            out.append(try transaction(generation: g, identifiers: identifiers))
        }
        return out
    }

    /// Committed loads after `date`, oldest first.
    ///
    /// - Parameters:
    ///   - date: Transactions committed after this instant are returned.
    ///   - identifiers: Also read each transaction's inserted and updated ids.
    ///   - limit: At most this many transactions, the oldest after `date`.
    /// - Returns: The transactions, oldest first.
    /// - Throws: ``QuakeError`` of kind ``QuakeError/Kind/historyUnavailable`` when history does
    ///   not reach back to `date`.
    /// - Complexity: reads the header of every transaction the store keeps, and with
    ///   `identifiers` the id lists of those it returns.
    public func history(since date: Date, identifiers: Bool = true, limit: Int? = nil) throws -> [HistoryTransaction] {
        _ = freshManifest()
        let ms = Int64(saturating: (date.timeIntervalSince1970 * 1000).rounded(.down))
        try checkCovered(afterTime: ms)
        var out: [HistoryTransaction] = []
        for g in manifest.history.generations {
            if let limit, out.count >= limit { break }
            let file = try HistoryFile.read(path: HistoryFile.path(store: path, generation: g))
            if file.committed > ms { out.append(try transaction(file, identifiers: identifiers)) }
        }
        return out
    }

    /// The transaction that committed generation `g`.
    package func transaction(generation g: Int, identifiers: Bool = false) throws -> HistoryTransaction {
        guard manifest.history.generations.contains(g) else {
            throw QuakeError.noTransaction(noTransactionReason(g))
        }
        return try transaction(HistoryFile.read(path: HistoryFile.path(store: path, generation: g)),
                               identifiers: identifiers)
    }

    /// Transaction `g`'s file, when the history keeps it.
    private func keptTransaction(_ g: Int) throws -> HistoryFile {
        guard manifest.history.generations.contains(g) else {
            throw QuakeError.noTransaction(noTransactionReason(g))
        }
        return try HistoryFile.read(path: HistoryFile.path(store: path, generation: g))
    }

    /// Reads every section of transaction `g` whole, as ``forEachChange(generation:includeUnchanged:_:)``
    /// will: a caller that streams the changes checks first, so that a damaged transaction prints
    /// an error and no partial list.
    /// - Complexity: decodes every id list of the transaction once.
    package func checkChanges(generation g: Int) throws {
        let file = try keptTransaction(g)
        for index in file.sections.indices {
            _ = try file.changes(index)
        }
    }

    /// Calls `body` with every event of transaction `g`: inserted, then updated, then (with
    /// `includeUnchanged`) unchanged, partition by partition, ids sorted within a partition.
    /// Memory holds one partition's lists at a time.
    package func forEachChange(generation g: Int, includeUnchanged: Bool = true,
                              _ body: (HistoryChange) throws -> Void) throws {
        let file = try keptTransaction(g)
        for (i, section) in file.sections.enumerated() {
            let changes = try file.changes(i)
            for k in 0..<changes.inserted.count {
                try body(HistoryChange(kind: .inserted, id: changes.inserted.string(k) ?? "", changedFields: [],
                                       partition: section.key))
            }
            for k in 0..<changes.updated.count {
                try body(HistoryChange(kind: .updated, id: changes.updated.string(k) ?? "",
                                       changedFields: Column.columns(in: changes.changedColumns[k]),
                                       partition: section.key))
            }
            if includeUnchanged {
                for k in 0..<changes.unchanged.count {
                    try body(HistoryChange(kind: .unchanged, id: changes.unchanged.string(k) ?? "", changedFields: [],
                                           partition: section.key))
                }
            }
        }
    }

    /// A filter matching the events inserted or updated after `token`: the local counterpart
    /// of the event service's `updatedafter`. Combine it with any other filter; pass that
    /// filter as `within` so that only the changes inside its time bounds are read.
    /// - Throws: ``QuakeError/unavailable(_:)`` when that part of the history is gone.
    /// - Complexity: reads the id lists of the transactions after `token` whose partitions meet
    ///   `within`'s time bounds; the set holds each of those changed ids once.
    package func changedFilter(since token: HistoryToken, within: Filter = .all) throws -> Filter {
        try checkCovered(after: token.generation)
        return try changedFilter(manifest.history.generations.filter { $0 > token.generation }.map { g in
            try HistoryFile.read(path: HistoryFile.path(store: path, generation: g))
        }, bounds: within.timeBounds)
    }

    /// A filter matching the events inserted or updated by loads committed after `date`.
    package func changedFilter(since date: Date, within: Filter = .all) throws -> Filter {
        let ms = Int64(saturating: (date.timeIntervalSince1970 * 1000).rounded(.down))
        try checkCovered(afterTime: ms)
        return try changedFilter(manifest.history.generations.compactMap { g in
            let file = try HistoryFile.read(path: HistoryFile.path(store: path, generation: g))
            return file.committed > ms ? file : nil
        }, bounds: within.timeBounds)
    }

    private func changedFilter(_ files: [HistoryFile], bounds: (lower: Int64?, upper: Int64?)) throws -> Filter {
        var ids = ByteArena()
        var lo = Int64.max
        var hi = Int64.min
        for file in files {
            for (i, section) in file.sections.enumerated() where section.inserted + section.updated > 0 {
                // a section whose changed events all lie outside the bounds cannot match
                if let lower = bounds.lower, section.maxTime < lower { continue }
                if let upper = bounds.upper, section.minTime >= upper { continue }
                let changes = try file.changes(i)
                ids.append(contentsOf: changes.inserted)
                ids.append(contentsOf: changes.updated)
                lo = min(lo, section.minTime)
                hi = max(hi, section.maxTime)
            }
        }
        if ids.count == 0 { return .none }
        // the span bounds the partitions to read; every changed event's current time lies in it
        let upper = hi < Int64.max ? hi + 1 : nil
        return .conjunction([.timeRange(.time, lower: lo, upper: upper), .ids(EventIdSet(ids))])
    }

    /// Drops the history of transactions before `token` (never data), as one commit: history
    /// asked for from before it then throws ``QuakeError/Kind/historyUnavailable``.
    /// - Returns: the transactions removed and their bytes.
    @discardableResult
    public func pruneHistory(before token: HistoryToken) throws -> (transactions: Int, bytes: Int) {
        try pruneHistory(before: token.generation)
    }

    /// Drops the transactions of generations before `g` (never data), as one commit, under the
    /// writer lock (waiting for it as `lockWait` allows, asking `cancelled` meanwhile).
    /// - Returns: the transactions removed and their bytes.
    @discardableResult
    package func pruneHistory(before g: Int, lockWait: LockWait = .never,
                              cancelled: (@Sendable () -> Bool)? = nil) throws -> (transactions: Int, bytes: Int) {
        let lock = try writerLock(reusing: nil, wait: lockWait, cancelled: cancelled)
        defer { withExtendedLifetime(lock) {} }
        try refresh()
        let old = manifest
        guard g <= old.generation + 1 else {
            throw QuakeError(.invalidArgument, path: path,
                             detail: "no generation \(g) to prune before: the store is at generation \(old.generation)")
        }
        let gone = old.history.generations.filter { $0 < g }
        if gone.isEmpty { return (0, 0) }
        let bytes = historyBytes(gone)
        let newest = gone.last.flatMap { try? HistoryFile.read(path: HistoryFile.path(store: path, generation: $0)) }
        var next = old
        next.generation = old.generation + 1
        // when the newest pruned file is unreadable, its time is unknown: history restarts now
        next.history.prune(before: g,
                           newestPrunedTime: newest?.committed ?? Int64(Date().timeIntervalSince1970 * 1000))
        next.retired = Array(old.liveFiles.subtracting(next.liveFiles)).sorted()
        Store.collectGarbage(old, storePath: path)
        next = try Store.commit(next, storePath: path)
        Store.collectGarbage(next, storePath: path)
        try refresh()
        return (gone.count, bytes)
    }

    private func transaction(_ file: HistoryFile, identifiers: Bool) throws -> HistoryTransaction {
        let span: ClosedRange<Int64>? = file.minTime <= file.maxTime ? file.minTime...file.maxTime : nil
        let bytes = FileIO.size(HistoryFile.path(store: path, generation: file.generation))
        var transaction = HistoryTransaction(generation: file.generation,
                                             committed: Date(timeIntervalSince1970: Double(file.committed) / 1000),
                                             committedMillis: file.committed, files: file.files,
                                             insertedCount: file.inserted, updatedCount: file.updated,
                                             unchangedCount: file.unchanged,
                                             partitions: file.sections.filter { $0.inserted + $0.updated > 0 }
                                                 .map(\.key),
                                             timeSpan: span, bytes: bytes)
        guard identifiers else { return transaction }
        for i in file.sections.indices {
            let changes = try file.changes(i)
            for k in 0..<changes.inserted.count {
                transaction.inserted.append(changes.inserted.string(k) ?? "")
            }
            for k in 0..<changes.updated.count {
                transaction.updated.append(HistoryUpdate(id: changes.updated.string(k) ?? "",
                                                         changedFields: Column.columns(in: changes.changedColumns[k])))
            }
        }
        return transaction
    }

    /// Throws unless every load committed after generation `g` has its transaction.
    private func checkCovered(after g: Int) throws {
        guard g >= 0, g <= manifest.generation else {
            throw QuakeError.noTransaction(
                "generation \(g) is not one of this store's (it is at generation \(manifest.generation))")
        }
        let base = manifest.history.baseGeneration
        guard g >= base else {
            throw QuakeError.unavailable("history before generation \(base + 1) is not kept (pruned, or the store "
                + "predates history); changes since generation \(g) cannot be listed completely")
        }
    }

    /// Throws unless every load committed after `ms` has its transaction.
    private func checkCovered(afterTime ms: Int64) throws {
        let base = manifest.history.baseTime
        if base == HistoryRetention.unknownTime {
            throw QuakeError.unavailable("this store's history starts with its next load (it predates history); "
                + "changes since a time cannot be listed completely yet")
        }
        guard ms >= base else {
            throw QuakeError.unavailable("history before \(Timestamp.string(base)) is not kept; changes since "
                + "\(Timestamp.string(ms)) cannot be listed completely")
        }
    }

    private func noTransactionReason(_ g: Int) -> String {
        if g <= manifest.history.baseGeneration && g >= 1 {
            return "the transaction of generation \(g) is not kept "
                + "(history is complete after generation \(manifest.history.baseGeneration))"
        }
        if g > manifest.generation { return "no generation \(g): the store is at generation \(manifest.generation)" }
        return "generation \(g) was not committed by a load (repair, migrate or a history prune), "
            + "so it has no transaction"
    }
}
