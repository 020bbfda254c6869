/// What to show when a spend finds too few credits: a title, a message with the balance, and
/// two buttons, one that opens the paywall and one that closes the alert. SwiftUI's `.alert` and
/// UIKit's `UIAlertController` take it as it is.
///
/// ```swift
/// do { try await manager.spend("credits", amount: 3, reference: id, idempotencyKey: key) }
/// catch let error as TallyError {
///     if let alert = InsufficientCreditsAlert(error, language: .ukrainian) { present(alert) } else { … }
/// }
/// ```
public struct InsufficientCreditsAlert: Sendable, Hashable {
    /// The title ("Not enough credits").
    public let title: String
    /// What happened, with the balance when the error carries it ("Top up to continue. You have 2 credits.").
    public let message: String
    /// The button that opens the paywall ("Buy Credits").
    public let buyTitle: String
    /// The button that closes the alert ("Not Now").
    public let cancelTitle: String
    /// The currency that is short, to open the paywall on its products.
    public let currency: String?

    /// The alert for an `insufficient_credits` error; `nil` for any other error.
    /// - Parameters:
    ///   - error: the error a spend threw.
    ///   - language: English or Ukrainian.
    public init?(_ error: TallyError, language: TallyLanguage) {
        guard error.code == .insufficientCredits else { return nil }
        let presentation = error.presentation(in: language)
        let strings = LocalizedStrings.table(for: language)
        title = presentation.title
        message = presentation.message
        buyTitle = strings[error.currency == "seconds" ? "alert.insufficient.buy.time" : "alert.insufficient.buy"]
        cancelTitle = strings["alert.insufficient.cancel"]
        currency = error.currency
    }
}
