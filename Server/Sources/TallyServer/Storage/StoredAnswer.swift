import TallySQL

/// The first answer of an idempotent write, kept under its key with a hash of its request:
/// a replay with the same request answers it again, another request under the key is refused.
struct StoredAnswer: SQLRowDecodable {
    enum Columns {
        static let requestHash = SQLColumn("request_hash")
        static let responseJSON = SQLColumn("response_json")
    }

    let requestHash: String
    let responseJSON: String

    init(row: SQLRow) throws(SQLDatabaseError) {
        requestHash = try row.text(Columns.requestHash)
        responseJSON = try row.text(Columns.responseJSON)
    }
}
