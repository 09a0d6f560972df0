import HTTPTypes
import Hummingbird
import PhoneAuthCore

/// What a handler answers: a status, a JSON body (or plain text) and extra headers.
struct Reply: Sendable {
    var status: Int
    var body: String
    var contentType = Reply.jsonType
    var headers: [(String, String)] = []

    static let jsonType = "application/json; charset=utf-8"

    init(status: Int = 200, json: JSONValue, headers: [(String, String)] = []) {
        self.status = status
        body = JSONCodec.serialize(json)
        self.headers = headers
    }

    init(status: Int = 200, text: String, contentType: String) {
        self.status = status
        body = text
        self.contentType = contentType
    }

    var response: Response {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
