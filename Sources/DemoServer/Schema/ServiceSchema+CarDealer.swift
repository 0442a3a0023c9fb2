extension ServiceSchema {
    /// The CarDealer model of the seed: people, their cars (many-to-many through `PersonCar`) and each
    /// owned car's maintenance (many-to-many through `PersonCarMaintenance`).
    public static let carDealer: ServiceSchema = {
        var schema = carDealerData
        schema.functions = [.carsBuiltBefore]
        schema.offersMaintenanceCost = true
        schema.offersRecordService = true
        schema.offersWorkOrders = true
        return schema
    }()

    /// Its sets and relations.
    static let carDealerData = ServiceSchema(
        namespace: "edmexampleModel",
        containerName: "edmexampleEntities",
        entitySets: [
            EntitySetSchema(
                name: "Person", key: "personID",
                properties: [
                    PropertySchema("personID", .int32), PropertySchema("firstName", .string, maxLength: 50),
                    PropertySchema("lastName", .string, maxLength: 50), PropertySchema("ssn", .string, maxLength: 9),
                    PropertySchema("createDate", .dateTime),
                ],
                concurrencyProperty: "createDate",
                indexed: ["lastName", "firstName", "createDate", "lastName,firstName"],
                searchable: ["lastName", "firstName"],
                screen: ScreenSchema(
                    typeName: "Person", typeNamePlural: "People", title: "lastName", description: "firstName",
                    lineItem: [
                        ("lastName", "Last name"), ("firstName", "First name"), ("createDate", "Customer since"),
                    ],
                    labels: [
                        "personID": "Person number", "firstName": "First name", "lastName": "Last name",
                        "ssn": "Social security number", "createDate": "Customer since",
                    ],
                    sortOrder: [("lastName", false), ("firstName", false), ("personID", false)])
            ),
            EntitySetSchema(
                name: "Car", key: "carID",
                properties: [
                    PropertySchema("carID", .int32), PropertySchema("make", .string, maxLength: 50),
                    PropertySchema("model", .string, maxLength: 50), PropertySchema("manufactureDate", .dateTime),
                    PropertySchema("createStamp", .dateTime),
                ],
                concurrencyProperty: "createStamp", indexed: ["make", "manufactureDate"],
                screen: ScreenSchema(
                    typeName: "Car", typeNamePlural: "Cars", title: "make", description: "model",
                    lineItem: [("make", "Make"), ("model", "Model"), ("manufactureDate", "Built")],
                    labels: [
                        "carID": "Car number", "make": "Make", "model": "Model", "manufactureDate": "Built",
                        "createStamp": "Changed",
                    ],
                    valueLists: ["make": ("Make", "name", "Makes")],
                    sortOrder: [("make", false), ("model", false), ("carID", false)])
            ),
            EntitySetSchema(
                name: "PersonCar", key: "personCarID",
                properties: [PropertySchema("personCarID", .int32), PropertySchema("createStamp", .dateTime)],
                concurrencyProperty: "createStamp", indexed: [],
                screen: ScreenSchema(
                    typeName: "Ownership", typeNamePlural: "Ownerships", title: "personCarID",
                    lineItem: [("personCarID", "Ownership number"), ("createStamp", "Since")],
                    labels: ["personCarID": "Ownership number", "createStamp": "Since"])
            ),
            EntitySetSchema(
                name: "Maintenance", key: "maintenanceID",
                properties: [
                    PropertySchema("maintenanceID", .int32), PropertySchema("description", .string),
                    PropertySchema("serviceDate", .dateTime), PropertySchema("mileage", .int32),
                    PropertySchema("cost", .decimalCents), PropertySchema("createStamp", .dateTime),
                ],
                concurrencyProperty: "createStamp", indexed: ["serviceDate"],
                screen: ScreenSchema(
                    typeName: "Maintenance record", typeNamePlural: "Maintenance", title: "description",
                    description: "serviceDate",
                    lineItem: [
                        ("serviceDate", "Date"), ("description", "Description"), ("mileage", "Mileage"),
                        ("cost", "Cost"),
                    ],
                    labels: [
                        "maintenanceID": "Record number", "description": "Description", "serviceDate": "Date",
                        "mileage": "Mileage", "cost": "Cost", "createStamp": "Changed",
                    ],
                    currencies: ["cost": "USD"], sortOrder: [("serviceDate", true), ("maintenanceID", false)])
            ),
            // The makes a car's make is picked from: its value help (issue 33).
            EntitySetSchema(
                name: "Make", key: "makeID",
                properties: [
                    PropertySchema("makeID", .int32), PropertySchema("name", .string, maxLength: 50),
                    PropertySchema("createStamp", .dateTime),
                ],
                concurrencyProperty: "createStamp", indexed: ["name"],
                screen: ScreenSchema(
                    typeName: "Make", typeNamePlural: "Makes", title: "name", lineItem: [("name", "Make")],
                    labels: ["makeID": "Make number", "name": "Make", "createStamp": "Changed"],
                    sortOrder: [("name", false), ("makeID", false)])
            ),
            EntitySetSchema(
                name: "PersonCarMaintenance", key: "personCarMaintenanceID",
                properties: [
                    PropertySchema("personCarMaintenanceID", .int32), PropertySchema("createStamp", .dateTime),
                ],
                concurrencyProperty: "createStamp", indexed: [],
                screen: ScreenSchema(
                    typeName: "Service record", typeNamePlural: "Service records", title: "personCarMaintenanceID",
                    lineItem: [("personCarMaintenanceID", "Record number"), ("createStamp", "Since")],
                    labels: ["personCarMaintenanceID": "Record number", "createStamp": "Since"])
            ),
            // What is fitted to a car beyond its model (issue 37): in v4 each lives inside its car (containment).
            EntitySetSchema(
                name: "CarOption", key: "optionID",
                properties: [
                    PropertySchema("optionID", .int32), PropertySchema("name", .string, maxLength: 60),
                    PropertySchema("price", .decimalCents), PropertySchema("createStamp", .dateTime),
                ],
                concurrencyProperty: "createStamp", indexed: [],
                screen: ScreenSchema(
                    typeName: "Option", typeNamePlural: "Options", title: "name",
                    lineItem: [("name", "Option"), ("price", "Price")],
                    labels: [
                        "optionID": "Option number", "name": "Option", "price": "Price", "createStamp": "Changed",
                    ],
                    currencies: ["price": "USD"], sortOrder: [("name", false), ("optionID", false)])
            ),
        ],
        relations: [
            RelationSchema(
                name: "FK_PersonCar_Person", principal: "Person", dependent: "PersonCar", foreignKey: "personID",
                principalNavigation: "PersonCar", dependentNavigation: "Person"
            ),
            RelationSchema(
                name: "FK_PersonCar_Car", principal: "Car", dependent: "PersonCar", foreignKey: "carID",
                principalNavigation: "PersonCar", dependentNavigation: "Car"
            ),
            RelationSchema(
                name: "FK_PersonCarMaintenance_PersonCar", principal: "PersonCar", dependent: "PersonCarMaintenance",
                foreignKey: "personCarID", principalNavigation: "PersonCarMaintenance", dependentNavigation: "PersonCar"
            ),
            RelationSchema(
                name: "FK_PersonCarMaintenance_Maintenance", principal: "Maintenance",
                dependent: "PersonCarMaintenance", foreignKey: "maintenanceID",
                principalNavigation: "PersonCarMaintenance", dependentNavigation: "Maintenance"
            ),
            RelationSchema(
                name: "FK_CarOption_Car", principal: "Car", dependent: "CarOption", foreignKey: "carID",
                principalNavigation: "Options", dependentNavigation: "Car", isContainment: true
            ),
        ]
    )
}
