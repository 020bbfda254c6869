public import Testing

/// Waits until `condition` holds, checking it again after each short pause, for at most
/// `limit`: a bound for a run that fails, not a measure of speed. When the limit passes first it
/// records an issue naming what was awaited and returns false, so that the test fails there
/// instead of waiting for ever.
///
/// ```swift
/// _ = try await manager.buy("com.tally.photo.credits.50")
/// await eventually("the header counts up to 50") { credits.displayed == 50 && !credits.isAnimating }
/// ```
/// - Parameters:
///   - what: what is awaited, for the issue.
///   - limit: how long to wait at most.
///   - isolation: the caller's actor, where `condition` runs (a model on the main actor, say).
///   - sourceLocation: where the wait is, for the issue.
///   - condition: what must hold.
/// - Returns: whether it held before the limit.
/// - Throws: what `condition` throws.
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
@discardableResult
public func eventually(
    _ what: @autoclosure () -> String = "the condition", within limit: Duration = .seconds(30),
    isolation: isolated (any Actor)? = #isolation, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    var checks = 0
    while try await !condition() {
        guard clock.now < deadline else {
            Issue.record("\(what()) did not happen within \(limit)", sourceLocation: sourceLocation)
            return false
        }
        // A test cancelled (its time limit passed) stops waiting, rather than checking with no pause.
        guard !Task.isCancelled else {
            Issue.record("\(what()) was still awaited when the test was cancelled", sourceLocation: sourceLocation)
            return false
        }
        // Yields first (most waits end within a few), then pauses a millisecond between checks,
        // so that a long wait leaves the cores to the work it waits for.
        checks += 1
        if checks < 100 {
            await Task.yield()
        } else {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    return true
}
