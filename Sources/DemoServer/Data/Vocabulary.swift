/// Words the data generator draws from: names (some deliberately non-ASCII or with quotes), car makes and
/// models, and maintenance jobs with typical costs.
enum Vocabulary {
    static let firstNames = [
        "Bob", "Alice", "James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William",
        "Elizabeth", "David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles",
        "Karen", "Daniel", "Nancy", "Matthew", "Lisa", "Anthony", "Betty", "Mark", "Margaret", "Steven", "Sandra",
        "Paul", "Ashley", "Andrew", "Emily", "Joshua", "Donna", "Kenneth", "Michelle", "Kevin", "Carol", "Brian",
        "Amanda", "George", "Melissa", "Zoë", "José", "Björn", "Łukasz", "Søren", "Renée", "Chloé", "François",
        "Ángel", "Jürgen", "Siobhán", "Nguyễn Văn", "Ólafur", "Dmitrï", "Aoife", "Mei", "Hiroshi", "Priya",
    ]

    static let lastNames = [
        "Samson", "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
        "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson",
        "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
        "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green",
        "O'Neil", "O'Brien", "D'Angelo", "Núñez", "Müller", "Åström", "Øvergård", "Żółkiewski", "Σταύρου",
        "Иванов", "van der Berg", "de la Cruz", "Smith-Jones", "McAllister", "Nakamura", "Kowalski", "Dubois",
    ]

    /// Makes with their models.
    static let makes: [(make: String, models: [String])] = [
        ("Ford", ["Explorer", "Mustang", "F-150", "Focus", "Fiesta", "Taurus", "Escape", "Ranger"]),
        ("Toyota", ["Corolla", "Camry", "Prius", "RAV4", "Hilux", "Land Cruiser", "Yaris"]),
        ("Honda", ["Civic", "Accord", "CR-V", "Jazz", "Odyssey"]),
        ("Chevrolet", ["Impala", "Malibu", "Camaro", "Silverado", "Corvette", "Bel Air"]),
        ("Volkswagen", ["Golf", "Beetle", "Passat", "Polo", "Jetta", "Transporter"]),
        ("BMW", ["3 Series", "5 Series", "X5", "Z4", "2002"]),
        ("Mercedes-Benz", ["C-Class", "E-Class", "S-Class", "SL", "G-Class"]),
        ("Citroën", ["2CV", "DS", "C3", "Berlingo"]),
        ("Škoda", ["Octavia", "Fabia", "Superb"]),
        ("Nissan", ["Altima", "Leaf", "Micra", "Skyline", "Patrol"]),
        ("Volvo", ["240", "V70", "XC90", "Amazon"]),
        ("Subaru", ["Impreza", "Outback", "Forester"]),
        ("Tesla", ["Model S", "Model 3", "Model Y"]),
        ("Fiat", ["500", "Panda", "Uno", "Punto"]),
        ("Peugeot", ["205", "308", "406", "504"]),
    ]

    /// Maintenance jobs with a cost range in whole currency units.
    static let jobs: [(description: String, cost: ClosedRange<Int>)] = [
        ("Oil change", 30...90), ("Tire rotation", 20...60), ("Brake pads replaced", 120...350),
        ("Annual inspection", 60...150), ("Battery replaced", 90...250), ("Timing belt replaced", 400...1100),
        ("Air filter replaced", 15...60), ("Transmission fluid flush", 100...250), ("Wheel alignment", 60...140),
        ("Windshield wiper blades", 15...45), ("Coolant flush", 80...160), ("Spark plugs replaced", 90...300),
        ("Clutch replaced", 800...2200), ("New tires (set of 4)", 350...1200), ("A/C recharge", 100...300),
        ("Exhaust repair — muffler & pipe", 150...600), ("Headlight bulb", 10...80), ("Engine rebuilt", 2500...6000),
    ]

    /// The jobs of a routine visit, and the costly repairs that come now and then.
    static let routine = jobs.filter { $0.cost.upperBound <= 300 }
    static let repairs = jobs.filter { $0.cost.upperBound > 300 }

    /// A deliberately very long description (about 2,000 characters), for layout and transport tests.
    static let longDescription: String = {
        let sentence =
            "Full restoration after storage: engine, gearbox, brakes, suspension, wiring and interior "
            + "inspected and repaired; rust treated on sills and wheel arches; all fluids replaced. "
        return String(repeating: sentence, count: 11) + "Customer notified — «très bien» ✓"
    }()
}
