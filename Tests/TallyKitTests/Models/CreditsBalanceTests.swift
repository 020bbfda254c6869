import Foundation
import TallyCore
import TallyKitTesting
import TallyTestSupport
import TallyTesting
import Testing

@testable import TallyKit

/// The credits header of an AI photo app: the balance counts up after a purchase and down after
/// a spend, in steps, and lands exactly on the balance.
@Suite(.timeLimit(.minutes(2))) struct CreditsBalanceTests {
    /// Records each pause and returns at once, so a count runs without waiting.
    final class Pauses: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [TimeInterval] = []
        var all: [TimeInterval] { lock.withLock { recorded } }
        func sleep(_ seconds: TimeInterval) async throws {
            lock.withLock { recorded.append(seconds) }
            await Task.yield()
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func aPackOfFiftyCountsUpInStepsAndASpendCountsDown() async throws {
        let device = try await Device()
        let database = try await device.database()
        let ledger = try await device.onDeviceLedger(database)
        let manager = try await device.launch(delivery: ledger, database: database, productIDs: ["com.tally.photo.credits.50"])
        let pauses = Pauses()
        let credits = CreditsBalanceModel(manager: manager, currency: "credits", duration: 0.6, steps: 12, sleep: pauses.sleep)
        var shown: [Int64] = []
        credits.onChange = { shown.append($0.displayed) }
        await credits.update()
        #expect(shown == [0], "the first balance shows at once")

        _ = try await manager.buy("com.tally.photo.credits.50")
        await eventually("the count up to 50") { credits.displayed == 50 && !credits.isAnimating }
        let counted = Array(shown.dropFirst())
        #expect(counted.count == 12, "\(counted)")
        #expect(counted == counted.sorted() && Set(counted).count == counted.count, "\(counted)")
        #expect(counted.last == 50)
        #expect(pauses.all.count == 12 && pauses.all.allSatisfy { abs($0 - 0.05) < 1e-9 }, "\(pauses.all)")

        shown = []
        _ = try await manager.spend("credits", amount: 3, reference: "photo-1", idempotencyKey: "photo-1")
        await eventually("the count down to 47") { credits.displayed == 47 && !credits.isAnimating }
        #expect(shown == [49, 48, 47])
        #expect(credits.balance == 47)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @MainActor
    @Test func framesLandOnTheBalanceWhateverTheDistance() {
        #expect(CreditsBalanceModel.frames(from: 2, to: 52, steps: 12).last == 52)
        #expect(CreditsBalanceModel.frames(from: 5, to: 5, steps: 12) == [5])
        #expect(CreditsBalanceModel.frames(from: 10, to: 7, steps: 12) == [9, 8, 7])
        let extreme = CreditsBalanceModel.frames(from: .min, to: .max, steps: 12)
        #expect(extreme == [.max], "a distance beyond 64 bits jumps rather than overflows")
        let wide = CreditsBalanceModel.frames(from: 0, to: .max, steps: 12)
        #expect(wide.count == 12 && wide.last == .max && wide == wide.sorted())
    }
}
