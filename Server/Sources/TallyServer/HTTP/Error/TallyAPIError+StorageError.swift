extension TallyAPIError {
    /// A storage refusal as the API answers it: the code of the same name (and so its status),
    /// the same message and, for `insufficient_credits`, what is available.
    /// - Parameter error: what storage refused.
    public init(_ error: StorageError) {
        let code: Code =
            switch error.code {
            case .invalidRequest: .invalidRequest
            case .invalidAmount: .invalidAmount
            case .unknownCurrency: .unknownCurrency
            case .unknownProduct: .unknownProduct
            case .invalidIdempotencyKey: .invalidIdempotencyKey
            case .insufficientCredits: .insufficientCredits
            case .notFound: .notFound
            case .transactionBelongsToAnotherUser: .transactionBelongsToAnotherUser
            case .idempotencyKeyReused: .idempotencyKeyReused
            case .orderMismatch: .orderMismatch
            case .reservationClosed: .reservationClosed
            case .usedExceedsReservation: .usedExceedsReservation
            case .conflict: .conflict
            }
        self.init(code, error.message, file: error.file, line: error.line)
        available = error.available
        currency = error.currency
    }
}
