/// A verifier's verdict: the verified value, or why it was rejected.
///
/// Rejection is a value, not a thrown error, so every caller decides what a rejection
/// means for it (a 4xx, a retry, a log line) and cannot forget that it can happen.
public enum VerificationResult<Value: Sendable>: Sendable {
    /// The data is genuine and meant for this app and environment.
    case valid(Value)
    /// The data was rejected.
    case invalid(VerificationFailure)

    /// The verified value, or `nil` when rejected.
    public var value: Value? {
        if case .valid(let value) = self { return value }
        return nil
    }

    /// The failure, or `nil` when valid.
    public var failure: VerificationFailure? {
        if case .invalid(let failure) = self { return failure }
        return nil
    }

    /// The verified value.
    /// - Throws: the ``VerificationFailure`` when rejected.
    public func get() throws(VerificationFailure) -> Value {
        switch self {
        case .valid(let value): return value
        case .invalid(let failure): throw failure
        }
    }

    /// Transforms the verified value, keeping a failure as it is.
    public func map<T: Sendable>(_ transform: (Value) -> T) -> VerificationResult<T> {
        switch self {
        case .valid(let value): return .valid(transform(value))
        case .invalid(let failure): return .invalid(failure)
        }
    }
}

extension VerificationResult: Equatable where Value: Equatable {}
extension VerificationResult: Hashable where Value: Hashable {}
