import TallyCore

// The answer to `GET /v1/me` and its parts, members in the order `.sortedKeys` gives their
// snake_case keys. `ResponseJSONTests` checks each against `TallyAPI.encoder()`.

extension AccountResponse: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("app_account_token", appAccountToken)
            json.field("balances", balances)
            json.field("entitlements", entitlements)
            json.field("subscriptions", subscriptions)
            json.field("user_id", userID)
        }
    }
}

extension Balance: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("allowance", allowance)
            json.field("available", available)
            json.field("currency", currency)
            json.field("debt", debt)
            json.field("held", held)
            json.field("spendable", spendable)
        }
    }
}

extension Balance.AllowanceState: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("granted", granted)
            json.field("held", held)
            json.field("period_end", periodEnd)
            json.field("used", used)
        }
    }
}

extension Entitlement: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("active", active)
            json.field("expires_at", expiresAt)
            json.field("id", id)
            json.field("in_grace_period", inGracePeriod)
            json.field("product_id", productID)
            json.field("will_renew", willRenew)
        }
    }
}

extension SubscriptionInfo: ResponseJSONWritable {
    func write(to json: inout ResponseJSON) {
        json.object { json in
            json.field("expires_at", expiresAt)
            json.field("grace_period_expires_at", gracePeriodExpiresAt)
            json.field("original_transaction_id", originalTransactionID)
            json.field("product_id", productID)
            json.field("status", status.rawValue)
            json.field("will_renew", willRenew)
        }
    }
}
