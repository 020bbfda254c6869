// Stand-in declarations of the Combine API that TallyKit uses (ObservableObject for SwiftUI
// below iOS 17), with Apple's names and shapes, so that the Apple-only sources typecheck on Linux
// (scripts/check_apple_sources.sh), with Apple's availability (Tests/StandIns/AVAILABILITY.md).
// Nothing here runs.

// Apple: combine/publisher
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
}

// Apple: combine/observableobjectpublisher
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public final class ObservableObjectPublisher: Publisher {
    public typealias Output = Void
    public typealias Failure = Never
    public init() {}
    public func send() {}
}

// Apple: combine/observableobject
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher where ObjectWillChangePublisher.Failure == Never
    var objectWillChange: ObjectWillChangePublisher { get }
}

// Apple: combine/observableobject/objectwillchange-5gopl
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    public var objectWillChange: ObservableObjectPublisher { fatalError("stand-in") }
}

/// Only on properties of classes, as Apple's: the enclosing instance is reached through the
/// static subscript, and `wrappedValue` is unavailable.
// Apple: combine/published
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1, *)
@propertyWrapper
public struct Published<Value> {
    public init(wrappedValue: Value) {}

    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError("stand-in") }
        set {}
    }

    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { fatalError("stand-in") }
        set {}
    }
}
