import Foundation
import QuakeStore
import Testing

/// One error type, with kinds and fields a caller can switch on (never its text).
@Suite("Errors")
struct ErrorTests {
    @Test("QuakeError is a LocalizedError whose localizedDescription is its own")
    func localized() throws {
        let e = QuakeError(.io, path: "/no/such", errno: ENOENT, detail: "open")
        let asError: any Error = e
        #expect((asError as? any LocalizedError) != nil)
        #expect(asError.localizedDescription == e.errorDescription)
        #expect(!asError.localizedDescription.hasPrefix("The operation could not be completed"))
        #expect(e.reason != nil)
        // one from the library, through `any Error`
        let store = try Store(path: try Generated.smallStore.get())
        var d = FetchDescriptor<Quake>()
        d.fetchOffset = -5
        let thrown: (any Error)? = Result { try store.fetch(d) }.failure
        let q = try #require(thrown as? QuakeError)
        #expect(q.kind == .invalidArgument)
        #expect(thrown?.localizedDescription == q.errorDescription)
        #expect(thrown?.localizedDescription.hasPrefix("The operation could not be completed") == false)
    }

    @Test("a store path that is a file: io, ENOTDIR, the path")
    func storeIsAFile() throws {
        let file = try Paths.temporary("file-store").appendingPathComponent("not-a-store")
        try Data("x".utf8).write(to: file)
        for open in [{ _ = try Store(path: file.path) }, { _ = try Store.openOrCreate(path: file.path) },
                     { _ = try Store(url: file) }] as [() throws -> Void] {
            let e = quakeError(open)
            #expect(e?.kind == .io)
            #expect(e?.errno == ENOTDIR)
            #expect(e?.path == file.path)
        }
    }

    @Test("no store at a path: notFound with the path")
    func noStore() throws {
        let dir = try Paths.temporary("no-store").appendingPathComponent("missing.store")
        let e = quakeError { _ = try Store(path: dir.path) }
        #expect(e?.kind == .notFound)
        #expect(e?.path == dir.path)
    }

    @Test("a missing input file: io with ENOENT (or notFound), and its path")
    func missingInput() throws {
        let store = try Generated.freshStore("missing-input")
        let missing = store.path + "-no-such-feed.csv"
        let generation = try store.info().generation
        let e = quakeError { try store.load([missing]) }
        let kind = try #require(e?.kind)
        #expect(kind == .io || kind == .notFound, "\(kind)")
        #expect(e?.path == missing)
        if kind == .io { #expect(e?.errno == ENOENT, "no errno for a missing input") }
        #expect(try store.info().generation == generation)
    }

    @Test("repair and load name the path they refuse in the path field")
    func pathsInFields() throws {
        let dir = try Paths.temporary("paths")
        let missing = dir.appendingPathComponent("missing.store").path
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let noDirectory = quakeError { _ = try Store.repair(path: missing) }
        #expect(noDirectory?.kind == .io || noDirectory?.kind == .notFound)
        #expect(noDirectory?.path == missing, "repair of a missing directory")
        let nothing = quakeError { _ = try Store.repair(path: empty.path) }
        #expect(nothing != nil)
        #expect(nothing?.path == empty.path, "repair of an empty directory")
        let store = try Generated.freshStore("paths-load")
        let noFeeds = quakeError { try store.load([empty.path]) }
        #expect(noFeeds?.kind == .io)
        #expect(noFeeds?.path == empty.path, "load of a directory without feeds")
    }

    @Test("openOrCreate with another partitioning: partitioningMismatch")
    func partitioningMismatch() throws {
        let path = try Paths.temporary("partitioning").appendingPathComponent("quakes.store").path
        _ = try Store.openOrCreate(path: path, partitioning: .month)
        let e = quakeError { _ = try Store.openOrCreate(path: path, partitioning: .day) }
        #expect(e?.kind == .partitioningMismatch)
        #expect(e?.path == path)
        #expect(try Store.openOrCreate(path: path, partitioning: .month).info().partitioning == "month")
    }

    @Test("a sort on a property that is not stored: unsupportedSort, from every read")
    func unsupportedSort() throws {
        let store = try Store(path: try Generated.smallStore.get())
        let d = FetchDescriptor<Quake>(sortBy: [SortDescriptor(\.timeMilliseconds)])
        #expect(quakeError { _ = try store.fetch(d) }?.kind == .unsupportedSort)
        #expect(quakeError { _ = try store.fetchIdentifiers(d) }?.kind == .unsupportedSort)
        #expect(quakeError { try store.enumerate(d) { _ in } }?.kind == .unsupportedSort)
        #expect(quakeError { _ = try store.fetchSections(d, by: .value(.net)) }?.kind == .unsupportedSort)
    }

    @Test("a force-unwrap of nil throws predicateFailed from every read, sync and async")
    func predicateFailed() async throws {
        let store = try Store(path: try Generated.smallStore.get())
        let plain = FetchDescriptor<Quake>(predicate: #Predicate { $0.magnitude! >= 4.5 })
        let arithmetic = FetchDescriptor<Quake>(predicate: #Predicate { $0.magnitude! * 2 > 9 })
        for d in [plain, arithmetic] {
            #expect(quakeError { _ = try store.fetch(d) }?.kind == .predicateFailed)
            #expect(quakeError { _ = try store.fetchCount(d) }?.kind == .predicateFailed)
            // from the cursor or its first next()
            #expect(quakeError { _ = try store.fetchCursor(d).next() }?.kind == .predicateFailed)
            #expect(quakeError { _ = try store.aggregate(d.predicate, by: [], metrics: [.count]) }?.kind
                == .predicateFailed)
            #expect(await quakeError { _ = try await store.fetch(d) }?.kind == .predicateFailed)
        }
        // guarded, it runs
        let guarded = FetchDescriptor<Quake>(predicate: #Predicate { $0.magnitude != nil && $0.magnitude! * 2 > 9 })
        let all = try await store.fetch(FetchDescriptor())
        #expect(try await store.fetchCount(guarded) == all.filter { ($0.magnitude ?? 0) * 2 > 9 }.count)
    }

    @Test("a strict load of a bad row: strict, nothing committed")
    func strictLoad() throws {
        let store = try Generated.freshStore("strict")
        let bad = try Paths.temporary("strict-feed").appendingPathComponent("bad.csv")
        let row = Generated.row(1, prefix: "bad", startDay: 19_723)
            .replacingOccurrences(of: "2024-01-01T", with: "not a time")
        try Data((Generated.header + "\n" + row).utf8).write(to: bad)
        let generation = try store.info().generation
        let e = quakeError { try store.load([bad.path], options: LoadOptions(strict: true)) }
        #expect(e?.kind == .strict)
        #expect(try store.info().generation == generation)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
