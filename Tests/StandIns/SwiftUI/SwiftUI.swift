// Stand-in declarations of the SwiftUI API that TallyUI and the example apps use, with Apple's
// names, labels and types, so that they typecheck on Linux (scripts/check_apple_sources.sh).
// Modifiers return concrete types where Apple's return `some View`; callers cannot tell. Nothing
// here runs. Each declaration carries Apple's availability on the five platforms the package
// declares (Tests/StandIns/AVAILABILITY.md); members share their type's or extension's unless
// they say otherwise.
import Combine
import Foundation
import Observation
import UIKit

// MARK: Views and their builder

// Apple: swiftui/view
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor var body: Body { get }
}

// Apple: swiftui/never (page not re-read)
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/viewbuilder
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@resultBuilder
public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
        fatalError("stand-in")
    }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> {
        fatalError("stand-in")
    }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> {
        fatalError("stand-in")
    }
}

// Apple: swiftui/emptyview
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct EmptyView: View {
    public init() {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/tupleview
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct TupleView<T>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/_conditionalcontent (page not re-read)
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/swift/optional (page not re-read)
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension Optional: View where Wrapped: View {
    public var body: Never { fatalError("stand-in") }
}

/// What a modifier returns here; Apple's return `some View` or a `ModifiedContent`.
// Apple: swiftui/modifiedcontent
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct ModifiedContent<Content, Modifier>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/viewmodifier
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct _StandInModifier {}

// MARK: Values

// Apple: swiftui/horizontalalignment
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public enum HorizontalAlignment: Sendable { case leading, center, trailing }
// Apple: swiftui/verticalalignment
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public enum VerticalAlignment: Sendable { case top, center, bottom }
// Apple: swiftui/alignment
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Alignment: Sendable {
    public static let center = Alignment()
    public static let leading = Alignment()
}

// Apple: swiftui/edge
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public enum Edge: Sendable {
    public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let horizontal = Set(rawValue: 1)
        public static let vertical = Set(rawValue: 2)
        public static let all = Set(rawValue: 3)
    }
}

// Apple: swiftui/axis
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public enum Axis: Sendable {
    public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let horizontal = Set(rawValue: 1)
        public static let vertical = Set(rawValue: 2)
    }
}

// Apple: swiftui/font
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Font: Hashable, Sendable {
    public static let largeTitle = Font()
    public static let title = Font()
    public static let headline = Font()
    public static let subheadline = Font()
    public static let body = Font()
    public static let footnote = Font()
    public static let caption = Font()
}

// Apple: swiftui/shapestyle
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public protocol ShapeStyle {}

