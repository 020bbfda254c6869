import Foundation
import TallyKit
import Testing

/// The default sleep of `PurchaseManager` below iOS 16: `stop()` cancels the tasks sleeping on
/// it, and no wait a policy or a server can produce overflows it.
@Suite struct TaskSleepTests {
    @Test(arguments: [-1, 0, -.infinity, .nan] as [TimeInterval])
    func waitsOfNothingReturnAtOnce(seconds: TimeInterval) async throws {
        try await PurchaseManager.taskSleep(seconds)
    }

    @Test(arguments: [3600, .infinity, .greatestFiniteMagnitude] as [TimeInterval])
    func cancellingEndsTheSleepWithCancellationError(seconds: TimeInterval) async {
        let sleeper = Task { try await PurchaseManager.taskSleep(seconds) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
