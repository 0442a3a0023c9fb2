import Foundation
import ODataCore
import Testing

@testable import ODataHTTP

@Suite struct CookieJarTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let service = URL(string: "https://gw.example.com/sap/opu/odata/sap/ZCARS_SRV/Person")!

    func url(_ text: String) -> URL { URL(string: text)! }

    @Test func a_session_cookie_goes_back_to_its_host_under_its_path() {
        let jar = CookieJar()
        jar.store(
            ["SAP_SESSIONID_GW1_100=AbC%2fdef; path=/; secure; HttpOnly", "sap-usercontext=sap-client=100; path=/"],
            from: service, now: now)
        #expect(jar.header(for: service, now: now) == "SAP_SESSIONID_GW1_100=AbC%2fdef; sap-usercontext=sap-client=100")
        // Not to another host, nor a subdomain: no Domain attribute means this host only
        #expect(jar.header(for: url("https://other.example.com/sap/x"), now: now) == nil)
        #expect(jar.header(for: url("https://a.gw.example.com/sap/x"), now: now) == nil)
        // A Secure cookie never goes over plain http
        #expect(jar.header(for: url("http://gw.example.com/sap/x"), now: now) == "sap-usercontext=sap-client=100")
    }

    @Test func the_default_path_is_the_requests_directory_and_paths_match_at_slashes() {
        let jar = CookieJar()
        jar.store(["a=1"], from: url("http://h.test/svc/Person"), now: now)
        jar.store(["b=2; Path=/svc/Person"], from: url("http://h.test/svc/Person"), now: now)
        jar.store(["c=3; Path=relative"], from: url("http://h.test/other/x"), now: now)
        #expect(jar.all.map(\.path) == ["/svc", "/svc/Person", "/other"])
        #expect(jar.header(for: url("http://h.test/svc/Person(1)/PersonCar"), now: now) == "a=1")
        #expect(jar.header(for: url("http://h.test/svc/Person/x"), now: now) == "b=2; a=1")
        #expect(jar.header(for: url("http://h.test/svcother"), now: now) == nil)
        #expect(jar.header(for: url("http://h.test/"), now: now) == nil)
    }

    @Test func a_domain_cookie_reaches_subdomains_but_a_foreign_or_ip_domain_is_refused() {
        let jar = CookieJar()
        jar.store(["lb=node7; Domain=.example.com; Path=/"], from: service, now: now)
        jar.store(["evil=1; Domain=attacker.test", "tld=1; Domain=com"], from: service, now: now)
        jar.store(["ip=1; Domain=0.0.1"], from: url("http://127.0.0.1:8080/svc/"), now: now)
        #expect(jar.all.map(\.name) == ["lb"])
        #expect(jar.header(for: url("https://api.example.com/x"), now: now) == "lb=node7")
        #expect(jar.header(for: url("https://example.com/x"), now: now) == "lb=node7")
        #expect(jar.header(for: url("https://notexample.com/x"), now: now) == nil)
    }

    @Test func max_age_and_expires_end_a_cookie_and_a_past_one_deletes_it() {
        let jar = CookieJar()
        jar.store(
            [
                "short=1; Max-Age=60", "dated=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT",
                "both=1; Max-Age=10; Expires=Wed, 21 Oct 2099 07:28:00 GMT",
                "old=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT",
            ],
            from: service, now: now)
        #expect(jar.header(for: service, now: now) == "short=1; dated=1; both=1")
        #expect(jar.header(for: service, now: now.addingTimeInterval(30)) == "short=1; dated=1")
        #expect(jar.header(for: service, now: now.addingTimeInterval(120)) == "dated=1")
        // When the server deletes one (Max-Age=0) or sets it again, it is gone or replaced
        jar.store(["dated=; Max-Age=0", "short=2; Max-Age=60"], from: service, now: now)
        #expect(jar.header(for: service, now: now) == "both=1; short=2")
    }

    @Test func every_expires_form_servers_send_is_read() {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // 1994-11-06 08:49:37 UTC
        for text in [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun, 06-Nov-1994 08:49:37 GMT",
        ] {
            #expect(HTTPDate.parse(text) == expected, "\(text)")
        }
        #expect(HTTPDate.parse("tomorrow") == nil)
    }

    @Test func malformed_oversized_or_header_breaking_cookies_are_dropped() {
        let jar = CookieJar()
        let hostile = [
            "novalue", "=anonymous", "a b=1", "x=1\r\nX-Injected: yes", "y=1,z=2",
            "big=" + String(repeating: "v", count: 5_000),
            "ok=\"quoted\"",
        ]
        jar.store(hostile, from: service, now: now)
        #expect(jar.all.map(\.name) == ["ok"])
        #expect(jar.header(for: service, now: now) == "ok=quoted")
    }

    @Test func the_jar_keeps_at_most_fifty_dropping_the_oldest() {
        let jar = CookieJar()
        jar.store((0..<60).map { "c\($0)=\($0)" }, from: service, now: now)
        #expect(jar.all.count == CookieJar.maxCookies)
        #expect(jar.all.first?.name == "c10")
    }
}
