import QuakeFormat
/// One section of ``Store/fetchSections(_:by:limitPerSection:)``, as SwiftData's sectioned
/// results have them: an `id` (the section key, nil for the null group) and its elements,
/// in the descriptor's order. The section is a collection of those elements; `totalCount` is
/// how many events the section holds in all, which can exceed the elements shown.
public struct QuakeSection: Identifiable, RandomAccessCollection, Sendable {
    /// The section key: a day (`2024-06-15`), a month (`2024-06`), a net, a magType, ...
    public let id: String?
    /// The events shown, at most `limitPerSection` of them.
    public let elements: [Quake]
    /// Every event in the section, shown or not.
    public let totalCount: Int

    package init(id: String?, elements: [Quake], totalCount: Int) {
        self.id = id
        self.elements = elements
        self.totalCount = totalCount
    }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Quake { elements[position] }
}
