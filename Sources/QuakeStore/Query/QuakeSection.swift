import QuakeFormat
/// One section of ``Store/fetchSections(_:by:limitPerSection:)``, as SwiftData's sectioned
/// results have them: an `id` (the section key, nil for the null group) and its elements,
/// in the descriptor's order. The section is a collection of those elements; `totalCount` is
/// how many events the section holds in all, which can exceed the elements shown.
public struct QuakeSection: Identifiable, RandomAccessCollection, Sendable {
    /// The section key: a day (`2024-06-15`), a month (`2024-06`), a net, a magType, ...
    public let id: String?
    /// The events shown, at most `limitPerSection` of them, in the descriptor's order.
    public let elements: [Quake]
    /// Every event in the section, shown or not.
    public let totalCount: Int

    package init(id: String?, elements: [Quake], totalCount: Int) {
        self.id = id
        self.elements = elements
        self.totalCount = totalCount
    }

    /// The position of the first event shown: 0.
    public var startIndex: Int { elements.startIndex }
    /// One past the position of the last event shown: the number of events shown.
    public var endIndex: Int { elements.endIndex }
    /// The event shown at `position`, in the descriptor's order.
    public subscript(position: Int) -> Quake { elements[position] }
}