// Apple: swiftui/color
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Color: View, ShapeStyle, Hashable, Sendable {
    public static let accentColor = Color()
    public static let white = Color()
    public static let secondary = Color()
    public static let red = Color()
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/localizedstringkey
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct LocalizedStringKey: ExpressibleByStringInterpolation, Sendable {
    public init(_ value: String) {}
    public init(stringLiteral value: String) {}
}

// MARK: Views

// Apple: swiftui/text
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Text: View, Sendable {
    public init<S: StringProtocol>(_ content: S) {}
    public init(verbatim content: String) {}
    public init(_ key: LocalizedStringKey) {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/vstack
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct VStack<Content: View>: View {
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/hstack
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct HStack<Content: View>: View {
    public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/scrollview
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct ScrollView<Content: View>: View {
    public init(_ axes: Axis.Set = .vertical, showsIndicators: Bool = true, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/list
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct List<SelectionValue: Hashable, Content: View>: View {
    public init(@ViewBuilder content: () -> Content) where SelectionValue == Never {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/section
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Section<Parent, Content, Footer>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/section
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension Section where Parent: View, Content: View, Footer == EmptyView {
    public init(header: Parent, @ViewBuilder content: () -> Content) {}
}

// Apple: swiftui/navigationview
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 7, visionOS 1, *)
public struct NavigationView<Content: View>: View {
    public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/foreach
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/foreach
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension ForEach where Content: View {
    public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) where ID == Data.Element.ID, Data.Element: Identifiable {}
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content) {}
}

// Apple: swiftui/button
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Button<Label: View>: View {
    public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/button
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension Button where Label == Text {
    public init<S: StringProtocol>(_ title: S, action: @escaping @MainActor () -> Void) {}
}

// Apple: swiftui/link
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct Link<Label: View>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/link
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
extension Link where Label == Text {
    public init<S: StringProtocol>(_ title: S, destination: URL) {}
}

// Apple: swiftui/progressview
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct ProgressView<Label: View, CurrentValueLabel: View>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/progressview
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
extension ProgressView where Label == EmptyView, CurrentValueLabel == EmptyView {
    public init() {}
}

// Apple: swiftui/spacer
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Spacer: View {
    public init(minLength: CGFloat? = nil) {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/shape
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public protocol Shape: View {}

// Apple: swiftui/capsule
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Capsule: Shape {
    public init() {}
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/shape/fill(_:style:) (page not re-read) -- the page found, -3y2ud, is the iOS 17 overload returning _ShapeView; this iOS 13 form has no page
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension Shape {
    public func fill<S: ShapeStyle>(_ content: S) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
}

// MARK: Alerts

// Apple: swiftui/alert
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct Alert {
    public struct Button {
        public static func `default`(_ label: Text, action: (() -> Void)? = {}) -> Alert.Button { fatalError("stand-in") }
        public static func cancel(_ label: Text, action: (() -> Void)? = {}) -> Alert.Button { fatalError("stand-in") }
        public static func cancel(_ action: (() -> Void)? = {}) -> Alert.Button { fatalError("stand-in") }
    }
    public init(title: Text, message: Text? = nil, dismissButton: Alert.Button? = nil) {}
    public init(title: Text, message: Text? = nil, primaryButton: Alert.Button, secondaryButton: Alert.Button) {}
}

// MARK: Modifiers

// Apple: swiftui/view
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension View {
    public func font(_ font: Font?) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func foregroundColor(_ color: Color?) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func padding(_ length: CGFloat) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func frame(
        minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil, minHeight: CGFloat? = nil,
        idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center
    ) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func disabled(_ disabled: Bool) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func background<Background: View>(_ background: Background, alignment: Alignment = .center) -> ModifiedContent<Self, _StandInModifier> {
        fatalError("stand-in")
    }
    public func onAppear(perform action: (() -> Void)? = nil) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func onDisappear(perform action: (() -> Void)? = nil) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func alert(isPresented: Binding<Bool>, content: () -> Alert) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    public func sheet<Content: View>(
        isPresented: Binding<Bool>, onDismiss: (() -> Void)? = nil, @ViewBuilder content: @escaping () -> Content
    )
        -> ModifiedContent<Self, _StandInModifier>
    { fatalError("stand-in") }
    // Apple: swiftui/view/navigationtitle(_:)-43srq
    @available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
    public func navigationTitle<S: StringProtocol>(_ title: S) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
    // Apple: swiftui/view/task(name:priority:file:line:_:) (its iOS 15 form, task(priority:_:))
    @available(iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1, *)
    public func task(
        priority: TaskPriority = .userInitiated, _ action: @escaping @Sendable () async -> Void
    )
        -> ModifiedContent<Self, _StandInModifier>
    { fatalError("stand-in") }
    public func environmentObject<T: ObservableObject>(_ object: T) -> ModifiedContent<Self, _StandInModifier> { fatalError("stand-in") }
}

// MARK: State and the environment

// Apple: swiftui/binding
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@propertyWrapper @dynamicMemberLookup
public struct Binding<Value> {
    @preconcurrency public init(get: @escaping @isolated(any) @Sendable () -> Value, set: @escaping @isolated(any) @Sendable (Value) -> Void) {}
    public var wrappedValue: Value {
        get { fatalError("stand-in") }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> { fatalError("stand-in") }
}

/// Sendable when its value is, as Apple's.
// Apple: swiftui/binding
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension Binding: Sendable where Value: Sendable {}

// Apple: swiftui/state
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@propertyWrapper
public struct State<Value> {
    public init(wrappedValue value: Value) {}
    public var wrappedValue: Value {
        get { fatalError("stand-in") }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { fatalError("stand-in") }
}

// Apple: swiftui/observedobject
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@MainActor @preconcurrency @propertyWrapper
public struct ObservedObject<ObjectType: ObservableObject> {
    public init(wrappedValue: ObjectType) {}
    public var wrappedValue: ObjectType {
        get { fatalError("stand-in") }
        set {}
    }
}

// Apple: swiftui/stateobject
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
@MainActor @preconcurrency @propertyWrapper
public struct StateObject<ObjectType: ObservableObject> {
    public init(wrappedValue thunk: @autoclosure @escaping () -> ObjectType) {}
    public var wrappedValue: ObjectType { fatalError("stand-in") }
}

// Apple: swiftui/environmentobject
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@MainActor @preconcurrency @propertyWrapper
public struct EnvironmentObject<ObjectType: ObservableObject> {
    public init() {}
    public var wrappedValue: ObjectType { fatalError("stand-in") }
}

// Apple: swiftui/openurlaction
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct OpenURLAction {
    public func callAsFunction(_ url: URL) {}
}

// Apple: swiftui/environmentvalues
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct EnvironmentValues {
    // Apple: swiftui/environmentvalues/openurl
    @available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
    public var openURL: OpenURLAction { fatalError("stand-in") }
}

// Apple: swiftui/environment
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@propertyWrapper
public struct Environment<Value> {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { fatalError("stand-in") }
}

// Apple: swiftui/bindable
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
@propertyWrapper @dynamicMemberLookup
public struct Bindable<Value> {
    public init(wrappedValue: Value) where Value: AnyObject, Value: Observable {}
    public var wrappedValue: Value {
        get { fatalError("stand-in") }
        set {}
    }
    public var projectedValue: Bindable<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<Value, Subject>) -> Binding<Subject> where Value: AnyObject {
        fatalError("stand-in")
    }
}

// Apple: swiftui/textfield
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public struct TextField<Label: View>: View {
    public var body: Never { fatalError("stand-in") }
}

// Apple: swiftui/textfield
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension TextField where Label == Text {
    public init<S: StringProtocol>(_ title: S, text: Binding<String>) {}
}

// MARK: Apps

// Apple: swiftui/app
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
@MainActor @preconcurrency
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor var body: Body { get }
    init()
}

// Apple: swiftui/app/main()
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
extension App {
    @MainActor public static func main() {}
}

// Apple: swiftui/scene
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
@MainActor @preconcurrency
public protocol Scene {}

// Apple: swiftui/scenebuilder
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
@resultBuilder
public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

// Apple: swiftui/windowgroup
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, visionOS 1, *)
public struct WindowGroup<Content: View>: Scene {
    public init(@ViewBuilder content: () -> Content) {}
}

// Apple: swiftui/previewprovider
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@MainActor @preconcurrency
public protocol PreviewProvider {
    associatedtype Previews: View
    @ViewBuilder @MainActor static var previews: Previews { get }
}

// MARK: UIKit

// Apple: swiftui/uihostingcontroller
@available(iOS 13, tvOS 13, visionOS 1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
@MainActor @preconcurrency
open class UIHostingController<Content: View>: UIViewController {
    public init(rootView: Content) { super.init(nibName: nil, bundle: nil) }
    public required init?(coder aDecoder: NSCoder) { fatalError("stand-in") }
    public var rootView: Content {
        get { fatalError("stand-in") }
        set {}
    }
}
