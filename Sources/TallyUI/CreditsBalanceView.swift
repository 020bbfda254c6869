#if canImport(SwiftUI)
public import SwiftUI
public import TallyKit

/// A credits header over a ``TallyKit/CreditsBalanceModel``: the balance with its unit ("52
/// credits"), counting to each new balance after a purchase or a spend. It follows the account
/// while it is on screen.
///
/// ```swift
/// @StateObject var credits = CreditsBalanceModel(manager: manager, currency: "credits")
/// CreditsBalanceView(model: credits, language: .ukrainian)
/// ```
@available(iOS 14, macOS 11, tvOS 14, watchOS 7, *)
@MainActor
public struct CreditsBalanceView: View {
    @ObservedObject private var model: CreditsBalanceModel
    private let language: TallyLanguage

    /// - Parameters:
    ///   - model: the balance; the view starts and stops following the account with its appearance.
    ///   - language: the language of the unit.
    public init(model: CreditsBalanceModel, language: TallyLanguage = .preferred) {
        self.model = model
        self.language = language
    }

    public var body: some View {
        Text(model.displayedText(in: language))
            .font(.headline)
            .onAppear { Task { await model.update() } }
            .onDisappear { model.stop() }
    }
}
#endif
