import Foundation

extension ConsumptionRequest {
    /// What the App Store would answer 400 for, one code per faulty field, in field order.
    ///
    /// A required field is faulty when it is missing or its value is not one Apple documents;
    /// ``customerConsented`` also when it is `false`; ``appAccountToken`` when it is neither
    /// empty nor a UUID. The optional ``refundPreference`` is faulty only when out of range;
    /// Apple documents no code for it, so it is ``APIErrorCode/generalBadRequest``.
    /// - Returns: The codes, empty when the request is valid. The App Store answers with one
    ///   of them; a simulated App Store should answer with the first.
    public func validationErrors() -> [APIErrorCode] {
        var errors: [APIErrorCode] = []
        func check(_ valid: Bool, _ code: APIErrorCode) { if !valid { errors.append(code) } }
        check(customerConsented == true, .invalidCustomerConsented)
        check(consumptionStatus.map { (0...3).contains($0.rawValue) } ?? false, .invalidConsumptionStatus)
        check(platform.map { (0...2).contains($0.rawValue) } ?? false, .invalidPlatform)
        check(sampleContentProvided != nil, .invalidSampleContentProvided)
        check(deliveryStatus.map { (0...5).contains($0.rawValue) } ?? false, .invalidDeliveryStatus)
        check(appAccountToken.map { $0.isEmpty || UUID(uuidString: $0) != nil } ?? false, .invalidAppAccountToken)
        check(accountTenure.map { (0...7).contains($0.rawValue) } ?? false, .invalidAccountTenure)
        check(playTime.map { (0...7).contains($0.rawValue) } ?? false, .invalidPlayTime)
        check(lifetimeDollarsRefunded.map { (0...7).contains($0.rawValue) } ?? false, .invalidLifetimeDollarsRefunded)
        check(lifetimeDollarsPurchased.map { (0...7).contains($0.rawValue) } ?? false, .invalidLifetimeDollarsPurchased)
        check(userStatus.map { (0...4).contains($0.rawValue) } ?? false, .invalidUserStatus)
        check(refundPreference.map { (0...3).contains($0.rawValue) } ?? true, .generalBadRequest)
        return errors
    }
}
