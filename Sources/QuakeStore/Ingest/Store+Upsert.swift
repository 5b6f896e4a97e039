import Foundation
import Synchronization
import QuakeFormat
import QuakeSupport

/// Writes of ``Quake`` values, as an app that decodes quakes itself inserts them: each call is
/// one strict load, committed as one transaction (it shows in ``Store/history(since:identifiers:limit:)``),
/// and observers see it as they see a load.
extension Store {
    /// Inserts `quakes`, or replaces the stored versions of their ids, as one transaction.
    ///
    /// Each value is stored as it is: a property that is nil clears the stored field, as
    /// SwiftData's save sets it to nil. A version replaces the stored one when its `updated` is
    /// newer or equal (a nil `updated` counts as oldest); an older version is left out and
    /// counted `unchanged`. A newer value of a deleted id whose `status` is not `deleted` brings
    /// the event back. To change only some fields, use ``upsert(_:fields:)``. The values pass the
    /// loader's checks (a latitude outside -90...90 is refused), and any refusal commits nothing.
    /// - Returns: the load's summary (`new`, `updated`, `unchanged`).
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a value that is not finite or that the
    ///   loader refuses (a latitude of 100), naming the first such value's position in `quakes`,
    ///   its id and the property; or the errors of a load.
    /// - Complexity: O(n) to stage the values (memory stays bounded), then a load of n rows.
    @discardableResult
    public func upsert(_ quakes: some Sequence<Quake>) throws -> LoadSummary {
        var it = quakes.makeIterator()
        return try upsert(carrying: nil) { it.next() }
    }

    /// Changes only `fields` of the events `quakes` name, as one transaction: a partial update.
    ///
    /// Each value carries its `id`, `time`, `latitude`, `longitude` and `updated`, and the
    /// properties `fields` names; the stored values of the other properties stay. Among the
    /// carried ones, nil clears the field. The version rules are those of ``upsert(_:)``: the
    /// change applies when `updated` is newer than or equal to the stored event's, and an id the
    /// store does not hold is inserted with the carried fields alone.
    ///
    /// ```swift
    /// var q = stored
    /// q.place = nil
    /// q.updated = .now
    /// try store.upsert([q], fields: [\.place])   // clears the place, keeps the rest
    /// ```
    /// - Throws: ``QuakeError/Kind/invalidArgument`` for a key path that is not a stored property,
    ///   or as ``upsert(_:)`` does.
    /// - Complexity: as ``upsert(_:)``.
    @discardableResult
    public func upsert(_ quakes: some Sequence<Quake>, fields: [PartialKeyPath<Quake>]) throws -> LoadSummary {
        try upsert(quakes, carrying: try Store.carriedColumns(fields))
    }

    /// ``upsert(_:fields:)`` with the fields as the columns they name.
    /// `label` is what the load history records as the transaction's source.
    func upsert(_ quakes: some Sequence<Quake>, carrying carried: Set<Column>,
                label: String = "Store.upsert") throws -> LoadSummary {
        var it = quakes.makeIterator()
        return try upsert(carrying: carried, label: label) { it.next() }
    }

    /// The columns a partial update carries: the key and version columns, and those `fields` name.
    static func carriedColumns(_ fields: [PartialKeyPath<Quake>]) throws(QuakeError) -> Set<Column> {
        var carried: Set<Column> = [.id, .time, .latitude, .longitude, .updated]
        for (position, keyPath) in fields.enumerated() {
            guard let column = Quake.column(for: keyPath) else {
                throw QuakeError.argument("fields[\(position)]", "a key path to a stored property of Quake")
            }
            carried.insert(column)
        }
        return carried
    }

