/// The end of a frame, marked on the output for a program that reads it (`cardealer serve-ssh`), so that the frame
/// leaves at once as one message instead of after a quiet time: an APC string (`ESC _ cdf ESC \`), which terminals
/// ignore if one ever reaches them, and which the gateway removes. Written only when the environment variable
/// ``environmentName`` is set; the gateway's copy of the bytes is checked against this one by a test.
public enum FrameMark {
    public static let environmentName = "CARDEALER_FRAME_MARK"
    public static let bytes: [UInt8] = [0x1B, 0x5F, 0x63, 0x64, 0x66, 0x1B, 0x5C]
}
