import GRDB

/// Writes the deterministic CarDealer demo data into an empty database.
///
/// Person 1 is the seed's Bob Samson with his Ford Explorer (car 2) and Ford Mustang (car 5), so
/// `Person(1)?$expand=PersonCar,PersonCar/Car` returns the seed's payload. Everyone else is drawn from
/// ``SeededRandom`` with a fixed seed: about 15% own no car, about 20% of ownerships are of a car someone
/// else already owns. Service histories come from a random source per ownership (``ServiceHistory``): a few
/// visits for most, years of them for one in ten, for Bob's Explorer and for the first car of the first person
/// the People screen lists.
struct DataGenerator {
    /// Bumped whenever the generated data or the schema changes, so cached files are rebuilt.
    static let version = 4

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

        // The makes a car's make is chosen from (its value help, issue 33), in the vocabulary's order.
        let insertMake = try db.makeStatement(sql: "INSERT INTO Make VALUES (?, ?, ?)")
        for (index, make) in Vocabulary.makes.enumerated() {
            try insertMake.execute(arguments: [index + 1, make.make, Dates.year2005])
        }
        // Cars first, so that IDs are stable; cars 2 and 5 are the seed's.
        let carCount = max(5, people * 9 / 10)
        var manufactured: [Int64] = [0]  // index = carID
        manufactured.reserveCapacity(carCount + 1)
        for carID in 1...carCount {
            var make = random.pick(Vocabulary.makes)
            var model = random.pick(make.models)
            var built =
                Dates.year1965 + Int64(random.int(0...58 * 365)) * Dates.day + Int64(random.int(0...86_399)) * 1000
            var stamp = Dates.notLater(
                than: Dates.historyEnd, from: max(built, Dates.year2005),
                max(built, Dates.year2005) + Int64(random.int(0...19 * 365)) * Dates.day)
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
        func insert(_ record: ServiceHistory.Record, id: Int, personCarID: Int) throws {
            var text = id % 997 == 7 ? Vocabulary.longDescription : record.description
            if hostile, id % 10 == 1 { text = HostileStrings.description }
            if hostile, id % 50 == 3 { text = HostileStrings.long }
            try insertMaintenance.execute(arguments: [
                id, text, record.date, record.mileage, record.cents, record.date + 3_600_000,
            ])
            try insertLink.execute(arguments: [id, record.date + 3_600_000, personCarID, id])
        }
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
                    : Dates.notLater(
                        than: Dates.historyEnd, from: created, created + Int64(random.int(0...3 * 365)) * Dates.day)
                try insertPersonCar.execute(arguments: [personCarID, stamp, personID, carID])
                counts.personCars += 1
                // Service history, from a random source of its own (so that histories can change without
                // moving anyone's name): a few visits for most ownerships, years of them for some. The main
                // source still draws what version 2 drew for histories, so that people and cars keep the names
                // and cars they had (tests and benchmarks name them).
                Self.drawVersion2History(&random)
                var history = SeededRandom(seed: 0x00CA_DEA1_E200_0002 &+ UInt64(personCarID) &* 0x9E37_79B9)
                let long = personID == 1 && index == 0 || history.chance(0.1)
                let visits = long ? history.int(18...40) : history.int(1...6)
                // A long history reaches back as far as its visits need (the car allowing).
                let start =
                    long
                    ? max(manufactured[carID], Dates.historyEnd - Int64(visits) * 250 * Dates.day)
                    : max(manufactured[carID], stamp - 2 * 365 * Dates.day)
                for record in ServiceHistory.records(visits: visits, from: start, random: &history) {
                    maintenanceID += 1
                    try insert(record, id: maintenanceID, personCarID: personCarID)
                }
            }
        }
        // The first person on the People screen (by name, as the profile orders it) and their first car by make
        // and model: the car a demo opens first gets a long history too.
        if let (personCarID, start, records) = try Self.firstListedOwnership(in: db), records < 18 {
            let replaced = try Int.fetchAll(
                db, sql: "SELECT maintenanceID FROM PersonCarMaintenance WHERE personCarID = ?",
                arguments: [personCarID])
            // The links first: they refer to the records.
            try db.execute(sql: "DELETE FROM PersonCarMaintenance WHERE personCarID = ?", arguments: [personCarID])
            for id in replaced {
                try db.execute(sql: "DELETE FROM Maintenance WHERE maintenanceID = ?", arguments: [id])
            }
            var history = SeededRandom(seed: 0x00CA_DEA1_E200_0003)
            for record in ServiceHistory.records(visits: 30, from: start, random: &history) {
                maintenanceID += 1
                try insert(record, id: maintenanceID, personCarID: personCarID)
            }
        }
        counts.maintenance = try Int.fetchOne(db, sql: "SELECT count(*) FROM Maintenance") ?? 0
        return counts
    }

    /// The draws version 2 made for an ownership's history, made and dropped.
    static func drawVersion2History(_ random: inout SeededRandom) {
        let visits = random.chance(0.05) ? random.int(20...40) : random.int(0...4)
        _ = random.int(0...30_000)
        for _ in 0..<visits {
            _ = random.int(60...400)
            _ = random.int(8...17)
            _ = random.int(1_500...18_000)
            let job = random.pick(Vocabulary.jobs)
            _ = random.int(job.cost)
            _ = random.int(0...99)
        }
    }

    /// The ownership a demo opens first (the first person by name, their first car by make and model): its id,
    /// where its history starts and how many records it has.
    static func firstListedOwnership(in db: Database) throws -> (Int, Int64, Int)? {
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT pc.personCarID, c.manufactureDate,
                       (SELECT count(*) FROM PersonCarMaintenance m WHERE m.personCarID = pc.personCarID) AS records
                FROM PersonCar pc JOIN Car c ON c.carID = pc.carID
                WHERE pc.personID = (SELECT personID FROM Person ORDER BY lastName, firstName, personID LIMIT 1)
                ORDER BY c.make, c.model, c.carID LIMIT 1
                """)
        guard let row else { return nil }
        let built: Int64 = row["manufactureDate"]
        return (row["personCarID"], max(built, Dates.historyEnd - 30 * 250 * Dates.day), row["records"])
    }
}

/// A car's service history as a maintenance department's records show it: visits every few months to a year,
/// mileage rising with time at the car's own pace, mostly routine work with now and then a costly repair.
enum ServiceHistory {
    struct Record {
        var date: Int64
        var mileage: Int
        var description: String
        var cents: Int
    }

    /// Up to `visits` records from `start`, in date order, none after ``Dates/historyEnd``.
    static func records(visits: Int, from start: Int64, random: inout SeededRandom) -> [Record] {
        let kilometresPerDay = Double(random.int(6_000...18_000)) / 365
        var date = start
        var mileage = random.int(0...30_000)
        var records: [Record] = []
        for _ in 0..<visits {
            let days = random.int(90...400)
            date += Int64(days) * Dates.day + Int64(random.int(8...17)) * 3_600_000
            guard date <= Dates.historyEnd else { break }
            mileage += max(100, Int(Double(days) * kilometresPerDay * Double(random.int(70...130)) / 100))
            // One visit in eight is a costly repair; the rest routine.
            let jobs = random.chance(0.125) ? Vocabulary.repairs : Vocabulary.routine
            let job = random.pick(jobs)
            records.append(
                Record(
                    date: date, mileage: mileage, description: job.description,
                    cents: random.int(job.cost) * 100 + random.int(0...99)))
        }
        return records
    }
}

/// Millisecond constants for dates in the generated data.
enum Dates {
    static let day: Int64 = 86_400_000
    /// 1965-01-01T00:00:00Z.
    static let year1965: Int64 = -157_766_400_000
    /// 2005-01-01T00:00:00Z.
    static let year2005: Int64 = 1_104_537_600_000
    /// 2025-12-01T00:00:00Z: no service record is later (the data is the same whenever it is generated).
    static let historyEnd: Int64 = 1_764_547_200_000

    /// `stamp`, folded back into `start...end` when it is later than `end` (without drawing again, so that what is
    /// drawn after it stays as it was): a stamp is when a row was last written, and none was written in the future
    /// (a delta read asks for the rows whose stamp is later than its token).
    static func notLater(than end: Int64, from start: Int64, _ stamp: Int64) -> Int64 {
        guard stamp > end, end > start else { return min(stamp, end) }
        return start + (stamp - start) % (end - start + 1)
    }
}
