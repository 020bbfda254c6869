import Observation

/// How a model tells whoever shows it that it changed, on every system the package supports.
///
/// Each model (``ObservedModel``) keeps what it shows in one `State` value, read and written
/// through `state`, whose getter reports an access and whose setter reports a mutation here,
/// so that:
/// - with Observation (macOS 14, iOS 17 and later, and Linux) a SwiftUI view that reads the model
///   is redrawn when it changes (`@Observable` cannot be used below iOS 17); there is one key
///   path per model, so any change redraws every view that read the model, as with Combine;
/// - with Combine (iOS 13 and later) the model is an `ObservableObject` whose `@Published` storage
///   sends `objectWillChange`, for `@ObservedObject` and `@StateObject`;
/// - UIKit screens get the model's `onChange` callback.
struct ModelObservation: Sendable {
    // `ObservationRegistrar` exists from iOS 17 only, and a stored property cannot have a type
    // newer than its class.
    private let registrar: (any Sendable)?

    init() {
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
            registrar = ObservationRegistrar()
        } else {
            registrar = nil
        }
    }

    /// Reports that `model` was read at `keyPath`.
    func access<Model: AnyObject, Member>(_ model: Model, _ keyPath: KeyPath<Model, Member>) {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *), let registrar = registrar as? ObservationRegistrar,
            let observable = model as? any Observable
        else { return }
        func report<Subject: Observable>(_ subject: Subject) {
            guard let keyPath = keyPath as? KeyPath<Subject, Member> else { return }
            registrar.access(subject, keyPath: keyPath)
        }
        report(observable)
    }

    /// Runs `mutation`, reporting it as a change of `model` at `keyPath`.
    func withMutation<Model: AnyObject, Member>(of model: Model, _ keyPath: KeyPath<Model, Member>, _ mutation: () -> Void) {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *), let registrar = registrar as? ObservationRegistrar,
            let observable = model as? any Observable
        else { return mutation() }
        func report<Subject: Observable>(_ subject: Subject) {
            guard let keyPath = keyPath as? KeyPath<Subject, Member> else { return mutation() }
            registrar.withMutation(of: subject, keyPath: keyPath, mutation)
        }
        report(observable)
    }
}

/// A model whose shown state is observed through ``ModelObservation``: it declares its
/// `storage` (`@Published` where Combine exists) and its `observation`, and reads and writes
/// `state`.
@MainActor
protocol ObservedModel: AnyObject {
    associatedtype State
    /// What the model shows; only `state` touches it.
    var storage: State { get set }
    /// The model's registrar.
    var observation: ModelObservation { get }
}

extension ObservedModel {
    /// ``storage``, reported to Observation as it is read and written.
    var state: State {
        get {
            observation.access(self, \Self.storage)
            return storage
        }
        set { observation.withMutation(of: self, \Self.storage) { storage = newValue } }
    }
}
