/// The body of a Send Consumption Information (v1) request
/// (`PUT /inApps/v1/transactions/consumption/{transactionID}`): what the app knows about a
/// purchase whose refund the customer asked for, sent after a `CONSUMPTION_REQUEST` notification.
///
/// Apple's `ConsumptionRequestV1`. Every field but ``refundPreference`` is required; send
/// `.undeclared` for what you choose not to share, and an empty ``appAccountToken`` when the
/// purchase has none. ``validationErrors()`` lists what the App Store would refuse.
///
/// ```swift
/// var request = ConsumptionRequest()
/// request.customerConsented = true
/// request.consumptionStatus = .fullyConsumed
/// request.deliveryStatus = .deliveredAndWorkingProperly
/// // ... the other required fields ...
/// precondition(request.validationErrors().isEmpty)
/// let body = try AppStoreJSON.encoder().encode(request)
/// ```
public struct ConsumptionRequest: Codable, Hashable, Sendable {
    /// Whether the customer consented to share consumption data; must be `true`.
    public var customerConsented: Bool?
    /// How much of the purchase the customer consumed.
    public var consumptionStatus: ConsumptionStatus?
    /// The platform the customer consumed the purchase on.
    public var platform: Platform?
    /// Whether the app offered a free sample, trial or description of the content before purchase.
    public var sampleContentProvided: Bool?
    /// Whether the app delivered the purchase and it works.
    public var deliveryStatus: DeliveryStatus?
    /// The purchase's app account token (a UUID), or an empty string when it has none.
    public var appAccountToken: String?
    /// The age of the customer's account in the app.
    public var accountTenure: AccountTenure?
    /// How long the customer used the app.
    public var playTime: PlayTime?
    /// The customer's total refunds in the app, in USD, across platforms.
    public var lifetimeDollarsRefunded: LifetimeDollars?
    /// The customer's total purchases in the app, in USD, across platforms.
    public var lifetimeDollarsPurchased: LifetimeDollars?
    /// The status of the customer's account in the app.
    public var userStatus: UserStatus?
    /// Whether the app would rather Apple grant or decline the refund; optional.
    public var refundPreference: RefundPreference?

    /// An empty request; set the fields you need.
    public init() {}
}
