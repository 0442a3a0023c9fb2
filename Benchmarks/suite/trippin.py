"""TripPin-shaped OData v4 pages for the ingest section (issue 37), written rather than recorded.

The reference service's people, as its `$metadata` describes them: an open entity type `Person` keyed by
`UserName`, with an enum (`Gender`), a flags-free enum collection (`Features`), a collection of strings
(`Emails`), a collection of complex `Location`s each holding a complex `City` (`AddressInfo`), a complex
`HomeAddress`, and two types derived from it (`Employee` with `Cost`, `Manager` with `Budget` and a complex
`BossOffice`), named by `@odata.type` on the rows that are of them; some rows carry dynamic properties (the type
is open). 100 pages of 100 people, the same bytes every time (a seeded generator), each page as a v4 service
answers `People?$top=100&$skip=…&$count=true` with minimal metadata.
"""
import json
import os
import random

NAMESPACE = "Trippin"
PAGES = 100
PAGE = 100

METADATA = """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
<edmx:DataServices><Schema Namespace="Trippin" xmlns="http://docs.oasis-open.org/odata/ns/edm">
<EnumType Name="PersonGender"><Member Name="Male" Value="0"/><Member Name="Female" Value="1"/><Member Name="Unknown" Value="2"/></EnumType>
<EnumType Name="Feature"><Member Name="Feature1" Value="0"/><Member Name="Feature2" Value="1"/><Member Name="Feature3" Value="2"/><Member Name="Feature4" Value="3"/></EnumType>
<ComplexType Name="City"><Property Name="Name" Type="Edm.String"/><Property Name="CountryRegion" Type="Edm.String"/><Property Name="Region" Type="Edm.String"/></ComplexType>
<ComplexType Name="Location" OpenType="true"><Property Name="Address" Type="Edm.String"/><Property Name="City" Type="Trippin.City"/></ComplexType>
<EntityType Name="Person" OpenType="true"><Key><PropertyRef Name="UserName"/></Key>
<Property Name="UserName" Type="Edm.String" Nullable="false"/><Property Name="FirstName" Type="Edm.String" Nullable="false"/>
<Property Name="LastName" Type="Edm.String" MaxLength="26"/><Property Name="MiddleName" Type="Edm.String"/>
<Property Name="Gender" Type="Trippin.PersonGender" Nullable="false"/><Property Name="Age" Type="Edm.Int64"/>
<Property Name="Emails" Type="Collection(Edm.String)"/><Property Name="AddressInfo" Type="Collection(Trippin.Location)"/>
<Property Name="HomeAddress" Type="Trippin.Location"/><Property Name="FavoriteFeature" Type="Trippin.Feature" Nullable="false"/>
<Property Name="Features" Type="Collection(Trippin.Feature)" Nullable="false"/>
</EntityType>
<EntityType Name="Employee" BaseType="Trippin.Person"><Property Name="Cost" Type="Edm.Int64" Nullable="false"/></EntityType>
<EntityType Name="Manager" BaseType="Trippin.Person"><Property Name="Budget" Type="Edm.Int64" Nullable="false"/>
<Property Name="BossOffice" Type="Trippin.Location"/></EntityType>
<EntityContainer Name="Container"><EntitySet Name="People" EntityType="Trippin.Person"/></EntityContainer>
</Schema></edmx:DataServices></edmx:Edmx>
"""

FIRST = ["Russell", "Scott", "Ronald", "Javier", "Willie", "Vincent", "Clyde", "Keith", "Marshall", "Ryan",
         "Elaine", "Sallie", "Joni", "Georgina", "Angel", "Laurel", "Sandy", "Ursula", "Genevieve", "Kristakis"]
LAST = ["Whyte", "Ketchum", "Mundy", "Alfaro", "Ashmore", "Calabrese", "Guess", "Pinckney", "Garay", "Stewart",
        "Bertram", "Sampson", "Kinney", "Barlow", "Fumagalli", "Hermione", "Baldwin", "Bennet", "Hubbard", "Allen"]
CITIES = [("Boise", "United States", "ID"), ("Seattle", "United States", "WA"), ("Bend", "United States", "OR"),
          ("Shanghai", "China", "Shanghai"), ("Zürich", "Switzerland", "ZH"), ("Kraków", "Poland", "Małopolska")]
FEATURES = ["Feature1", "Feature2", "Feature3", "Feature4"]


def location(rng):
    name, country, region = rng.choice(CITIES)
    place = {"Address": "%d %s Street" % (rng.randint(1, 999), rng.choice(LAST)),
             "City": {"Name": name, "CountryRegion": country, "Region": region}}
    if rng.random() < 0.2:
        place["Floor"] = rng.randint(1, 40)  # (a dynamic member: Location is open)
    return place


def person(rng, index):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    kind = index % 10
    row = {}
    if kind == 0:
        row["@odata.type"] = "#%s.Manager" % NAMESPACE
    elif kind in (1, 2, 3):
        row["@odata.type"] = "#%s.Employee" % NAMESPACE
    user = "%s%s%05d" % (first.lower(), last.lower(), index)
    row["@odata.etag"] = 'W/"%016X"' % (0x08D0000000000000 + index)
    row.update({
        "UserName": user, "FirstName": first, "LastName": last, "MiddleName": None if index % 3 else "J.",
        "Gender": rng.choice(["Male", "Female", "Unknown"]), "Age": rng.randint(18, 80) if index % 7 else None,
        "Emails": ["%s@example.com" % user, "%s@contoso.com" % first.lower()][: 1 + index % 2],
        "AddressInfo": [location(rng) for _ in range(1 + index % 3)],
        "HomeAddress": location(rng) if index % 4 else None,
        "FavoriteFeature": rng.choice(FEATURES),
        "Features": rng.sample(FEATURES, 1 + index % 4),
    })
    if kind == 0:
        row["Budget"] = rng.randint(1000, 5_000_000)
        row["BossOffice"] = location(rng)
    elif kind in (1, 2, 3):
        row["Cost"] = rng.randint(1000, 500_000)
    # Dynamic properties of the open type, on some rows
    if index % 4 == 1:
        row["Nickname"] = first[:3] + "ie"
    if index % 5 == 2:
        row["Score"] = round(rng.random() * 100, 2)
    return row


def write(directory, root="http://127.0.0.1/CarDealer.svc/"):
    """Writes `metadata.xml` and `page-0000.json`… into `directory`; returns its total page bytes."""
    rng = random.Random(37)
    with open(os.path.join(directory, "metadata.xml"), "w", encoding="utf-8") as out:
        out.write(METADATA)
    total = 0
    for page in range(PAGES):
        body = {"@odata.context": root + "$metadata#People", "@odata.count": PAGES * PAGE,
                "value": [person(rng, page * PAGE + row) for row in range(PAGE)]}
        if page + 1 < PAGES:
            body["@odata.nextLink"] = root + "People?$top=%d&$skip=%d" % (PAGE, (page + 1) * PAGE)
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        total += len(data)
        with open(os.path.join(directory, "page-%04d.json" % page), "wb") as out:
            out.write(data)
    return total
