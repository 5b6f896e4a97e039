/// Which groups of an aggregate to return and in what order: a condition on the groups'
/// metrics (SQL's `HAVING`), sort keys (group keys or metrics, each ascending or descending,
/// then the group keys ascending), and a limit.
package struct AggregateOrder: Sendable {
    /// What a sort key sorts by: the position of a group key or of a metric.
    package enum Target: Sendable, Equatable {
        case key(Int)
        case metric(Int)
    }

    package var keys: [(target: Target, ascending: Bool)] = []
    package var having: GroupCondition?
    package var limit: Int?

    package init(keys: [(target: Target, ascending: Bool)] = [], having: GroupCondition? = nil, limit: Int? = nil) {
        self.keys = keys
        self.having = having
        self.limit = limit
    }
}