    /// Stages the values `next` gives as one GeoJSON file, each with the properties `carried`
    /// names (nil: all of them), then loads it strictly.
    private func upsert(carrying carried: Set<Column>?, label: String = "Store.upsert",
                        _ next: () -> Quake?) throws -> LoadSummary {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("quakes-upsert-\(FileIO.processID)-\(UUID().uuidString).geojson").path
        defer { FileIO.remove(file) }
        let out = try StagedFile(path: file)
        var buffer = Array(#"{"type":"FeatureCollection","features":["#.utf8)
        var position = 0
        // each value's id, to name the one the loader refuses by its position and id
        var ids: [String] = []
        while let quake = next() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer += try Store.feature(quake, index: position, carrying: carried)
            ids.append(quake.id)
            position += 1
            if buffer.count > 1 << 20 {
                try out.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer += Array("]}\n".utf8)
        try out.write(buffer)
        try out.close()
        var options = LoadOptions(strict: true)
        options.timeUnit = .milliseconds
        // history names the call, not the staged file, which is gone when the call returns
        options.sourceNames = [file: label]
        // the async twin's cancellation: asked between batches, from any of the load's threads
        let flag = CancelFlag.current
        options.isCancelled = { flag?.isCancelled == true }
        let firstReject = Mutex<Reject?>(nil)
        options.onReject = { reject in firstReject.locked { first in if first == nil { first = reject } } }
        do {
            return try load([file], options: options)
        } catch let failure as QuakeError where failure.kind == .strict {
            // a feature's index is the value's position: name it, its id and the field, not the staged file
            guard let reject = firstReject.locked({ $0 }), ids.indices.contains(reject.line) else { throw failure }
            // a value the caller gave is invalid: the kind a non-finite value gets too
            throw QuakeError(.invalidArgument, detail: "quake \(reject.line) (id \"\(ids[reject.line])\") "
                + "\(reject.reason); nothing committed")
        }
    }

    /// Marks the events `ids` deleted, as a sync records its source's deletions: each becomes a
    /// tombstone (status `deleted`, `updated` now), hidden from fetches unless
    /// ``FetchDescriptor/includesDeleted`` is set, and kept so that its deletion shows in the
    /// history. Ids the store does not hold are passed over.
    /// - Returns: the load's summary (its `updated` is the number of events deleted).
    /// - Complexity: one id lookup per id, then a load of the tombstones.
    @discardableResult
    public func delete(ids: some Sequence<String>) throws -> LoadSummary {
        let wanted = Array(ids)
        guard !wanted.isEmpty else { return LoadSummary() }
        let now = Date()
        var descriptor = FetchDescriptor<Quake>()
        descriptor.includesDeleted = true
        let plan = try FetchPlan(descriptor)
        let found = try query(QuerySpec(filter: .conjunction([plan.filter, .ids(EventIdSet(wanted))]),
                                        sort: [SortKey(.id)])).quakes
        let stones = found.filter { $0.status != "deleted" }.map { quake -> Quake in
            var stone = quake
            stone.status = "deleted"
            // a tombstone must win over the stored version: newer than its `updated`
            let stored = quake.updated ?? quake.time
            stone.updated = max(now, stored.addingTimeInterval(0.001))
            return stone
        }
        guard !stones.isEmpty else { return LoadSummary() }
        // the tombstone changes the status alone: the fields the event's versions never carried stay
        // uncarried
        let carried = try Store.carriedColumns([\Quake.status])
        return try upsert(stones, carrying: carried, label: "Store.delete(ids:)")
    }

    /// One GeoJSON feature of `quake` (the `index`th value) holding the properties `carried`
    /// names (nil: every stored property), a nil one as JSON `null`: a carried null clears.
    package static func feature(_ quake: Quake, index: Int,
                                carrying carried: Set<Column>? = nil) throws(QuakeError) -> [UInt8] {
        let label = "quake \(index) (\(quake.id))"
        func carries(_ column: Column) -> Bool { carried?.contains(column) ?? true }
        func milliseconds(_ name: String, _ date: Date) throws(QuakeError) -> Int64 {
            guard let value = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()),
                  abs(value) < 253_402_300_800_000 else {
                throw .argument("\(label) \(name)", "a date between the years 1 and 9999")
            }
            return value
        }
        var props: [String: Any] = ["time": try milliseconds("time", quake.time)]
        try addValues(of: quake, to: &props, label: label, carries: carries)
        if carries(.updated) {
            if let updated = quake.updated {
                props["updated"] = try milliseconds("updated", updated)
            } else {
                props["updated"] = NSNull()
            }
        }
        guard quake.latitude.isFinite, quake.longitude.isFinite else {
            throw .argument("\(label) latitude and longitude", "finite numbers")
        }
        var coordinates: [Any] = [quake.longitude, quake.latitude]
        if carries(.depth) {
            if let depth = quake.depth {
                guard depth.isFinite else { throw .argument("\(label) depth", "a finite number") }
                coordinates.append(depth)
            } else {
                coordinates.append(NSNull())
            }
        }
        let feature: [String: Any] = ["type": "Feature", "id": quake.id, "properties": props,
                                      "geometry": ["type": "Point", "coordinates": coordinates]]
        guard let data = try? JSONSerialization.data(withJSONObject: feature) else {
            throw .argument(label, "a value JSON can hold")
        }
        return Array(data)
    }

    /// Adds the numbers, integers and texts of `quake` that `carries` takes to `props`, a nil one
    /// as JSON `null`.
    private static func addValues(of quake: Quake, to props: inout [String: Any], label: String,
                                  carries: (Column) -> Bool) throws(QuakeError) {
        let numbers: [(Column, Double?)] = [
            (.mag, quake.magnitude), (.gap, quake.gap), (.dmin, quake.dmin), (.rms, quake.rms),
            (.horizontalError, quake.horizontalError), (.depthError, quake.depthError), (.magError, quake.magError),
            (.cdi, quake.cdi), (.mmi, quake.mmi),
        ]
        for (column, value) in numbers where carries(column) {
            guard let value else {
                props[column.name] = NSNull()
                continue
            }
            guard value.isFinite else {
                throw .argument("\(label) \(Store.propertyName(column))", "a finite number, not \(value)")
            }
            props[column.name] = value
        }
        let integers: [(Column, Int?)] = [(.nst, quake.nst), (.magNst, quake.magNst), (.felt, quake.felt),
                                          (.tsunami, quake.tsunami), (.sig, quake.sig), (.tz, quake.tz)]
        for (column, value) in integers where carries(column) { props[column.name] = value ?? NSNull() }
        let texts: [(Column, String?)] = [
            (.magType, quake.magType), (.net, quake.net), (.place, quake.place), (.type, quake.type),
            (.status, quake.status), (.locationSource, quake.locationSource), (.magSource, quake.magSource),
            (.alert, quake.alert), (.url, quake.url), (.detail, quake.detail), (.code, quake.code), (.ids, quake.ids),
            (.sources, quake.sources), (.types, quake.types), (.title, quake.title),
        ]
        for (column, value) in texts where carries(column) { props[column.name] = value ?? NSNull() }
    }

    /// The ``Quake`` property behind `column`, as an error names it.
    static func propertyName(_ column: Column) -> String { column == .mag ? "magnitude" : column.name }
}

/// The file an upsert stages its values in.
private final class StagedFile {
    let path: String
    private var fd: Int32?

    init(path: String) throws {
        self.path = path
        fd = try FileIO.create(path)
    }

    func write(_ bytes: [UInt8]) throws {
        guard let fd else { return }
        try bytes.withStoreBytes { (stored) throws(QuakeError) in try FileIO.writeAll(fd, stored, path: path) }
    }

    func close() throws {
        guard let open = fd else { return }
        fd = nil
        try FileIO.syncAndClose(open, path: path)
    }

    deinit { if let fd { FileIO.closeQuietly(fd) } }
}
