import Foundation

extension DisplayProfile {
    /// The CarDealer profile, compiled in so the binary needs no resource files.
    /// Its source is `Assets/cardealer.profile.json`; a test checks the two are the same.
    public static let carDealerJSON = #"""
{
    "comment": "Display profile for the CarDealer service: which sets are screens, their titles and columns, and which link entities the user hops through without seeing them.",
    "root": "Person",
    "sets": {
        "Person": {
            "title": "People",
            "row": "{lastName}, {firstName}",
            "orderBy": ["lastName", "firstName", "personID"],
            "search": ["lastName", "firstName"],
            "columns": [
                {"title": "Name", "value": "{lastName}, {firstName}", "width": 32},
                {"title": "Customer since", "value": "{createDate:date}", "width": 14}
            ],
            "drill": {"path": ["PersonCar", "Car"], "title": "Cars"}
        },
        "Car": {
            "title": "Cars",
            "row": "{make} {model}",
            "orderBy": ["make", "model", "carID"],
            "search": ["make", "model"],
            "columns": [
                {"title": "Make", "value": "{make}", "width": 14},
                {"title": "Model", "value": "{model}", "width": 18},
                {"title": "Year", "value": "{manufactureDate:year}", "width": 6}
            ],
            "drill": {"path": ["PersonCar", "Person"], "title": "Owners"}
        },
        "PersonCar": {
            "title": "Ownerships",
            "row": "Ownership {personCarID}",
            "drill": {"path": ["PersonCarMaintenance", "Maintenance"], "title": "Maintenance"}
        },
        "Maintenance": {
            "title": "Maintenance",
            "row": "{serviceDate:date} {description}",
            "orderBy": ["serviceDate desc", "maintenanceID"],
            "search": ["description"],
            "columns": [
                {"title": "Date", "value": "{serviceDate:date}", "width": 10},
                {"title": "Description", "value": "{description}", "width": 0},
                {"title": "Mileage", "value": "{mileage:grouped}", "width": 9, "align": "right"},
                {"title": "Cost", "value": "{cost:money}", "width": 10, "align": "right"}
            ]
        },
        "PersonCarMaintenance": {
            "title": "Service records",
            "row": "Record {personCarMaintenanceID}"
        }
    }
}
"""#

    /// The CarDealer profile (nil only if ``carDealerJSON`` were broken, which a test rules out).
    public static var carDealer: DisplayProfile? { try? load(from: Data(carDealerJSON.utf8)) }
}
