// libFuzzer entry point: the terminal's key decoder and text sanitiser (Terminal module, pure parts).
// Built by Fuzz/run.sh with Key, KeyDecoder, TextSanitizer, EscapeSequence and DisplayWidth as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Five bytes per raw input: a kind, then a 32-bit value.
    var index = 0
    while index + 5 <= bytes.count {
        let value = UInt32(bytes[index + 1]) | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3]) << 16
            | UInt32(bytes[index + 4]) << 24
        let raw: KeyDecoder.RawInput
        switch bytes[index] % 3 {
        case 0: raw = .character(value)
        case 1: raw = .keyCode(Int32(bitPattern: value))
        default: raw = .mouse(buttonState: value)
        }
        switch KeyDecoder.decode(raw) {
        case .char(let character):
            // A `.char` is never a control character: those must not reach a text field.
            for scalar in character.unicodeScalars where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                fatalError("\(raw) decoded to a control character U+\(String(scalar.value, radix: 16))")
            }
        case .ctrl(let character):
            guard character.isASCII, character.isLowercase || "@[\\]^_".contains(character) else {
                fatalError("\(raw) decoded to an unexpected control chord \(character)")
            }
        default:
            break
        }
        index += 5
    }
    // The same bytes as text from a server: nothing that steers a terminal survives, and sanitising is idempotent.
    let text = String(decoding: bytes, as: UTF8.self)
    let safe = TextSanitizer.sanitize(text)
    for scalar in safe.unicodeScalars where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) {
        fatalError("sanitised text kept U+\(String(scalar.value, radix: 16))")
    }
    if TextSanitizer.sanitize(safe) != safe { fatalError("sanitising twice changed the text") }
    if DisplayWidth.width(of: safe) < 0 { fatalError("negative display width") }
    return 0
}
