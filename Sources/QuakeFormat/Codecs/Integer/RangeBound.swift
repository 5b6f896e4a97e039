/// One end of a numeric range, as a range kernel takes it: the value and whether it is included.
/// The filter IR above names it `RangeBound`; the codecs compare encoded values against it.
package struct RangeBound: Sendable, Equatable {
    package var value: Double
    package var inclusive: Bool
    package init(_ value: Double, inclusive: Bool = true) {
        self.value = value
        self.inclusive = inclusive
    }
}
