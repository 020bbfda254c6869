public import Foundation
public import Observation
import TallyCore

#if canImport(Combine)
public import Combine
#endif

/// A balance for a credits header, for SwiftUI (Observation from iOS 17, `ObservableObject` from
/// iOS 13) and UIKit (``onChange``):
/// when the balance changes (a purchase, a spend, a refund) the shown number counts to the new
/// one in a few steps instead of jumping, and a change during the count goes on from where the
/// number is.
///
/// ```swift
/// let credits = CreditsBalanceModel(manager: manager, currency: "credits")
/// await credits.update()
/// Text("\(credits.displayed)")      // 2, 11, 19, … 52 after a pack of 50
/// ```
@MainActor
public final class CreditsBalanceModel: ObservedModel {
    /// What the model shows; see ``ModelObservation``.
    struct State {
        var displayed: Int64 = 0
        var balance: Int64 = 0
        var isAnimating = false
    }
    #if canImport(Combine)
    @Published var storage = State()
    #else
    var storage = State()
    #endif
    let observation = ModelObservation()

    /// The number to show now.
    public var displayed: Int64 { state.displayed }
    /// The balance the number is counting to: the available balance as last known.
    public var balance: Int64 { state.balance }
    /// Whether the number is counting.
    public var isAnimating: Bool { state.isAnimating }
    /// The shown number with its unit, in the language asked for ("52 credits", "52 кредити"); the
    /// number alone for a currency without texts.
    public func displayedText(in language: TallyLanguage) -> String {
        Self.text(state.displayed, currency: currency, language: language)
    }

    /// `amount` of `currency` in words, the number alone for a currency without texts.
    nonisolated static func text(_ amount: Int64, currency: String, language: TallyLanguage) -> String {
        let text = LocalizedStrings.table(for: language).counted("balance.\(currency)", count: amount)
        return text.hasPrefix("balance.") ? String(amount) : text
    }
    /// Called after every change of the shown number, for UIKit screens that do not observe.
    public var onChange: (@MainActor (CreditsBalanceModel) -> Void)?

    /// The currency shown.
    public let currency: String
    /// How long a count takes, in seconds.
    public let duration: TimeInterval
    /// In how many steps a count reaches the new balance (fewer when the change is smaller).
    public let steps: Int
    private let manager: PurchaseManager
    private let sleep: @Sendable (TimeInterval) async throws -> Void
    private var following: Task<Void, Never>?
    private var counting: Task<Void, Never>?
    private var loaded = false

    /// - Parameters:
    ///   - manager: the purchase manager.
    ///   - currency: the currency to show.
    ///   - duration: how long a count takes; 0.6 seconds by default.
    ///   - steps: in how many steps; 12 by default.
    ///   - sleep: waits between steps; `Task.sleep` by default (tests pass their own).
    public init(
        manager: PurchaseManager, currency: String, duration: TimeInterval = 0.6, steps: Int = 12,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = PurchaseManager.taskSleep
    ) {
        self.manager = manager
        self.currency = currency
        self.duration = max(0, duration)
        self.steps = max(1, steps)
        self.sleep = sleep
    }

    /// Shows the balance at once (no count the first time), and from then on counts to each new one.
    /// - Parameter policy: how fresh the state must be; the cache first by default.
    public func update(policy: FetchPolicy = .cachedOrFetched) async {
        if let state = try? await manager.account(policy) { show(state.balance(currency).available) }
        guard following == nil else { return }
        let updates = manager.accountUpdates()
        following = Task { [weak self] in
            for await state in updates {
                guard let self else { return }
                self.show(state.balance(self.currency).available)
            }
        }
    }

    /// Stops following the account; a count under way ends at its target.
    public func stop() {
        following?.cancel()
        following = nil
    }

    /// The shown numbers from `start` to `end`, the last one `end`: at most `steps`, evenly spaced.
    static func frames(from start: Int64, to end: Int64, steps: Int) -> [Int64] {
        let distance = end.subtractingReportingOverflow(start)
        guard !distance.overflow, distance.partialValue != 0 else { return [end] }
        let count = Int(min(UInt64(max(1, steps)), distance.partialValue.magnitude))
        return (1...count).map { step in
            step == count ? end : start + Int64((Double(distance.partialValue) * Double(step) / Double(count)).rounded(.towardZero))
        }
    }

    private func show(_ available: Int64) {
        guard loaded else {
            loaded = true
            state.balance = available
            state.displayed = available
            onChange?(self)
            return
        }
        guard available != balance else { return }
        state.balance = available
        counting?.cancel()
        let frames = Self.frames(from: displayed, to: available, steps: steps)
        let pause = duration / Double(frames.count)
        state.isAnimating = true
        counting = Task { [weak self, sleep] in
            for frame in frames {
                do { try await sleep(pause) } catch { return }
                guard let self, !Task.isCancelled else { return }
                self.state.displayed = frame
                self.onChange?(self)
            }
            self?.state.isAnimating = false
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension CreditsBalanceModel: Observable {}

#if canImport(Combine)
extension CreditsBalanceModel: ObservableObject {}
#endif
