import GRDB

/// What is fitted to the demo's cars beyond their model (issue 37): the rows of `CarOption`, which the v4 root
/// publishes as contained in their car (`Car(3)/Options(13)`).
///
/// They are made from the cars, not drawn from the generator's random numbers: every other row of a data file
/// stays as it was, and a file made before the options gets them once (``prepare(_:)``).
enum CarOptions {
    /// The catalogue: option `n` is fitted to the cars whose number plus `n` is a multiple of three (one or two
    /// options a car, none for some), under the key `carID * 4 + n`.
    static let catalogue: [(name: String, cents: Int64)] = [
        ("Tow bar", 45_000), ("Sunroof", 120_000), ("Winter tyres", 68_000), ("Roof rack", 21_000),
    ]

    /// Fits the catalogue's options to every car.
    static func fill(_ db: Database) throws {
        for (index, option) in catalogue.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO CarOption (optionID, name, price, createStamp, carID)
                    SELECT carID * 4 + ?, ?, ?, createStamp, carID FROM Car WHERE (carID + ?) % 3 = 0
                    """,
                arguments: [index, option.name, option.cents, index])
        }
    }

    /// A file made before the options: their table, filled once, and its index.
    static func prepare(_ db: Database) throws {
        guard try !db.tableExists("CarOption"), let set = ServiceSchema.carDealer.entitySet("CarOption") else { return }
        try db.execute(sql: ServiceSchema.carDealer.createStatement(of: set))
        try fill(db)
    }
}
