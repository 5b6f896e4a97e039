// The SwiftUI names that the DocC articles' SwiftUI code uses, for compiling that code where there
// is no SwiftUI (Linux): shapes only, so that the QuakeStore calls inside a view are type-checked.
// Nothing here draws or runs. On Apple platforms the snippets import SwiftUI itself.
@_exported import Foundation
@_exported import Observation

/// SwiftUI's `View`: a main-actor type with a `body` built by ``ViewBuilder``.
@MainActor
@preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}

extension Never: View {
    public var body: Never { return fatalError("a stand-in view has no body") }
}

/// What every stand-in view, modifier and builder returns.
public struct StandInView: View {
    public var body: Never { return fatalError("a stand-in view has no body") }
    nonisolated public init() {}
}

/// SwiftUI's view builder, for the shapes the articles use: a block of views and `if`.
@resultBuilder
public enum ViewBuilder {
    public static func buildExpression(_ view: some View) -> StandInView { StandInView() }
    public static func buildBlock(_ views: StandInView...) -> StandInView { StandInView() }
    public static func buildOptional(_ view: StandInView?) -> StandInView { StandInView() }
    public static func buildEither(first view: StandInView) -> StandInView { StandInView() }
    public static func buildEither(second view: StandInView) -> StandInView { StandInView() }
}

/// SwiftUI's `@State`.
@propertyWrapper
public struct State<Value> {
    private final class Box {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private let box: Box

    public init(wrappedValue: Value) { box = Box(wrappedValue) }
    public init(initialValue: Value) { box = Box(initialValue) }

    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }
}

/// SwiftUI's `Text` of a string.
public struct Text: View {
    public var body: Never { return fatalError("a stand-in view has no body") }
    public init(_ content: some StringProtocol) {}
}

/// SwiftUI's `HStack`.
public struct HStack: View {
    public var body: Never { return fatalError("a stand-in view has no body") }
    public init(@ViewBuilder content: () -> some View) {}
}

/// SwiftUI's `List` of identifiable rows.
public struct List: View {
    public var body: Never { return fatalError("a stand-in view has no body") }
    public init<Data: RandomAccessCollection>(
        _ data: Data,
        @ViewBuilder rowContent: @escaping (Data.Element) -> some View
    ) where Data.Element: Identifiable {}
}

extension View {
    public func navigationTitle(_ title: some StringProtocol) -> StandInView { StandInView() }
    public func overlay(@ViewBuilder content: () -> some View) -> StandInView { StandInView() }
    public func onAppear(perform action: (() -> Void)? = nil) -> StandInView { StandInView() }
    public func onDisappear(perform action: (() -> Void)? = nil) -> StandInView { StandInView() }
}
