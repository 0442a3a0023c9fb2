import ODataCore
import Testing

/// The client's one JSON string escaper (request bodies, `$batch` envelopes, the cache's key lists).
@Suite struct JSONEscapingTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        (#"say "hi" \ bye"#, #""say \"hi\" \\ bye""#),
        ("a\nb\rc\td\u{08}e\u{0C}f", #""a\nb\rc\td\be\ff""#),
        ("\u{01}\u{1F}\u{7F}", #""\u0001\u001f\u007f""#),
        ("line\u{2028}para\u{2029}end", #""line\u2028para\u2029end""#),
        ("Škoda 🚗 /", #""Škoda 🚗 /""#),
    ])
    func each_string_is_written_as_JSON_with_its_escapes(text: String, json: String) {
        #expect(JSONEscaping.string(text) == json)
    }

    @Test func every_string_reads_back_as_itself() throws {
        let texts = [
            "", "\u{0}", "dagger \u{2020} (E2 80 A0)", "x\u{2028}", "\"\\\u{1B}[31m",
            String(repeating: "é", count: 300),
            "Oil\u{1B}]52;c;cHduZWQ=\u{07}", "\u{202E}evil", "e\u{301}\u{301}",
        ]
        for text in texts {
            let read = try JSONReader(maximumDepth: 2).read(JSONEscaping.string(text))
            #expect(read == .string(text), "\(text.debugDescription)")
        }
    }
}
