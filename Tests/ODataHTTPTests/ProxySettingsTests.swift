import AsyncHTTPClient
import Foundation
import Testing

@testable import ODataHTTP

/// The proxy environment variables, read as curl reads them, and the proxy addresses they hold.
@Suite struct ProxySettingsTests {
    /// The proxy `environment` gives for `url`, or the error's sentence.
    func proxy(
        _ environment: [String: String], for url: String
    ) -> Result<ProxyServer?, ProxySettings.ConfigurationError> {
        Result { () throws(ProxySettings.ConfigurationError) in
            try ProxySettings(environment: environment).proxy(for: URL(string: url)!)
        }
    }

    func address(_ environment: [String: String], for url: String) -> String? {
        (try? proxy(environment, for: url).get())??.description
    }

    // MARK: - Which variable

    @Test func http_proxy_is_read_in_lower_case_only_and_https_proxy_in_either_case_lower_first() {
        // HTTP_PROXY can be set by a web client through a CGI server's Proxy: header: curl ignores it
        #expect(address(["HTTP_PROXY": "evil.test:1"], for: "http://svc.test/") == nil)
        #expect(address(["http_proxy": "proxy.test:3128"], for: "http://svc.test/") == "http://proxy.test:3128")
        #expect(address(["HTTPS_PROXY": "upper.test:8080"], for: "https://svc.test/") == "http://upper.test:8080")
        let both = ["https_proxy": "lower.test:1", "HTTPS_PROXY": "upper.test:2"]
        #expect(address(both, for: "https://svc.test/") == "http://lower.test:1")
    }

    @Test func each_scheme_uses_its_own_variable() {
        let environment = ["http_proxy": "plain.test:1", "https_proxy": "secure.test:2"]
        #expect(address(environment, for: "http://svc.test/") == "http://plain.test:1")
        #expect(address(environment, for: "https://svc.test/") == "http://secure.test:2")
        #expect(address(["https_proxy": "secure.test:2"], for: "http://svc.test/") == nil)
    }

    @Test func all_proxy_applies_when_the_scheme_has_no_variable_of_its_own() {
        let environment = ["ALL_PROXY": "upper.test:1", "all_proxy": "lower.test:2", "https_proxy": "secure.test:3"]
        #expect(address(environment, for: "http://svc.test/") == "http://lower.test:2")
        #expect(address(environment, for: "https://svc.test/") == "http://secure.test:3")
        #expect(address(["ALL_PROXY": "upper.test:1"], for: "https://svc.test/") == "http://upper.test:1")
    }

    @Test func an_empty_variable_counts_as_unset() {
        let emptyLower = ["https_proxy": "", "HTTPS_PROXY": "upper.test:2"]
        #expect(address(emptyLower, for: "https://svc.test/") == "http://upper.test:2")
        #expect(address(["http_proxy": "  "], for: "http://svc.test/") == nil)
    }

    @Test func no_variables_means_no_proxy() {
        #expect(address([:], for: "http://svc.test/") == nil)
        #expect(address([:], for: "https://svc.test/") == nil)
    }

    // MARK: - Proxy addresses

    @Test func a_proxy_address_is_read_in_every_accepted_form() throws {
        let forms: [(String, host: String, port: Int)] = [
            ("proxy.test:3128", "proxy.test", 3128),
            ("http://proxy.test:3128", "proxy.test", 3128),
            ("http://proxy.test:3128/", "proxy.test", 3128),
            ("HTTP://proxy.test:80", "proxy.test", 80),
            (" http://proxy.test:8080 ", "proxy.test", 8080),
            ("http://proxy.test", "proxy.test", 1080),  // curl's default proxy port
            ("proxy.test", "proxy.test", 1080),
            ("10.0.0.1:3128", "10.0.0.1", 3128),
            ("http://[2001:db8::1]:3128", "2001:db8::1", 3128),
        ]
        for (text, host, port) in forms {
            let server = try ProxyServer.parse(text, variable: "http_proxy")
            #expect(server.host == host, "\(text)")
            #expect(server.port == port, "\(text)")
            #expect(!server.hasCredentials, "\(text)")
        }
        let v6 = try ProxyServer.parse("http://[2001:db8::1]:3128", variable: "http_proxy")
        #expect(v6.description == "http://[2001:db8::1]:3128")
    }

