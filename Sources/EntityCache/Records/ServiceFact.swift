import Foundation
import GRDB

/// Something an answer taught about the service, kept in its cache so that a restart acts on it at once.
public enum ServiceFact: String, Sendable, CaseIterable {
    /// It answered with `Repeatability-Result`: it applies a request id once, so a create whose answer was lost
    /// may be sent again under its id.
    case honoursRepeatability
    /// It (or a proxy in front of it) refused the `MERGE` verb: updates go as `POST` with `X-HTTP-Method`.
    case refusesMergeVerb
    /// A v4 service that answered 400 to an option inside `$expand` (`A($expand=B)`): it is asked one level only.
    case refusesNestedExpand
    /// It refused a request that named `$select` (400, 414 or 501): prefetches ask for whole entities.
    case refusesSelect
    /// It answered `$batch` with 404, 405 or 501: writes go one request each.
    case refusesBatch
    /// A v2 Gateway service whose catalog has no annotation document for it (404 from
    /// `CATALOGSERVICE;v=2/Annotations(TechnicalName='<SERVICE>_VAN',…)`): it is not asked again.
    case catalogHasNoAnnotations
}

extension CacheDatabase {
    /// The facts learned about this cache's service.
    public func serviceFacts() throws -> Set<ServiceFact> {
        try read { db in
            Set(try String.fetchAll(db, sql: "SELECT name FROM serviceFact").compactMap(ServiceFact.init(rawValue:)))
        }
    }
}

extension CacheWriter {
    /// Records that `fact` holds of the service (from now on, and after a restart).
    public func learn(_ fact: ServiceFact, at date: Date = Date()) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO serviceFact (name, learnedAt) VALUES (?, ?)",
            arguments: [fact.rawValue, date.timeIntervalSince1970])
    }
}
