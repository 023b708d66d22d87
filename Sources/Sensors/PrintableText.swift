/// Makes text from a user's file safe to print in a message: control characters (a NUL byte, an escape
/// sequence, a carriage return …) are shown as `\u{XX}` instead of being written raw to a terminal.
public enum PrintableText {
    /// `text` with every control character except newline and tab escaped as `\u{XX}`; U+FFFD (what
    /// invalid UTF-8 decodes to) is kept.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        (s.value < 0x20 && s != "\n" && s != "\t") || (s.value >= 0x7F && s.value < 0xA0)
    }
}