    @Test func credentials_in_a_proxy_address_become_basic_proxy_authorization_percent_decoded() throws {
        let server = try ProxyServer.parse("http://proxy%20user:p%40ss:word@proxy.test:3128", variable: "http_proxy")
        #expect(server.host == "proxy.test" && server.port == 3128)
        #expect(server.hasCredentials)
        #expect(server.clientProxy.authorization == .basic(username: "proxy user", password: "p@ss:word"))
        let bare = try ProxyServer.parse("user:pw@proxy.test:1", variable: "http_proxy")
        #expect(bare.clientProxy.authorization == .basic(username: "user", password: "pw"))
        #expect(try ProxyServer.parse("http://proxy.test:1", variable: "x").clientProxy.authorization == nil)
    }

    @Test func a_proxy_never_shows_its_credentials_in_a_description_a_mirror_or_a_dump() throws {
        let server = try ProxyServer.parse("http://proxyuser:s3cret@proxy.test:3128", variable: "http_proxy")
        var dumped = ""
        dump(server, to: &dumped)
        for text in ["\(server)", String(describing: server), String(reflecting: server), dumped, "\([server])"] {
            #expect(!text.contains("s3cret") && !text.contains("proxyuser"), "\(text)")
        }
        #expect(server.description == "http://proxy.test:3128")
        #expect(String(reflecting: server) == "ProxyServer(http://proxy.test:3128, with credentials)")
    }

    @Test func an_https_proxy_is_refused_with_a_sentence_that_names_the_variable_not_the_value() {
        let result = proxy(["https_proxy": "https://proxyuser:s3cret@proxy.test:443"], for: "https://svc.test/")
        guard case .failure(let error) = result else {
            Issue.record("an https:// proxy should be refused")
            return
        }
        #expect(error.description.hasPrefix("https_proxy names an https:// proxy, which cannot be used"))
        #expect(!error.description.contains("s3cret") && !error.description.contains("proxyuser"))
        #expect(!String(reflecting: error).contains("s3cret"))
    }

    @Test func SOCKS_and_other_schemes_are_refused() {
        for (value, expected) in [
            ("socks5h://proxy.test:1080", "ALL_PROXY names a socks5h:// proxy; SOCKS proxies are not supported"),
            ("ftp://proxy.test:21", "ALL_PROXY names a proxy of scheme ftp:// that is not supported"),
        ] {
            guard case .failure(let error) = proxy(["ALL_PROXY": value], for: "http://svc.test/") else {
                Issue.record("\(value) should be refused")
                continue
            }
            #expect(error.description.hasPrefix(expected), "\(error)")
        }
    }

    @Test func a_malformed_address_or_port_is_refused_without_repeating_the_value() {
        let malformed = [
            "http://proxyuser:s3cret@", "http://proxyuser:s3cret@:3128", "proxy.test:0", "proxy.test:65536",
            "proxy.test:s3cret", "http://prox y.test:1", "[2001:db8::1", "[2001:db8::1]x",
        ]
        for value in malformed {
            do {
                let server = try ProxyServer.parse(value, variable: "http_proxy")
                Issue.record("\(value) should be refused, was read as \(server)")
            } catch {
                #expect(error.description.hasPrefix("http_proxy "), "\(value): \(error)")
                #expect(!error.description.contains("s3cret") && !error.description.contains("proxy.test"), "\(error)")
            }
        }
    }

    @Test func a_bad_variable_matters_only_where_it_applies() {
        let environment = ["https_proxy": "https://proxy.test:443"]
        // Given an https_proxy that cannot be used: an http service goes direct, and so does a loopback one
        #expect(address(environment, for: "http://svc.test/") == nil)
        #expect(address(environment, for: "https://127.0.0.1:8443/svc/") == nil)
        #expect(address(environment.merging(["no_proxy": "svc.test"]) { $1 }, for: "https://svc.test/") == nil)
        // but an https service says why it cannot start
        if case .success(let server) = proxy(environment, for: "https://svc.test/") {
            Issue.record("an https service should not start, was given \(String(describing: server))")
        }
    }

    // MARK: - Direct hosts

    @Test func loopback_hosts_never_go_through_the_proxy() {
        let environment = ["http_proxy": "proxy.test:3128", "https_proxy": "proxy.test:3128"]
        for url in [
            "http://localhost:8080/svc/", "http://LOCALHOST/", "http://demo.localhost/", "http://127.0.0.1:49152/",
            "http://127.1.2.3/", "https://[::1]:8443/", "http://[::ffff:127.0.0.1]/",
        ] {
            #expect(address(environment, for: url) == nil, "\(url)")
        }
        for url in ["http://128.0.0.1/", "http://localhost.example.test/", "http://[::2]/"] {
            #expect(address(environment, for: url) == "http://proxy.test:3128", "\(url)")
        }
    }

