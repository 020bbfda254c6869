import Foundation

/// A value that changes, read as any number of `AsyncStream`s that each start with the
/// latest value.
final class Broadcast<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var latest: Value?
    private var continuations: [UUID: AsyncStream<Value>.Continuation] = [:]

    var value: Value? { lock.withLock { latest } }

    func publish(_ value: Value) {
        let targets = lock.withLock {
            latest = value
            return Array(continuations.values)
        }
        for continuation in targets { continuation.yield(value) }
    }

    func stream() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let current = lock.withLock {
            continuations[id] = continuation
            return latest
        }
        if let current { continuation.yield(current) }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func finish() {
        let targets = lock.withLock {
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
