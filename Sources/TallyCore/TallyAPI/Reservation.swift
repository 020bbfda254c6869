public import Foundation

/// `POST /v1/me/reservations`.
public struct ReservationRequest: Codable, Hashable, Sendable {
    public var currency: String
    public var amount: Int64
    /// How long the hold lasts before it releases itself.
    public var ttlSeconds: Int64
    public var idempotencyKey: String
    /// Creates the request.
    public init(currency: String, amount: Int64, ttlSeconds: Int64, idempotencyKey: String) {
        self.currency = currency
        self.amount = amount
        self.ttlSeconds = ttlSeconds
        self.idempotencyKey = idempotencyKey
    }
}

/// `POST /v1/me/reservations/{id}/commit`.
public struct CommitReservationRequest: Codable, Hashable, Sendable {
    /// How much was actually used; the rest returns.
    public var used: Int64
    /// Creates the request.
    public init(used: Int64) { self.used = used }
}

/// A reservation (a hold) and its state.
public struct Reservation: Codable, Hashable, Sendable {
    public var reservationID: String
    public var currency: String
    public var amount: Int64
    public var fromAllowance: Int64
    public var fromBalance: Int64
    /// Where it stands.
    public var status: ReservationStatus
    public var used: Int64?
    public var expiresAt: Date
    public var balance: Balance
    /// True when the idempotency key was seen before.
    public var replayed: Bool

    /// Creates a value with every field.
    public init(
        reservationID: String, currency: String, amount: Int64, fromAllowance: Int64, fromBalance: Int64, status: ReservationStatus, used: Int64? = nil,
        expiresAt: Date, balance: Balance, replayed: Bool
    ) {
        self.reservationID = reservationID
        self.currency = currency
        self.amount = amount
        self.fromAllowance = fromAllowance
        self.fromBalance = fromBalance
        self.status = status
        self.used = used
        self.expiresAt = expiresAt
        self.balance = balance
        self.replayed = replayed
    }
}
