import ODataCore
import Testing

/// Found by the `$filter` fuzz target: `time'<huge hours>:0'` trapped on overflow in the server's lexer.
@Suite struct LiteralOverflowTests {
    @Test func a_duration_with_absurd_hours_is_refused_not_a_crash() {
        // Given hours whose milliseconds do not fit 64 bits, then they parse as nothing (a 400 upstream)
        #expect(ODataDuration(parsing: "+185111111111111111:0") == nil)
        #expect(ODataDuration(parsing: "9223372036854775807:59:59") == nil)
        // and ordinary ones still parse
        #expect(ODataDuration(parsing: "02:39:44")?.milliseconds == 9_584_000)
    }
}
