import Foundation
import Observation
import QuakeFormat

/// A live query a SwiftUI view can hold, as it holds SwiftData's `@Query`: it fetches its
/// ``descriptor`` and fetches again after every commit that could change the answer (a load,
/// a sync, an upsert, in this process or another).
///
/// ```swift
/// struct QuakeList: View {
///     @State private var query = QuakeQuery(store: store, descriptor: FetchDescriptor(
///         predicate: #Predicate { $0.magnitude ?? 0 >= 4.5 }, sortBy: [SortDescriptor(\.time, order: .reverse)]))
///     var body: some View {
///         List(query.quakes) { Text($0.place ?? $0.id) }
///             .onAppear { query.start() }
///             .onDisappear { query.stop() }
///     }
/// }
/// ```
/// Reads run off the main actor; the properties change on it. Changing ``descriptor``
/// restarts a running query.
@MainActor
@Observable
public final class QuakeQuery {
    /// The store queried.
    public let store: Store
    /// What to fetch; setting it fetches again when the query is running.
    public var descriptor: FetchDescriptor<Quake> {
        didSet { if task != nil { start() } }
    }
    /// The events of the newest answer.
    public private(set) var quakes: [Quake] = []
    /// How many events match, without the descriptor's limit and offset (for "50 of 1,174").
    public private(set) var totalCount = 0
    /// The generation the answer was read from; nil before the first.
    public private(set) var generation: Int?
    /// The last error, cleared by the next answer.
    public private(set) var error: QuakeError?

    @ObservationIgnored private var task: Task<Void, Never>?

    /// A query of `store`; call ``start()`` to fetch and follow it.
    public init(store: Store, descriptor: FetchDescriptor<Quake> = FetchDescriptor()) {
        self.store = store
        self.descriptor = descriptor
    }

    /// Fetches now and after every commit that could change the answer, until ``stop()``.
    public func start() {
        task?.cancel()
        let store = store, d = descriptor
        var all = d
        all.fetchLimit = nil
        all.fetchOffset = nil
        all.propertiesToFetch = [\Quake.id]
        task = Task { [weak self] in
            do {
                for try await update in store.results(for: d) {
                    let total = try await store.fetchCount(all)
                    guard let self, !Task.isCancelled else { return }
                    self.quakes = update.result
                    self.totalCount = total
                    self.generation = update.generation
                    self.error = nil
                }
            } catch {
                guard let self, !Task.isCancelled else { return }
                self.error = error as? QuakeError ?? QuakeError(.io, detail: "\(error)")
            }
        }
    }

    /// Stops following the store; the last answer stays.
    public func stop() {
        task?.cancel()
        task = nil
    }

    /// Whether the query is following the store.
    public var isRunning: Bool { task != nil }
}
