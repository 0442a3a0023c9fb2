import Testing

@testable import ODataCore

@Suite struct ErrorTests {
    let url = "http://h/S.svc/Person(99)"

    @Test func a_json_error_with_a_message_object_reads_as_a_sentence() {
        let body = Array(
            #"{"error":{"code":"ResourceNotFound","message":{"lang":"en-US","value":"No Person with key 99."}}}"#.utf8)
        let error = ODataError.fromResponse(status: 404, url: url, contentType: "application/json", body: body)
        #expect(error.status == 404)
        #expect(error.code == "ResourceNotFound")
        #expect(
            error.description
                == "The service answered HTTP 404 [ResourceNotFound]: No Person with key 99. (http://h/S.svc/Person(99))"
        )
    }

    @Test func a_json_error_with_a_plain_message_string_is_read() {
        let body = Array(#"{"error":{"code":"","message":"Invalid filter"}}"#.utf8)
        let error = ODataError.fromResponse(status: 400, url: url, contentType: "application/json", body: body)
        #expect(error.message == "Invalid filter")
        #expect(error.description.contains("HTTP 400"))
    }

    @Test func an_xml_error_is_read() {
        let body = Array(
            """
            <?xml version="1.0" encoding="utf-8"?><error xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
            <code>SY/530</code><message xml:lang="en">Bad &amp; worse</message></error>
            """.utf8)
        let error = ODataError.fromResponse(status: 500, url: url, contentType: "application/xml", body: body)
        #expect(error.code == "SY/530")
        #expect(error.message == "Bad & worse")
    }

    @Test func an_html_or_text_body_still_gives_a_useful_sentence() {
        let html = ODataError.fromResponse(
            status: 502, url: url, contentType: "text/html", body: Array("<html>proxy</html>".utf8))
        #expect(
            html.description
                == "The service answered HTTP 502: Bad Gateway (the body is an HTML page, not an OData error) (http://h/S.svc/Person(99))"
        )
        let text = ODataError.fromResponse(
            status: 503, url: nil, contentType: "text/plain", body: Array("  down for maintenance \n".utf8))
        #expect(text.description == "The service answered HTTP 503: Service Unavailable: down for maintenance")
        let empty = ODataError.fromResponse(status: 401, url: nil, contentType: nil, body: [])
        #expect(empty.message == "Unauthorized — check the credentials")
    }

    @Test func long_urls_are_shortened_in_the_sentence() {
        let long = "http://h/S.svc/Person?$filter=" + String(repeating: "a", count: 300)
        let error = ODataError(kind: .transport, message: "timed out", url: long)
        #expect(error.description.count < 200)
        #expect(
            error.description.hasPrefix("Could not reach the service: timed out (http://h/S.svc/Person?$filter=aaa"))
        #expect(error.description.hasSuffix(")"))
    }
}
