import HTTPTypes
import ODataCore

/// The protocol version an answer declares: `OData-Version: 4.0` at the v4 root; at the v2 root
/// `DataServiceVersion: 2.0` for an answer that uses what version 2 added (a `results` wrapper with `__count`, the
/// `$metadata` of a v2 schema), else `1.0`.
enum AnswerVersion: String, Sendable {
    case version1 = "1.0"
    case version2 = "2.0"
    case version4 = "4.0"

    /// The version of an answer in `dialect`: at the v2 root, 2.0 when it `usesVersion2`.
    init(_ dialect: ODataDialect, usesVersion2: Bool = false) {
        self = dialect == .v4 ? .version4 : usesVersion2 ? .version2 : .version1
    }

    /// Sets the header that says it: `OData-Version` for v4, `DataServiceVersion` (with its `;`) for v2.
    func declare(in headers: inout HTTPFields) {
        if self == .version4 {
            headers[.odataVersion] = rawValue
        } else {
            headers[.dataServiceVersion] = rawValue + ";"
        }
    }
}
