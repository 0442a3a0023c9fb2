import GRDB

/// The cache's tables, created and evolved by one `DatabaseMigrator`.
///
/// * `entity` — one row per canonical entity key: entity set, type, the ordered
///   properties in ``PropertyCodec`` encoding (the names in it are the entity's
///   present fields), etag and fetched-at.
/// * `relation` — one row per *known* relation `(parent, navigation)`, holding its ordered
///   child keys as a JSON array (``ChildKeys``); `[]` is a known empty relation. No row
///   means *unknown* (never fetched, or only `__deferred`). A relation is always written
///   whole (an expanded to-many replaces it) and read whole, so one row per relation does
///   what v1's row per position did at a fraction of the B-tree work (v2 migration).
/// * `list` / `listRow` — stored query results keyed by the canonical endpoint
///   without paging or shape options; rows by `(listId, position)` so a window is
///   a primary-key range scan.
/// * `requestLog`, `validator` (HTTP ETags per URL) and `metadataDocument` with the `annotationDocument`s the
///   service advertises — the fetcher's state, readable by screens (its status is held in memory, ``StatusBoard``;
///   the `syncStatus` row it had until v17 is gone).
/// * `outbox` — the writes made here and not yet settled with the service, in the order made
///   (``OutboxEntry``); written in the same transaction as the change they make to `entity`.
enum CacheSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE entity (
                        key TEXT PRIMARY KEY NOT NULL,
                        entitySet TEXT NOT NULL,
                        type TEXT,
                        properties BLOB NOT NULL,
                        etag TEXT,
                        fetchedAt DOUBLE NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE relation (
                        parentKey TEXT NOT NULL,
                        navigation TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        childKey TEXT NOT NULL,
                        PRIMARY KEY (parentKey, navigation, position)
                    ) WITHOUT ROWID;
                    CREATE TABLE relationState (
                        parentKey TEXT NOT NULL,
                        navigation TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        fetchedAt DOUBLE NOT NULL,
                        PRIMARY KEY (parentKey, navigation)
                    ) WITHOUT ROWID;
                    CREATE TABLE list (
                        id INTEGER PRIMARY KEY,
                        listKey TEXT NOT NULL UNIQUE,
                        totalCount INTEGER,
                        fetchedCount INTEGER NOT NULL DEFAULT 0,
                        nextLink TEXT,
                        nextPosition INTEGER,
                        isComplete BOOLEAN NOT NULL DEFAULT 0,
                        fetchedAt DOUBLE,
                        lastError TEXT
                    );
                    CREATE TABLE listRow (
                        listId INTEGER NOT NULL REFERENCES list(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        entityKey TEXT NOT NULL,
                        fetchedAt DOUBLE NOT NULL,
                        PRIMARY KEY (listId, position)
                    ) WITHOUT ROWID;
                    CREATE TABLE syncStatus (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        isOnline BOOLEAN NOT NULL,
                        inFlight INTEGER NOT NULL,
                        queued INTEGER NOT NULL,
                        lastError TEXT,
                        lastErrorAt DOUBLE,
                        lastSuccessAt DOUBLE
                    );
                    INSERT INTO syncStatus (id, isOnline, inFlight, queued) VALUES (1, 1, 0, 0);
                    CREATE TABLE requestLog (
                        id INTEGER PRIMARY KEY,
                        url TEXT NOT NULL,
                        status INTEGER,
                        bytes INTEGER NOT NULL,
                        duration DOUBLE NOT NULL,
                        outcome TEXT NOT NULL,
                        startedAt DOUBLE NOT NULL,
                        attempts INTEGER NOT NULL,
                        error TEXT
                    );
                    CREATE TABLE validator (
                        url TEXT PRIMARY KEY NOT NULL,
                        etag TEXT NOT NULL,
                        storedAt DOUBLE NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE metadataDocument (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        document BLOB NOT NULL,
                        fetchedAt DOUBLE NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2: one relation row holding its child keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE relationV2 (
                        parentKey TEXT NOT NULL,
                        navigation TEXT NOT NULL,
                        childKeys TEXT NOT NULL,
                        fetchedAt DOUBLE NOT NULL,
                        PRIMARY KEY (parentKey, navigation)
                    ) WITHOUT ROWID;
                    INSERT INTO relationV2 (parentKey, navigation, childKeys, fetchedAt)
                        SELECT s.parentKey, s.navigation,
                            (SELECT json_group_array(childKey) FROM
                                (SELECT childKey FROM relation r
                                 WHERE r.parentKey = s.parentKey AND r.navigation = s.navigation AND r.position < s.count
                                 ORDER BY r.position)),
                            s.fetchedAt
                        FROM relationState s;
                    DROP TABLE relation;
                    DROP TABLE relationState;
                    ALTER TABLE relationV2 RENAME TO relation;
                    """)
        }
        migrator.registerMigration("v3: the request that is slow to answer") { db in
            try db.execute(sql: "ALTER TABLE syncStatus ADD COLUMN slowRequest TEXT")
        }
        migrator.registerMigration("v4: why an entity or a relation could not be fetched") { db in
            // A rowid table, so that screens observing it see its changes.
            try db.execute(
                sql:
                    "CREATE TABLE fetchError (subject TEXT PRIMARY KEY NOT NULL, message TEXT NOT NULL, at DOUBLE NOT NULL)"
            )
        }
        migrator.registerMigration("v5: a request's method and headers in the log") { db in
            try db.execute(sql: "ALTER TABLE requestLog ADD COLUMN method TEXT NOT NULL DEFAULT 'GET'")
            try db.execute(sql: "ALTER TABLE requestLog ADD COLUMN headers TEXT")
        }
        migrator.registerMigration("v6: the outbox of writes, and the pending mark of an entity") { db in
            // A rowid table, so that the outbox screen and the status line see its changes. `id` is the order
            // the writes were made in; `entity.pending` counts an entity's writes not yet settled, kept in the
            // same transactions as the outbox rows.
            try db.execute(
                sql: """
                    CREATE TABLE outbox (
                        id INTEGER PRIMARY KEY,
                        entityKey TEXT NOT NULL,
                        entitySet TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        changes BLOB NOT NULL,
                        base BLOB NOT NULL,
                        baseEtag TEXT,
                        requestID TEXT NOT NULL UNIQUE,
                        firstSent DOUBLE,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        lastError TEXT,
                        theirs BLOB,
                        theirsEtag TEXT,
                        createdAt DOUBLE NOT NULL,
                        nextAttemptAt DOUBLE,
                        listKey TEXT,
                        parentKey TEXT,
                        navigation TEXT,
                        member TEXT
                    );
                    CREATE INDEX outboxByEntity ON outbox (entityKey, id);
                    ALTER TABLE entity ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE entity ADD COLUMN settledAt DOUBLE;
                    """)
        }
        migrator.registerMigration("v7: creates, and the entity a new link entity binds") { db in
            // A create of a link entity names the entity it links (`bindKey`, through `bindNavigation`); while
            // that is a temporary key (its own create not yet settled) the link waits. A list or relation records
            // when a write made here last changed its members (`changedHereAt`): a fetch sent before then was read
            // before the write, so it must not take the new entity out.
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN bindNavigation TEXT;
                    ALTER TABLE outbox ADD COLUMN bindKey TEXT;
                    ALTER TABLE list ADD COLUMN changedHereAt DOUBLE;
                    ALTER TABLE relation ADD COLUMN changedHereAt DOUBLE;
                    """)
        }
        migrator.registerMigration("v8: what was learned about the service") { db in
            // Facts a write's answer taught (the service keeps request ids; it refuses the MERGE verb), so that a
            // restarted browser acts on them from its first write.
            try db.execute(
                sql: """
                    CREATE TABLE serviceFact (
                        name TEXT PRIMARY KEY NOT NULL,
                        learnedAt DOUBLE NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v9: an entity known only in part") { db in
            // A `$select` answer brings some of an entity's fields: `complete` is 0 until a whole copy arrives
            // (``CacheWriter/upsertEntity(key:entitySet:type:properties:etag:at:partial:requestedAt:)``).
            try db.execute(sql: "ALTER TABLE entity ADD COLUMN complete BOOLEAN NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v10: which process is sending a queued write") { db in
            // Two browsers on one cache read one outbox: a write is claimed by the one that sends it, in the
            // transaction that selects it (``CacheWriter/dueOutboxEntries(at:limit:claimant:lease:)``).
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN claimedBy TEXT;
                    ALTER TABLE outbox ADD COLUMN claimedUntil DOUBLE;
                    """)
        }
        migrator.registerMigration("v11: a link made together with the entity it links") { db in
            // A link refused after the entity it was made with was created leaves that entity on the service linked
            // to nobody: the outbox says so, and dropping the link deletes it there too.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN bindsNew BOOLEAN NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v12: the annotation documents a service advertises") { db in
            // Kept with `$metadata`, so that a warm start shows the service's screens before any request.
            try db.execute(
                sql: """
                    CREATE TABLE annotationDocument (
                        source TEXT PRIMARY KEY NOT NULL,
                        document BLOB NOT NULL,
                        fetchedAt DOUBLE NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v13: a list's delta link") { db in
            // Where a list tracked by the service asks what changed since it was read (issue 34).
            try db.execute(
                sql: """
                    CREATE TABLE listDelta (
                        listKey TEXT PRIMARY KEY NOT NULL,
                        link TEXT NOT NULL,
                        storedAt DOUBLE NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v14: the keys the service gave new entities, and who set a retry's wait") { db in
            // A screen can hold a new entity's temporary key after the service made it (a form opened before the
            // answer came): a write made with it goes to the service's key (``CacheWriter/madeKey(of:)``).
            try db.execute(
                sql: """
                    CREATE TABLE madeKey (
                        temporary TEXT PRIMARY KEY NOT NULL,
                        made TEXT NOT NULL,
                        madeAt DOUBLE NOT NULL
                    ) WITHOUT ROWID;
                    """)
            // Which process set a write's wait for a retry: one that has ended no longer stands behind it
            // (``CacheWriter/makeWaitsOfEndedProcessesDue()``).
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN waitSetBy TEXT")
        }
        migrator.registerMigration("v15: actions in the outbox") { db in
            // The operation an `action` entry invokes (issue 36).
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN operation TEXT")
        }
        migrator.registerMigration("v16: writes that may have been applied unanswered") { db in
            // An attempt got no answer from a service that keeps no request ids: it may have been applied, and a
            // later refusal of the same write (412: the version it changed) may be its own doing.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN outcomeUnknown INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v17: the fetcher's status is held in memory") { db in
            // It is this process's, and changed with every request (``StatusBoard``): a row shared by every process
            // on the file was a transaction each time, and told another browser this one's state.
            try db.execute(sql: "DROP TABLE syncStatus")
        }
        migrator.registerMigration("v18: when a list's fetch last failed") { db in
            // A screen tells a failure of what it asked from one an earlier session left (issue 33's search).
            try db.execute(sql: "ALTER TABLE list ADD COLUMN lastErrorAt DOUBLE")
        }
        migrator.registerMigration("v19: what a function answered") { db in
            // A function's answer that is not a list (issue 36): one entity (stored as entities are, named here)
            // or a value (its JSON), under the call, as a list is kept under its request.
            try db.execute(
                sql: """
                    CREATE TABLE callResult (
                        callKey TEXT PRIMARY KEY,
                        entityKey TEXT,
                        value TEXT,
                        fetchedAt DOUBLE NOT NULL
                    )
                    """)
            // (a rowid table: SQLite tells observers of changes to rowid tables only)
        }
        migrator.registerMigration("v20: the draft a create left") { db in
            // A new entity of a set edited through drafts that the service made as a draft and did not activate
            // (issue 36): sent again, that draft is activated, not a second one made.
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN draft TEXT")
        }
        migrator.registerMigration("v21: the writes a write waits its turn among") { db in
            // A discard of a form's draft (issue 36) is a write of the draft's key, yet it must go before a change of
            // the active entity saved after it, which makes a draft of its own: it is sent in the active one's
            // turn. Null: the entity's own key (`entityKey`).
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN orderKey TEXT")
        }
        return migrator
    }
}
