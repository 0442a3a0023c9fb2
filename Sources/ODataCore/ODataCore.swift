/// ODataCore: the OData v2 protocol core.
///
/// Owns the `$metadata` service model, key predicates and literals, query
/// options and URL building, verbose-JSON decoding and OData errors. It is
/// pure: it performs no I/O, so every other module speaks OData through it
/// and it can be tested and fuzzed byte by byte.
public enum ODataCore {}
