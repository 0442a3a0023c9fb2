import ODataCore

/// A CarDealer `$metadata` matching the seed service (Person, Car, PersonCar, Maintenance, PersonCarMaintenance).
enum CarDealerModel {
    static let edmx = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
          xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
         <edmx:DataServices m:DataServiceVersion="2.0">
          <Schema Namespace="edmexampleModel" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
           <EntityType Name="Person"><Key><PropertyRef Name="personID"/></Key>
            <Property Name="personID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="firstName" Type="Edm.String"/><Property Name="lastName" Type="Edm.String"/>
            <Property Name="ssn" Type="Edm.String"/><Property Name="createDate" Type="Edm.DateTime"/>
            <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.FK_PC_Person" FromRole="Person" ToRole="PersonCar"/>
           </EntityType>
           <EntityType Name="Car"><Key><PropertyRef Name="carID"/></Key>
            <Property Name="carID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="make" Type="Edm.String"/><Property Name="model" Type="Edm.String"/>
            <Property Name="manufactureDate" Type="Edm.DateTime"/><Property Name="createStamp" Type="Edm.DateTime"/>
            <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.FK_PC_Car" FromRole="Car" ToRole="PersonCar"/>
           </EntityType>
           <EntityType Name="PersonCar"><Key><PropertyRef Name="personCarID"/></Key>
            <Property Name="personCarID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="createStamp" Type="Edm.DateTime"/>
            <NavigationProperty Name="Car" Relationship="edmexampleModel.FK_PC_Car" FromRole="PersonCar" ToRole="Car"/>
            <NavigationProperty Name="Person" Relationship="edmexampleModel.FK_PC_Person" FromRole="PersonCar" ToRole="Person"/>
            <NavigationProperty Name="PersonCarMaintenance" Relationship="edmexampleModel.FK_PCM_PC" FromRole="PersonCar" ToRole="PersonCarMaintenance"/>
           </EntityType>
           <EntityType Name="Maintenance"><Key><PropertyRef Name="maintenanceID"/></Key>
            <Property Name="maintenanceID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="description" Type="Edm.String"/>
            <NavigationProperty Name="PersonCarMaintenance" Relationship="edmexampleModel.FK_PCM_M" FromRole="Maintenance" ToRole="PersonCarMaintenance"/>
           </EntityType>
           <EntityType Name="PersonCarMaintenance"><Key><PropertyRef Name="pcmID"/></Key>
            <Property Name="pcmID" Type="Edm.Int32" Nullable="false"/>
            <NavigationProperty Name="Maintenance" Relationship="edmexampleModel.FK_PCM_M" FromRole="PersonCarMaintenance" ToRole="Maintenance"/>
            <NavigationProperty Name="PersonCar" Relationship="edmexampleModel.FK_PCM_PC" FromRole="PersonCarMaintenance" ToRole="PersonCar"/>
           </EntityType>
           <Association Name="FK_PC_Person"><End Role="Person" Type="edmexampleModel.Person" Multiplicity="1"/>
            <End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
           <Association Name="FK_PC_Car"><End Role="Car" Type="edmexampleModel.Car" Multiplicity="1"/>
            <End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="*"/></Association>
           <Association Name="FK_PCM_PC"><End Role="PersonCar" Type="edmexampleModel.PersonCar" Multiplicity="1"/>
            <End Role="PersonCarMaintenance" Type="edmexampleModel.PersonCarMaintenance" Multiplicity="*"/></Association>
           <Association Name="FK_PCM_M"><End Role="Maintenance" Type="edmexampleModel.Maintenance" Multiplicity="1"/>
            <End Role="PersonCarMaintenance" Type="edmexampleModel.PersonCarMaintenance" Multiplicity="*"/></Association>
           <EntityContainer Name="Entities" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Person" EntityType="edmexampleModel.Person"/>
            <EntitySet Name="Car" EntityType="edmexampleModel.Car"/>
            <EntitySet Name="PersonCar" EntityType="edmexampleModel.PersonCar"/>
            <EntitySet Name="Maintenance" EntityType="edmexampleModel.Maintenance"/>
            <EntitySet Name="PersonCarMaintenance" EntityType="edmexampleModel.PersonCarMaintenance"/>
           </EntityContainer>
          </Schema>
         </edmx:DataServices>
        </edmx:Edmx>
        """

    static var model: ServiceModel { try! EDMXParser.parse(edmx) }
}
