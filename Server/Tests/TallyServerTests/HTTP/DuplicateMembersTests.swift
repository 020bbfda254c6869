import Foundation
import NIOCore
import TallyCore
import Testing

@testable import TallyServer

/// The scan that finds a member named twice in a request body.
@Suite struct DuplicateMembersTests {
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a"),
        (#"{"a":1,"b":{"c":1,"c":2}}"#, "c"),
        (#"[{"a":1},{"b":1,"b":1}]"#, "b"),
        (#"{"a":"x","\u0061":2}"#, "a"),  // escapes resolved, as the decoder resolves them
        (#"{"é":1,"\u00e9":2}"#, "é"),
        (#"{"😀":1,"\ud83d\ude00":2}"#, "😀"),
        (#" { "a" : 1 , "a" : 1 } "#, "a"),
        (#"{"quote\"d":1,"quote\"d":2}"#, "quote\"d"),
        (#"{"a":"\\","a":"\""}"#, "a"),  // escaped backslashes and quotes in values end their strings where they should
        (
            #"{"k0":0,"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k17":0,"k3":1}"#,
            "k3"
        ),
    ])
    func aMemberNamedTwiceIsFound(json: String, name: String) {
        #expect(DuplicateMembers.first(in: Array(json.utf8)) == name)
    }

    @Test(arguments: [
        #"{"a":1,"b":2}"#,
        #"{"a":{"a":1},"b":{"a":2}}"#,  // the same name in different objects
        #"[{"a":1},{"a":2}]"#,
        #"{"a":"\"a\":1,\"a\":2"}"#,  // names inside a string value are no members
        #"{"a":["a","a"]}"#,
        #"{"a":1,"A":2}"#,
        #"{"a":{"k0":0,"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k17":0},"k1":1}"#,
        #"{"a":"\\","b":"\"","c":"x\\\"y"}"#,
        "",
        "{",
        #"{"a":1,"a"#,  // cut off: left to the decoder
        "[]",
        "null",
    ])
    func aDocumentWithoutDuplicatesPasses(json: String) {
        #expect(DuplicateMembers.first(in: Array(json.utf8)) == nil)
    }

    @Test func namesTheDecoderReadsAsOneFieldAreDuplicatesWhenItConvertsSnakeCase() {
        let json = Array(#"{"idempotency_key":"a","idempotencyKey":"b"}"#.utf8)
        #expect(DuplicateMembers.first(in: json) == nil)
        #expect(DuplicateMembers.first(in: json, convertingFromSnakeCase: true) == "idempotencyKey")
        #expect(DuplicateMembers.first(in: Array(#"{"idempotency_key":"a","Idempotency_KEY":"b"}"#.utf8), convertingFromSnakeCase: true) != nil)
        #expect(DuplicateMembers.first(in: Array(#"{"order_id":"a","orderid":"b"}"#.utf8), convertingFromSnakeCase: true) == nil)
        #expect(DuplicateMembers.first(in: Array(#"{"order_id":"a","orderId":"b"}"#.utf8), convertingFromSnakeCase: true) == "orderId")
        #expect(DuplicateMembers.first(in: Array(#"{"_a_b":"a","_aB":"b"}"#.utf8), convertingFromSnakeCase: true) == "_aB")
    }

    @Test func theConversionIsTheDecoders() throws {
        // Each name below, read by the API decoder, fills the same field as `swiftName` says.
        struct Probe: Decodable {
            var idempotencyKey: String?
            var orderID: String?
        }
        let decoder = TallyAPI.decoder()
        for name in ["idempotency_key", "Idempotency_Key", "idempotency_KEY", "idempotency__key", "idempotencyKey"] {
            let probe = try decoder.decode(Probe.self, from: Data(#"{"\#(name)":"v"}"#.utf8))
            #expect(probe.idempotencyKey == "v", "\(name)")
            #expect(DuplicateMembers.swiftName(Array(name.utf8)) == Array("idempotencyKey".utf8), "\(name)")
        }
        for name in ["order_id", "Order_ID", "orderId", "orderID"] {
            let probe = try decoder.decode(Probe.self, from: Data(#"{"\#(name)":"v"}"#.utf8))
            #expect(probe.orderID == "v", "\(name)")
            #expect(DuplicateMembers.swiftName(Array(name.utf8)) == Array("orderID".utf8), "\(name)")
        }
    }

    @Test func thousandsOfMembersStayLinear() {
        // 10,000 distinct names and one repeated at the end: found, and without quadratic work.
        var json = "{"
        for index in 0..<10_000 { json += "\"k\(index)\":0," }
        json += "\"k5000\":1}"
        #expect(DuplicateMembers.first(in: Array(json.utf8)) == "k5000")
    }
}

/// A body holds no `null`: a member is given or left out, as the API document says.
@Suite struct NullMembersTests {
    @Test(arguments: [
        #"{"reference":null}"#, #"{"a":[1,null]}"#, #"{"a":{"b":null}}"#, #"{"a":"x\"","b":null}"#, #"{"a" : null }"#,
    ])
    func aNullAnywhereIsRefused(_ json: String) {
        #expect(throws: TallyAPIError.self) { try TallyRequestDecoder.refuseNulls(ByteBuffer(string: json)) }
    }

    @Test(arguments: [#"{"reference":"null"}"#, #"{"a":"\\","b":"null"}"#, #"{"a":"x\"null"}"#, #"{"nullable":1}"#, "{}"])
    func nullInsideTextIsText(_ json: String) throws {
        try TallyRequestDecoder.refuseNulls(ByteBuffer(string: json))
    }
}
