import TallyCore

// What a purchase and a spend answer, and an event's data: each is written three times or so
// per request (the answer, the copy kept for replays, the event), so without `JSONEncoder`.
// Members in the order `.sortedKeys` gives their snake_case keys; `ResponseJSONTests` checks
// each against `TallyAPI.encoder()`.

extension Amount: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("amount", amount)
            json.field("currency", currency)
        }
    }
}

/// What a transaction grants, kept with it (`grants_json`).
extension Array: ResponseJSONWritable where Element: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.array(self) { json, element in element.write(to: &json) }
    }
}

extension PurchaseResponse: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("balances", balances)
            json.field("entitlements", entitlements)
            json.field("granted", granted)
            json.field("product_id", productID)
            json.field("replayed", replayed)
            json.field("transaction_id", transactionID)
        }
    }
}

extension SpendResponse: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("amount", amount)
            json.field("balance", balance)
            json.field("currency", currency)
            json.field("from_allowance", fromAllowance)
            json.field("from_balance", fromBalance)
            json.field("replayed", replayed)
            json.field("spend_id", spendID)
        }
    }
}

extension TallyEventData: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("actor", actor)
            json.field("amount", amount)
            json.field("amounts", amounts)
            json.field("app_user_id", appUserID)
            json.field("clawed_back", clawedBack)
            json.field("currency", currency)
            json.field("entitlements", entitlements)
            json.field("environment", environment)
            json.field("expires_at", expiresAt)
            json.field("notification_type", notificationType)
            json.field("original_transaction_id", originalTransactionID)
            json.field("price", price)
            json.field("price_currency", priceCurrency)
            json.field("product_id", productID)
            json.field("product_kind", productKind)
            json.field("quantity", quantity)
            json.field("reason", reason)
            json.field("reference", reference)
            json.field("reservation_id", reservationID)
            json.field("source", source)
            json.field("spend_id", spendID)
            json.field("storefront", storefront)
            json.field("subtype", subtype)
            json.field("transaction_id", transactionID)
            json.field("used", used)
            json.field("user_id", userID)
        }
    }
}

extension TallyEventData.ClawedBack: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("currency", currency)
            json.field("debt", debt)
            json.field("removed", removed)
        }
    }
}
