public import Hummingbird
public import TallyCore

// The API's answers, written by the context's ``TallyResponseEncoder``; the account, a
// purchase's and a spend's without `JSONEncoder` (`ResponseJSON`).

extension AccountResponse: @retroactive ResponseEncodable {}
extension CreateUserResponse: @retroactive ResponseEncodable {}
extension ProductsResponse: @retroactive ResponseEncodable {}
extension Order: @retroactive ResponseEncodable {}
extension PurchaseResponse: @retroactive ResponseEncodable {}
extension RestoreResponse: @retroactive ResponseEncodable {}
extension LedgerPage: @retroactive ResponseEncodable {}
extension SpendResponse: @retroactive ResponseEncodable {}
extension Reservation: @retroactive ResponseEncodable {}
extension AdminAdjustment: ResponseEncodable {}
extension AdminUser: ResponseEncodable {}
extension AdminTransactionPage: ResponseEncodable {}
extension AdminNotificationPage: ResponseEncodable {}
extension MetricsReport: ResponseEncodable {}
extension WebhookEndpoint: ResponseEncodable {}
extension WebhookDelivery: ResponseEncodable {}
extension WebhookDeliveryPage: ResponseEncodable {}
extension TallyEventPage: ResponseEncodable {}
extension WebhookController.EndpointList: ResponseEncodable {}
extension WebhookController.AttemptList: ResponseEncodable {}
