import Foundation

/// An error as a person sees it: a title, a message and one action.
public struct ErrorPresentation: Hashable, Sendable {
    /// What the button does.
    public enum Action: String, Hashable, Sendable {
        /// Do the same again ("Try Again").
        case tryAgain = "try_again"
        /// Dismiss ("OK").
        case ok
    }

    /// A short title.
    public let title: String
    /// What happened and what to do, one or two sentences.
    public let message: String
    /// The button.
    public let action: Action
    /// The button's label, in the same language.
    public let actionTitle: String
}

extension TallyError {
    /// The error for people, in `language`, from the string tables in `en.lproj` / `uk.lproj`.
    /// - Parameter language: English or Ukrainian.
    /// - Returns: title, message and action.
    public func presentation(in language: TallyLanguage) -> ErrorPresentation {
        let strings = LocalizedStrings.table(for: language)
        let key = Self.presentationKey(code)
        let action = Self.action(code)
        var message = strings[key + ".message"]
        if code == .insufficientCredits, let available {
            message += " " + strings.counted(currency == "seconds" ? "available.seconds" : "available.credits", count: available)
        }
        return ErrorPresentation(
            title: strings[key + ".title"], message: message, action: action,
            actionTitle: strings[action == .tryAgain ? "action.try_again" : "action.ok"])
    }

    /// Codes that share a message share a key.
    static func presentationKey(_ code: Code) -> String {
        switch code {
        case .networkUnavailable: "error.offline"
        case .networkError, .serverUnavailable, .rateLimited, .verificationUnavailable, .responseNotTrusted: "error.network"
        case .verificationFailed, .transactionBelongsToAnotherUser, .orderFailed: "error.verification"
        case .productNotFound: "error.product_not_found"
        case .paymentDeclined: "error.payment_declined"
        case .paymentNotAllowed: "error.payment_not_allowed"
        case .storeUnavailable: "error.store_unavailable"
        case .offerNotEligible: "error.offer_not_eligible"
        case .restoreFailed: "error.restore_failed"
        case .insufficientCredits: "error.insufficient_credits"
        case .purchaseInProgress: "error.purchase_in_progress"
        case .unusedCreditExists: "error.unused_credit"
        case .reservationClosed: "error.reservation_closed"
        case .configurationInvalid: "error.configuration_invalid"
        default: "error.generic"
        }
    }

    static func action(_ code: Code) -> ErrorPresentation.Action {
        switch code {
        // For verification_failed "Try Again" delivers the paid transaction again
        // (PaywallModel.tryAgain), it never buys again.
        case .networkUnavailable, .networkError, .serverUnavailable, .rateLimited, .verificationUnavailable, .responseNotTrusted,
            .verificationFailed, .restoreFailed, .orderFailed, .storageFailed, .storeUnavailable:
            .tryAgain
        default:
            .ok
        }
    }
}