    @Test func no_proxy_matches_a_host_exactly_or_as_a_domain_suffix() {
        for entry in ["example.test", ".example.test", "*.example.test", "EXAMPLE.test.", "other.test,example.test"] {
            let settings = ProxySettings(environment: ["no_proxy": entry])
            for host in ["example.test", "api.example.test", "a.b.example.test", "API.Example.Test."] {
                #expect(settings.goesDirectly(host: host, port: 80), "\(entry) should cover \(host)")
            }
            for host in ["notexample.test", "example.test.evil.test", "test", "example"] {
                #expect(!settings.goesDirectly(host: host, port: 80), "\(entry) should not cover \(host)")
            }
        }
    }

    @Test func a_lone_star_in_no_proxy_sends_everything_direct() {
        for value in ["*", "other.test, *"] {
            let settings = ProxySettings(environment: ["no_proxy": value])
            #expect(settings.goesDirectly(host: "anything.test", port: 443))
            #expect(settings.goesDirectly(host: "10.9.8.7", port: 80))
        }
        #expect(address(["http_proxy": "proxy.test:1", "no_proxy": "*"], for: "http://svc.test/") == nil)
    }

    @Test func a_no_proxy_entry_with_a_port_matches_that_port_only() {
        let settings = ProxySettings(environment: ["no_proxy": "example.test:8080,[2001:db8::1]:8443,10.0.0.1:81"])
        #expect(settings.goesDirectly(host: "api.example.test", port: 8080))
        #expect(!settings.goesDirectly(host: "api.example.test", port: 80))
        #expect(settings.goesDirectly(host: "[2001:db8::1]", port: 8443))
        #expect(!settings.goesDirectly(host: "2001:db8::1", port: 443))
        #expect(settings.goesDirectly(host: "10.0.0.1", port: 81))
        #expect(!settings.goesDirectly(host: "10.0.0.1", port: 80))
        // The port is the URL's, or its scheme's default
        let environment = ["https_proxy": "proxy.test:1", "no_proxy": "svc.test:443"]
        #expect(address(environment, for: "https://svc.test/") == nil)
        #expect(address(environment, for: "https://svc.test:8443/") == "http://proxy.test:1")
    }

    @Test func no_proxy_matches_IP_addresses_and_networks_without_resolving_names() {
        let settings = ProxySettings(environment: [
            "no_proxy": "10.1.2.3, 192.168.0.0/16, 2001:db8::/32, [fd00::5], 0.0.0.0/0:9999"
        ])
        let direct = [
            ("10.1.2.3", 80), ("192.168.7.7", 80), ("[2001:db8:1::1]", 80), ("2001:db8::9", 80), ("fd00::5", 80),
            ("8.8.8.8", 9999),
        ]
        for (host, port) in direct {
            #expect(settings.goesDirectly(host: host, port: port), "\(host):\(port)")
        }
        for host in ["10.1.2.4", "192.169.0.1", "[2001:db9::1]", "fd00::6", "10.1.2.3.example.test", "8.8.8.8"] {
            #expect(!settings.goesDirectly(host: host, port: 80), "\(host)")
        }
    }

    @Test func no_proxy_is_read_in_lower_case_first_and_split_on_commas_and_blanks() {
        let settings = ProxySettings(environment: ["no_proxy": "a.test b.test,,\tc.test", "NO_PROXY": "d.test"])
        #expect(["a.test", "b.test", "c.test"].allSatisfy { settings.goesDirectly(host: $0, port: 80) })
        #expect(!settings.goesDirectly(host: "d.test", port: 80))
        #expect(ProxySettings(environment: ["NO_PROXY": "d.test"]).goesDirectly(host: "d.test", port: 80))
    }

    @Test func no_proxy_entries_that_can_match_nothing_are_ignored() {
        let value = "example.test:http, 10.0.0.0/99, name.test/8, :80, good.test"
        let settings = ProxySettings(environment: ["no_proxy": value])
        #expect(settings.noProxy.count == 1)
        #expect(settings.goesDirectly(host: "good.test", port: 80))
        #expect(!settings.goesDirectly(host: "example.test", port: 80))
        #expect(!settings.goesDirectly(host: "10.0.0.1", port: 80))
    }
}
