import Foundation
import TallyCore
import Testing

extension ServerAPI {
    @Suite struct TransactionHistoryRequestTests {
        static var everyFilter: TransactionHistoryRequest {
            var request = TransactionHistoryRequest()
            request.startDate = Date(timeIntervalSince1970: 1_698_148_900)
            request.endDate = Date(timeIntervalSince1970: 1_698_148_950.5)
            request.productIds = ["com.example.1", "com.example.2"]
            request.productTypes = [.consumable, .autoRenewable]
            request.sort = .descending
            request.subscriptionGroupIdentifiers = ["sub_group_id", "sub_group_id_2"]
            request.inAppOwnershipType = .familyShared
            request.revoked = false
            return request
        }

        @Test func rendersApplesParameterNamesInOrder() {
            let items = Self.everyFilter.queryItems(revision: "revision_input")
            #expect(
                items.map { "\($0.name)=\($0.value ?? "")" } == [
                    "revision=revision_input",
                    "startDate=1698148900000",
                    "endDate=1698148950500",
                    "productId=com.example.1",
                    "productId=com.example.2",
                    "productType=CONSUMABLE",
                    "productType=AUTO_RENEWABLE",
                    "sort=DESCENDING",
                    "subscriptionGroupIdentifier=sub_group_id",
                    "subscriptionGroupIdentifier=sub_group_id_2",
                    "inAppOwnershipType=FAMILY_SHARED",
                    "revoked=false",
                ])
        }

        @Test func queryItemsReadBackToTheSameRequest() throws {
            let items = Self.everyFilter.queryItems(revision: "revision_input")
            #expect(try TransactionHistoryRequest(queryItems: items) == Self.everyFilter)
            #expect(TransactionHistoryRequest.revision(in: items) == "revision_input")
        }

        @Test func aURLQueryReadsBackThroughURLComponents() throws {
            var components = URLComponents(string: "https://api.storekit-sandbox.itunes.apple.com/inApps/v2/history/1234")!
            components.queryItems = Self.everyFilter.queryItems()
            let parsed = try #require(URLComponents(string: components.string ?? "")?.queryItems)
            #expect(try TransactionHistoryRequest(queryItems: parsed) == Self.everyFilter)
            #expect(TransactionHistoryRequest.revision(in: parsed) == nil)
        }

        @Test func anEmptyRequestHasNoItemsAndReadsBackEmpty() throws {
            #expect(TransactionHistoryRequest().queryItems().isEmpty)
            #expect(try TransactionHistoryRequest(queryItems: []) == TransactionHistoryRequest())
        }

        @Test func revokedAsPythonSendsItIsRead() throws {
            let request = try TransactionHistoryRequest(queryItems: [URLQueryItem(name: "revoked", value: "True")])
            #expect(request.revoked == true)
        }

        @Test(arguments: [
            ("startDate=yesterday", APIErrorCode.invalidStartDate),
            ("startDate=-5", .invalidStartDate),
            ("endDate=", .invalidEndDate),
            ("startDate=2000&endDate=1000", .startDateAfterEndDate),
            ("startDate=1000&endDate=1000", .startDateAfterEndDate),
            ("productType=CONSUMABLE&productType=SUBSCRIPTION", .invalidProductType),
            ("sort=SIDEWAYS", .invalidSort),
            ("inAppOwnershipType=BORROWED", .invalidInAppOwnershipType),
            ("revoked=maybe", .invalidRevoked),
        ])
        func invalidParametersAreRefusedWithApplesCode(query: String, code: APIErrorCode) throws {
            let items = try #require(URLComponents(string: "https://x/?\(query)")?.queryItems)
            let error = #expect(throws: APIRequestError.self) { try TransactionHistoryRequest(queryItems: items) }
            #expect(error?.code == code)
        }
    }
}
