import GRDB

/// Writes the deterministic CarDealer demo data into an empty database.
///
/// Person 1 is the seed's Bob Samson with his Ford Explorer (car 2) and Ford Mustang (car 5), so
/// `Person(1)?$expand=PersonCar,PersonCar/Car` returns the seed's payload. Everyone else is drawn from
/// ``SeededRandom`` with a fixed seed: about 15% own no car, about 20% of ownerships are of a car someone
/// else already owns, and a few owned cars have long service histories with rising mileage.
struct DataGenerator {
    /// Bumped whenever the generated data or the schema changes, so cached files are rebuilt.
    static let version = 2

    var people: Int
    /// Whether to write the hostile variant (see ``HostileStrings``).
    var hostile = false

    /// Row counts written, for logs.
    struct Counts: Sendable {
        var people = 0, cars = 0, personCars = 0, maintenance = 0
    }

    /// Inserts all rows with prepared statements; the caller wraps this in one transaction.
    ///
    /// The hostile variant draws the same random numbers, then swaps in ``HostileStrings``: the last names
    /// of people 2…, the models of cars 6…, and every tenth maintenance description (every fiftieth 100 KB).
    func generate(into db: Database) throws -> Counts {
        var random = SeededRandom(seed: 0x00CA_DEA1_E200_0001)
        var counts = Counts()
        let insertPerson = try db.makeStatement(sql: "INSERT INTO Person VALUES (?, ?, ?, ?, ?)")
        let insertCar = try db.makeStatement(sql: "INSERT INTO Car VALUES (?, ?, ?, ?, ?)")
        let insertPersonCar = try db.makeStatement(sql: "INSERT INTO PersonCar VALUES (?, ?, ?, ?)")
        let insertMaintenance = try db.makeStatement(sql: "INSERT INTO Maintenance VALUES (?, ?, ?, ?, ?, ?)")
        let insertLink = try db.makeStatement(sql: "INSERT INTO PersonCarMaintenance VALUES (?, ?, ?, ?)")

        // Cars first, so that IDs are stable; cars 2 and 5 are the seed's.
        let carCount = max(5, people * 9 / 10)
        var manufactured: [Int64] = [0]  // index = carID
        manufactured.reserveCapacity(carCount + 1)
        for carID in 1...carCount {
            var make = random.pick(Vocabulary.makes)
            var model = random.pick(make.models)
            var built =
                Dates.year1965 + Int64(random.int(0...58 * 365)) * Dates.day + Int64(random.int(0...86_399)) * 1000
            var stamp = max(built, Dates.year2005) + Int64(random.int(0...19 * 365)) * Dates.day
            if carID == 2 {
                (make, model, built, stamp) = (Vocabulary.makes[0], "Explorer", 1_099_242_508_440, 1_257_008_940_840)
            }
            if carID == 5 {
                (make, model, built, stamp) = (Vocabulary.makes[0], "Mustang", 1_075_680_000_000, 1_257_109_563_660)
            }
            if hostile, (6..<(6 + HostileStrings.models.count)).contains(carID) {
                model = HostileStrings.models[carID - 6]
            }
            try insertCar.execute(arguments: [carID, make.make, model, built, stamp])
            manufactured.append(built)
        }
        counts.cars = carCount

        var nextCar = 6
        var personCarID = 0
        var maintenanceID = 0
        for personID in 1...max(1, people) {
            var first = random.pick(Vocabulary.firstNames)
            var last = random.pick(Vocabulary.lastNames)
            var ssn = String(random.int(100_000_000...899_999_999))
            var created =
                Dates.year2005 + Int64(random.int(0...19 * 365)) * Dates.day + Int64(random.int(0...86_399_999))
            var owned: [Int] = []
            if personID == 1 {
                (first, last, ssn, created) = ("Bob", "Samson", "543872934", 1_257_008_908_440)
                owned = [2, 5]
            } else {
                let roll = random.int(0...99)
                let carsOwned = roll < 15 ? 0 : roll < 65 ? 1 : roll < 90 ? 2 : roll < 97 ? 3 : 5
                for _ in 0..<carsOwned {
                    if random.chance(0.2) || nextCar > carCount {
                        owned.append(random.int(1...min(carCount, nextCar - 1)))
                    } else {
                        owned.append(nextCar)
                        nextCar += 1
                    }
                }
            }
            if hostile, (2..<(2 + HostileStrings.names.count)).contains(personID) {
                last = HostileStrings.names[personID - 2]
            }
            try insertPerson.execute(arguments: [personID, first, last, ssn, created])
            counts.people += 1
            for (index, carID) in owned.enumerated() {
                personCarID += 1
                let stamp: Int64 =
                    personID == 1
                    ? (index == 0 ? 1_257_103_813_990 : 1_257_109_628_720)
                    : created + Int64(random.int(0...3 * 365)) * Dates.day
                try insertPersonCar.execute(arguments: [personCarID, stamp, personID, carID])
                counts.personCars += 1
                // Service history: usually a handful of visits, sometimes a long one.
                let visits = random.chance(0.05) ? random.int(20...40) : random.int(0...4)
                var date = max(manufactured[carID], stamp - 2 * 365 * Dates.day)
                var mileage = random.int(0...30_000)
                for _ in 0..<visits {
                    maintenanceID += 1
                    date += Int64(random.int(60...400)) * Dates.day + Int64(random.int(8...17)) * 3_600_000
                    mileage += random.int(1_500...18_000)
                    let job = random.pick(Vocabulary.jobs)
                    var text = maintenanceID % 997 == 7 ? Vocabulary.longDescription : job.description
                    if hostile, maintenanceID % 10 == 1 { text = HostileStrings.description }
                    if hostile, maintenanceID % 50 == 3 { text = HostileStrings.long }
                    let cents = random.int(job.cost) * 100 + random.int(0...99)
                    try insertMaintenance.execute(arguments: [
                        maintenanceID, text, date, mileage, cents, date + 3_600_000,
                    ])
                    try insertLink.execute(arguments: [maintenanceID, date + 3_600_000, personCarID, maintenanceID])
                }
            }
        }
        counts.maintenance = maintenanceID
        return counts
    }
}

/// Millisecond constants for dates in the generated data.
enum Dates {
    static let day: Int64 = 86_400_000
    /// 1965-01-01T00:00:00Z.
    static let year1965: Int64 = -157_766_400_000
    /// 2005-01-01T00:00:00Z.
    static let year2005: Int64 = 1_104_537_600_000
}
