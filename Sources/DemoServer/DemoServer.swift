/// The built-in CarDealer OData v2 service.
///
/// Owns the schema (one definition → SQL tables and EDMX), the deterministic data generator, the query engine
/// (`$filter`, `$orderby`, paging, `$expand`, `$select`), the verbose-JSON writer and the Hummingbird routes.
/// It must not write to the terminal: callers pass a logger.
public enum DemoServer {}
