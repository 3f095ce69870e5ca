import HTTPTypes
import Testing

@testable import HearthServer

/// `HTTPFields.value(_:)` reads a field as HTTPTypes' subscript does, on the request path where the subscript's
/// generic join was measured to cost a fiftieth of a lookup.
@Suite("Reading a request's field")
struct HTTPFieldsValueTests {
    @Test func readsAsTheSubscriptDoes() {
        let origin = HTTPField.Name.origin
        var fields: HTTPFields = [.contentType: "application/json", .userAgent: "agent"]
        #expect(fields.value(.contentType) == "application/json")
        #expect(fields.value(origin) == nil)
        // Two fields of one name are joined, so a second `X-Forwarded-For` or `Authorization` is never dropped.
        fields.append(HTTPField(name: .userAgent, value: "second"))
        #expect(fields.value(.userAgent) == "agent, second")
        #expect(fields.value(.userAgent) == fields[.userAgent])
        // Names compare case-insensitively, as HTTP's do.
        #expect(fields.value(HTTPField.Name("CONTENT-TYPE")!) == "application/json")
    }
}
