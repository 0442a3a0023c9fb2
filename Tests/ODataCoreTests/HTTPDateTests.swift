import Foundation
import Testing

@testable import ODataCore

@Suite struct HTTPDateTests {
    @Test func writes_imf_fixdate() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }

    @Test func what_it_writes_it_reads_back_across_four_centuries() {
        var seconds = -2_208_988_800  // 1900-01-01
        while seconds < 10_413_792_000 {  // 2300-01-01
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date, "\(seconds)")
            seconds += 86_400 * 37 + 3_599
        }
    }

    @Test func agrees_with_foundation_on_the_calendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        for seconds in stride(from: -2_208_988_800, to: 4_102_444_800, by: 86_400 * 101 + 17) {
            let date = Date(timeIntervalSince1970: Double(seconds))
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let civil = CivilCalendar.date(fromDays: Int((Double(seconds) / 86_400).rounded(.down)))
            #expect(civil.year == parts.year && civil.month == parts.month && civil.day == parts.day, "\(seconds)")
            #expect(HTTPDate.format(date).hasPrefix(HTTPDate.weekdays[parts.weekday! - 1]), "\(seconds)")
        }
    }

    @Test func refuses_what_is_not_a_date() {
        for text in [
            "", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 06 Nov 1994 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "06 Nov 1994 08:49:37 08:49:37",
            "Sun, 06 Nov 1994 08:49:37 GMT extra1", String(repeating: "9", count: 400),
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }
}
