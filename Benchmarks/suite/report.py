"""Turns the suite's results into markdown: the summary table (figure, target, measured, met) and one
table per section. Only measured values are printed; a figure that could not be measured says so."""
from common import percentile


def fmt(value, digits=1, unit=""):
    if value is None:
        return "not measured"
    if isinstance(value, float):
        text = "{:,.{d}f}".format(value, d=digits)
    else:
        text = "{:,}".format(value)
    return text + unit


def met(condition):
    if condition is None:
        return "—"
    return "yes" if condition else "**MISSED**"


def nav_run(results, latency, mode):
    return next((r for r in results.get("navigation", []) if r["latency_ms"] == latency and r["mode"] == mode), None)


def ratio(a, b):
    return a / b if a is not None and b else None


def ssh_p99(c):
    """A p99 over every press: "over 100 ms" when more than 1 % were not answered within 100 ms."""
    text = fmt(c["p99_ms"], 2, " ms") if c["p99_ms"] is not None else "over 100 ms"
    if c.get("p99_answered_ms") is not None:
        text += " (of the answered presses: %s ms)" % fmt(c["p99_answered_ms"], 2)
    return text


def ssh_line(c):
    return "p50 %s, p99 %s; %d of %s not answered within 100 ms" % (
        fmt(c["p50_ms"], 2, " ms") if c["p50_ms"] is not None else "over 100 ms", ssh_p99(c),
        c["unanswered_within_100ms"], fmt(c["presses"]))


def summary_rows(results):
    rows = []
    pre, base = nav_run(results, 300, "prefetch"), nav_run(results, 300, "no-prefetch")
    if pre and base:
        share, base_share = pre["no_wait_share"], base["no_wait_share"]
        rows.append(("drill-downs with no network wait, 300 ms latency", "≥ 95 % (fetch-on-navigate: 0 %)",
                     "%s (fetch-on-navigate: %s)" % (fmt(share and share * 100, 1, " %"), fmt(base_share and base_share * 100, 1, " %")),
                     met(share is not None and share >= 0.95)))
        r = ratio(base["time_to_content_mean_ms"], pre["time_to_content_mean_ms"])
        rows.append(("time-to-content ratio, fetch-on-navigate ÷ prefetching, 300 ms", "≥ 50×",
                     "%s× (%s ms ÷ %s ms, means)" % (fmt(r), fmt(base["time_to_content_mean_ms"]), fmt(pre["time_to_content_mean_ms"], 2)),
                     met(r is not None and r >= 50)))
        r = ratio(pre["bytes"], base["bytes"])
        rows.append(("bytes on the wire, prefetching ÷ fetch-on-navigate, 300 ms", "≤ 1.5×",
                     "%s× (%s B ÷ %s B)" % (fmt(r, 2), fmt(pre["bytes"]), fmt(base["bytes"])), met(r is not None and r <= 1.5)))
    cached = [v for r in results.get("navigation", []) if r["mode"] == "prefetch" for v in r["cached_key_to_frame_ms"]]
    if cached:
        p99 = percentile(cached, 0.99)
        rows.append(("keypress → frame p99, cached screen (prefetch runs, all latencies)", "≤ 5 ms",
                     "%s ms (p50 %s ms, %d keys)" % (fmt(p99, 2), fmt(percentile(cached, 0.5), 2), len(cached)),
                     met(p99 <= 5)))
    scale = results.get("scale")
    if scale:
        end, trip = scale["end_to_last_row_ms"], scale["round_trip_ms"]
        rows.append(("1,000,000 people: End → last row on screen", "≤ one round trip + 20 ms",
                     "%s ms (round trip %s ms)" % (fmt(end), fmt(trip)),
                     met(end is not None and trip is not None and end <= trip + 20)))
        rows.append(("1,000,000 people: browser peak RSS", "≤ 60 MB", fmt(scale["peak_rss_mib"], 1, " MiB"),
                     met(scale["peak_rss_mib"] is not None and scale["peak_rss_mib"] <= 60)))
    ingest = results.get("ingest")
    if ingest:
        ours = ingest["cardealer"]["pipelined_entities_per_s"]
        serial = ingest["cardealer"]["ingest_entities_per_s"]
        rows.append(("ingest: decode + normalise + commit, as the fetcher runs it (2 cores)", "≥ 200,000 entities/s",
                     "%s (one thread: %s)" % (fmt(ours, 0, " entities/s"), fmt(serial, 0)), met(ours >= 200000)))
        rows.append(("ingest vs pyodata on the same payloads (judged on one thread)", "≥ 6×",
                     "%s× on one thread, %s× as the fetcher runs (pyodata %s entities/s)" % (
                         fmt(ingest["serial_ratio"]), fmt(ingest["ratio"]), fmt(ingest["pyodata"]["entities_per_s"], 0)),
                     met(ingest["serial_ratio"] >= 6)))
        if "cardealer_v4" in ingest:
            v2, v4 = ingest["cardealer"], ingest["cardealer_v4"]
            rows.append(("ingest of OData v4 beside v2, the same entities (one thread)", "v4 ≥ v2",
                         "%s against %s entities/s (%s×)" % (fmt(v4["ingest_entities_per_s"], 0), fmt(v2["ingest_entities_per_s"], 0),
                                                             fmt(v4["ingest_entities_per_s"] / v2["ingest_entities_per_s"])),
                         met(v4["ingest_entities_per_s"] >= v2["ingest_entities_per_s"])))
            m = ingest["metadata_v4"]
            rows.append(("CSDL v4 `$metadata` with %s entity types (%s MB): parse and index" % (fmt(m["types"]), fmt(m["bytes"] / 1e6, 1)),
                         "≤ 300 ms", "%s (peak memory +%s MiB)" % (fmt(m["parse_ms"], 1, " ms"), fmt(m["peak_rss_growth_mib"], 1)),
                         met(m["parse_ms"] <= 300)))
            if m.get("annotations_merge_ms") is not None:
                baseline = ingest.get("annotations_baseline_ms")
                rows.append(("annotation document for those %s types, every term read (%s MB): parse and merge" % (fmt(m["types"]), fmt(m["annotations_bytes"] / 1e6, 1)),
                             "≤ 200 ms",
                             "%s (peak memory +%s MiB; Python's ElementTree only reading it: %s)" % (
                                 fmt(m["annotations_merge_ms"], 1, " ms"), fmt(m["annotations_peak_rss_growth_mib"], 1),
                                 fmt(baseline, 1, " ms") if baseline is not None else "not run"),
                             met(m["annotations_merge_ms"] <= 200)))
    term = results.get("terminal")
    if term and term.get("warm_start_ms") is not None:
        rows.append(("warm cache: cardealer start → first full frame (built-in service included)", "≤ 150 ms",
                     fmt(term["warm_start_ms"], 1, " ms"), met(term["warm_start_ms"] <= 150)))
    if term:
        rows.append(("terminal bytes: cursor one row", "≤ 100 B",
                     "%s B (median of 5; largest %s B)" % (fmt(term["row_move_median_bytes"]), fmt(term["row_move_max_bytes"])),
                     met(term["row_move_median_bytes"] <= 100)))
        rows.append(("terminal bytes: idle 10 s", "0 B", "%s B" % fmt(term["idle_10s_bytes"]), met(term["idle_10s_bytes"] == 0)))
    server = results.get("server")
    if server and "builtin" in server:
        b = server["builtin"]
        rows.append(("built-in service, 16 connections, `Person?$top=50&$expand=PersonCar/Car`", "≥ 1,000 req/s, p99 ≤ 25 ms",
                     "%s req/s, p99 %s ms" % (fmt(b["rps"], 0), fmt(b["p99_ms"], 2)),
                     met(b["rps"] >= 1000 and b["p99_ms"] <= 25)))
    cache = results.get("cache")
    if cache:
        rows.append(("cache: any 50-row window of a 1,000,000-row list", "≤ 1 ms",
                     "p99 %s ms (p50 %s, max %s)" % (fmt(cache["window_p99_ms"], 3), fmt(cache["window_p50_ms"], 3),
                                                     fmt(cache["window_max_ms"], 3)), met(cache["window_p99_ms"] <= 1)))
        rows.append(("cache: an entity by key", "≤ 0.1 ms", "p99 %s ms" % fmt(cache["entity_p99_ms"], 3),
                     met(cache["entity_p99_ms"] <= 0.1)))
        rows.append(("cache and fetcher RSS with 1,000,000 rows cached", "≤ 40 MB", fmt(cache["rss_mib"], 1, " MiB"),
                     met(cache["rss_mib"] * 1.048576 <= 40)))
    signin = results.get("signin")
    if signin:
        rows.append(("sign-in: key → frame p99, 60-step walk, 5 s OAuth tokens against none", "unchanged",
                     "%s against %s ms (%d tokens asked over %.0f s, %d refused with 401)" % (
                         fmt(signin["oauth"]["key_to_frame_p99_ms"], 2), fmt(signin["open"]["key_to_frame_p99_ms"], 2),
                         signin["oauth"]["token_requests"], signin["oauth"]["duration_s"] or 0,
                         signin["oauth"]["refused_401"]), met(None)))
    annotated = results.get("annotated")
    if annotated:
        rows.append(("annotated list (odatapy, 12 labelled columns, 4 with criticality): key → frame p99, 200-step walk",
                     "≤ 5 ms",
                     "%s ms (p50 %s; the same list without annotations: p99 %s, p50 %s ms)" % (
                         fmt(annotated["annotated"]["key_to_frame_p99_ms"], 2),
                         fmt(annotated["annotated"]["key_to_frame_p50_ms"], 2),
                         fmt(annotated["plain"]["key_to_frame_p99_ms"], 2),
                         fmt(annotated["plain"]["key_to_frame_p50_ms"], 2)),
                     met(annotated["annotated"]["key_to_frame_p99_ms"] <= 5)))
    coldstart = results.get("coldstart")
    if coldstart:
        base, anno = coldstart["baseline"], coldstart["annotated"]
        rows.append(("cold start, mock-sap GWSAMPLE_BASIC (v2, annotation document) at %d ms latency: exec → first "
                     "full frame of its sales orders, median of %d" % (coldstart["latency_ms"], coldstart["runs"]),
                     "within one round trip of reading no annotation document",
                     "%s ms in %d round trips (%d requests) against %s ms in %d (%d requests): +%s ms" % (
                         fmt(anno["first_full_frame_median_ms"], 1), anno["round_trips_before_frame"],
                         len(anno["requests_before_frame"]), fmt(base["first_full_frame_median_ms"], 1),
                         base["round_trips_before_frame"], len(base["requests_before_frame"]),
                         fmt(anno["first_full_frame_median_ms"] - base["first_full_frame_median_ms"], 1)),
                     met(anno["round_trips_before_frame"] <= base["round_trips_before_frame"] + 1)))
    writes = results.get("writes")
    if writes:
        worst = max(writes["save_to_frame_p99_ms_0"], writes["save_to_frame_p99_ms_300"])
        rows.append(("writes: save → row on screen, p99 at 0 and 300 ms latency", "≤ 16 ms",
                     "%s / %s ms" % (fmt(writes["save_to_frame_p99_ms_0"], 2), fmt(writes["save_to_frame_p99_ms_300"], 2)),
                     met(worst <= 16)))
        rows.append(("writes: outbox flush over 100 ms latency against one at a time", "≥ 5×",
                     "%s× (%s against %s writes/s)" % (fmt(writes["flush_ratio"], 1), fmt(writes["flush_writes_per_s_8"], 1),
                                                        fmt(writes["flush_writes_per_s_1"], 1)),
                     met(writes["flush_ratio"] >= 5)))
        if "flush_ratio_batched" in writes:
            rows.append(("writes: outbox flush in $batches over 100 ms latency against one at a time", "≥ 50×",
                         "%s× (%s against %s writes/s, %d requests against %d)" % (
                             fmt(writes["flush_ratio_batched"], 1), fmt(writes["flush_writes_per_s_batched"], 1),
                             fmt(writes["flush_writes_per_s_1"], 1), writes["flush_requests_batched"],
                             writes["flush_requests_1"]),
                         met(writes["flush_ratio_batched"] >= 50)))
        if "refresh_bytes_ratio" in writes:
            rows.append(("writes: refresh of 10,000 cached rows after 100 changes and 10 deletions, by delta link "
                         "against reading the pages again", "≤ 5 % of the bytes",
                         "%s %% (%s against %s B)" % (
                             fmt(writes["refresh_bytes_ratio"] * 100, 2), fmt(int(writes["refresh_bytes_delta"])),
                             fmt(int(writes["refresh_bytes_full"]))),
                         met(writes["refresh_bytes_ratio"] <= 0.05)))
            budget = writes["refresh_latency_ms"] + 50
            rows.append(("writes: that refresh by delta link, `r` → cache up to date at %d ms latency"
                         % writes["refresh_latency_ms"], "≤ %d ms" % budget,
                         "%s ms (reading the pages again: %s s)" % (
                             fmt(writes["refresh_seconds_delta"] * 1000, 1), fmt(writes["refresh_seconds_full"], 2)),
                         met(writes["refresh_seconds_delta"] * 1000 <= budget)))
    ssh = results.get("ssh")
    if ssh and "frames" in ssh:
        f = ssh["frames"]
        rows.append(("SSH: messages per frame (drill-down, Esc back)", "1",
                     "%d, %d (every read sent: %s, %s)" % (f["drill"]["messages"], f["back"]["messages"],
                                                         ssh.get("raw", {}).get("drill", {}).get("messages", "–"),
                                                         ssh.get("raw", {}).get("back", {}).get("messages", "–")),
                     met(f["drill"]["messages"] <= 1 and f["back"]["messages"] <= 1)))
        rows.append(("SSH: first frame", "≤ 4 KB", fmt(f["first"]["bytes"], 0, " B"), met(f["first"]["bytes"] <= 4096)))
        rows.append(("SSH: cursor one row", "≤ 100 B", fmt(f["row"]["bytes"], 0, " B"), met(f["row"]["bytes"] <= 100)))
        if "chart_point" in f:
            rows.append(("SSH: chart point moved", "≤ 200 B", fmt(f["chart_point"]["bytes"], 0, " B"),
                         met(f["chart_point"]["bytes"] <= 200)))
        rows.append(("SSH: 10 idle seconds", "0 B", fmt(f["idle"]["bytes"], 0, " B"), met(f["idle"]["bytes"] == 0)))
        c = ssh.get("concurrent")
        spread, aligned = ssh.get("concurrent_nio_spread"), ssh.get("concurrent_nio_aligned")
        if spread:
            others = []
            if aligned:
                others.append("all %d pressing at the same instant: %s" % (aligned["sessions"], ssh_p99(aligned)))
            if c:
                others.append("paramiko client: %s" % ssh_p99(c))
            rows.append(("SSH: keypress → frame p99, %d sessions (every press, credited with the frame that shows it; "
                         "one never shown counts as slower; swift-nio-ssh client, presses spread over each 100 ms)"
                         % spread["sessions"],
                         "≤ 20 ms", ssh_p99(spread) + (" (%s)" % "; ".join(others) if others else ""),
                         met(spread["p99_ms"] is not None and spread["p99_ms"] <= 20)))
        elif c:
            rows.append(("SSH: keypress → frame p99, %d sessions (every press; one unanswered in 100 ms counts as slower)"
                         % c["sessions"], "≤ 20 ms", ssh_p99(c), met(c["p99_ms"] is not None and c["p99_ms"] <= 20)))
    return rows


def table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render(results):
    out = ["## Summary", "", table(["figure", "target", "measured", "met"], summary_rows(results)), ""]
    nav = results.get("navigation")
    if nav:
        out += ["## 1. Navigation (200 steps, built-in service, 200 people, 80×24)", "",
                table(["latency", "mode", "drill-downs", "no network wait", "key→frame p50 / p99",
                       "cached key→frame p99", "time to content mean / p50", "requests", "bytes on the wire (decoded)", "run"],
                      [["%d ms" % r["latency_ms"], r["mode"], r["drills"], fmt(r["no_wait_share"] and r["no_wait_share"] * 100, 1, " %"),
                        "%s / %s ms" % (fmt(r["key_to_frame_p50_ms"], 2), fmt(r["key_to_frame_p99_ms"], 2)),
                        fmt(r["cached_key_to_frame_p99_ms"], 2, " ms"),
                        "%s / %s ms" % (fmt(r["time_to_content_mean_ms"], 2), fmt(r["time_to_content_p50_ms"], 2)),
                        r["requests"], "%s (%s)" % (fmt(r["bytes"]), fmt(r.get("decoded_bytes", r["bytes"]))),
                        fmt(r["duration_s"], 0, " s")] for r in nav]), "",
                "Ratios, fetch-on-navigate against prefetching at the same latency:", "",
                table(["latency", "time to content (mean) ÷", "requests (prefetch ÷ fetch-on-navigate)",
                       "bytes on the wire (prefetch ÷ fetch-on-navigate)", "decoded bytes (the same)",
                       "wire bytes with `$select` off (prefetch-whole ÷ fetch-on-navigate)"],
                      [["%d ms" % l,
                        fmt(ratio(nav_run(results, l, "no-prefetch")["time_to_content_mean_ms"],
                                  nav_run(results, l, "prefetch")["time_to_content_mean_ms"]), 1, "×"),
                        fmt(ratio(nav_run(results, l, "prefetch")["requests"], nav_run(results, l, "no-prefetch")["requests"]), 2, "×"),
                        fmt(ratio(nav_run(results, l, "prefetch")["bytes"], nav_run(results, l, "no-prefetch")["bytes"]), 2, "×"),
                        fmt(ratio(nav_run(results, l, "prefetch").get("decoded_bytes"),
                                  nav_run(results, l, "no-prefetch").get("decoded_bytes")), 2, "×"),
                        fmt(ratio((nav_run(results, l, "prefetch-whole") or {}).get("bytes"),
                                  nav_run(results, l, "no-prefetch")["bytes"]), 2, "×")]
                       for l in sorted({r["latency_ms"] for r in nav})
                       if nav_run(results, l, "prefetch") and nav_run(results, l, "no-prefetch")]), ""]
    scale = results.get("scale")
    if scale:
        out += ["## 2. Scale (%s people, %d ms latency, separate server process)" % (fmt(scale["people"]), scale["latency_ms"]), "",
                table(["figure", "measured"], [
                    ["rows in the list (server's count)", fmt(scale["total_rows"])],
                    ["start → People on screen", fmt(scale["open_people_ms"], 0, " ms")],
                    ["End → last row on screen", fmt(scale["end_to_last_row_ms"], 1, " ms")],
                    ["longest request in that interval (the round trip)", fmt(scale["round_trip_ms"], 1, " ms")],
                    ["filter `samson`: last keystroke → results", "%s (%s)" % (fmt(scale["filter_ms"], 0, " ms"), scale["filter_status"])],
                    ["browser peak RSS (VmHWM)", fmt(scale["peak_rss_mib"], 1, " MiB")],
                    ["cache size after the session", fmt(scale["cache_bytes"] / 1048576, 2, " MiB")],
                    ["server ready (data %s)" % ("generated now" if scale["data_generated_now"] else "reused"), fmt(scale["serve_ready_s"], 1, " s")],
                ]), ""]
    ingest = results.get("ingest")
    if ingest:
        c, p = ingest["cardealer"], ingest["pyodata"]
        out += ["## 3. Ingest (%d recorded pages, %s bytes, %s entities)" % (c["pages"], fmt(c["bytes"]), fmt(c["entities"])), "",
                table(["", "entities/s", "seconds (best of %d)" % c["rounds"]], [
                    ["CarDealer: decode + normalise + commit, pipelined as the fetcher runs it", fmt(c["pipelined_entities_per_s"], 0), fmt(c["pipelined_seconds"], 3)],
                    ["CarDealer: decode + normalise + commit, one thread", fmt(c["ingest_entities_per_s"], 0), fmt(c["ingest_seconds"], 3)],
                    ["CarDealer: normalise + commit only (pages decoded beforehand)", fmt(c["write_entities_per_s"], 0), fmt(c["write_seconds"], 3)],
                    ["CarDealer: decode only", fmt(c["decode_entities_per_s"], 0), fmt(c["decode_seconds"], 3)],
                    ["pyodata %s: parse into entity proxies (no storage)" % p["pyodata"], fmt(p["entities_per_s"], 0), fmt(p["seconds"], 3)],
                ] + ([
                    ["CarDealer, the same pages in OData v4 (%s bytes): decode + normalise + commit, one thread" % fmt(ingest["cardealer_v4"]["bytes"]),
                     fmt(ingest["cardealer_v4"]["ingest_entities_per_s"], 0), fmt(ingest["cardealer_v4"]["ingest_seconds"], 3)],
                    ["CarDealer, OData v4: decode only", fmt(ingest["cardealer_v4"]["decode_entities_per_s"], 0),
                     fmt(ingest["cardealer_v4"]["decode_seconds"], 3)],
                ] if "cardealer_v4" in ingest else []) + ([
                    ["CarDealer, TripPin-shaped v4 pages (%s people, %s bytes: derived types, enums, complex and open "
                     "properties): decode + normalise + commit, one thread" % (
                         fmt(ingest["cardealer_trippin"]["entities"]), fmt(ingest["cardealer_trippin"]["bytes"])),
                     fmt(ingest["cardealer_trippin"]["ingest_entities_per_s"], 0),
                     fmt(ingest["cardealer_trippin"]["ingest_seconds"], 3)],
                    ["CarDealer, TripPin-shaped: decode only", fmt(ingest["cardealer_trippin"]["decode_entities_per_s"], 0),
                     fmt(ingest["cardealer_trippin"]["decode_seconds"], 3)],
                ] if "cardealer_trippin" in ingest else [])), "", "Ratio (CarDealer ingest ÷ pyodata parse): %s× on one thread, %s× pipelined; pyodata counted %s entities in the same bytes." % (
                    fmt(ingest["serial_ratio"]), fmt(ingest["ratio"]), fmt(p["entities"])), ""]
    term = results.get("terminal")
    if term:
        out += ["## 4. Terminal output (80×24, warm cache, bytes read from the pty master)", "",
                table(["figure", "bytes"], [
                    ["first frame: exec → start-up screen settled, set-up included (%d frames)" % term["startup_frames"],
                     fmt(term["first_frame_bytes"])],
                    ["cursor one row, 5 moves", ", ".join(fmt(b) for b in term["row_move_bytes"])],
                    ["warm start: exec → first frame with every row (ms, not bytes)",
                     fmt(term["warm_start_ms"], 1) if term.get("warm_start_ms") is not None else "–"],
                    ["10 idle seconds", "%s (%d frames)" % (fmt(term["idle_10s_bytes"]), term["idle_10s_frames"])],
                ]), ""]
    server = results.get("server")
    if server:
        out += ["## 5. Server (wrk -t2 -c16 -d10s, loopback)", "",
                table(["server", "query", "response", "req/s", "p99", "errors"], [
                    [name, "`%s`" % s["url_path"], "%s B, %d entities" % (fmt(s["response_bytes"]), s["entities"]),
                     fmt(s["rps"], 0), fmt(s["p99_ms"], 2, " ms"),
                     "non-2xx %d%s" % (s["non_2xx"], ", socket: " + s["socket_errors"] if s["socket_errors"] else "")]
                    for name, s in (("CarDealer built-in", server.get("builtin")),
                                    (server.get("peer", {}).get("server", "peer"), server.get("peer"))) if s]), ""]
        if server.get("builtin") and server.get("peer"):
            out += ["Built-in ÷ %s: %s× requests/s." % (server["peer"]["server"], fmt(ratio(server["builtin"]["rps"], server["peer"]["rps"]))), ""]
    cache = results.get("cache")
    if cache:
        out += ["## 6. Cache (`cache-bench`, %s rows)" % fmt(cache["rows"]), "",
                table(["figure", "measured"], [
                    ["window of 50 rows at a random position (%d reads)" % cache["window_reads"],
                     "p50 %s ms, p99 %s ms, max %s ms" % (fmt(cache["window_p50_ms"], 3), fmt(cache["window_p99_ms"], 3), fmt(cache["window_max_ms"], 3))],
                    ["entity by random key (%d reads)" % cache["entity_reads"],
                     "p50 %s ms, p99 %s ms" % (fmt(cache["entity_p50_ms"], 3), fmt(cache["entity_p99_ms"], 3))],
                ] + ([
                    ["a person's two cars through PersonCar (hop read)",
                     "p50 %s ms, p99 %s ms" % (fmt(cache["hop_p50_ms"], 3), fmt(cache["hop_p99_ms"], 3))],
                ] if "hop_p50_ms" in cache else []) + [
                    ["RSS at the end (cache and fetcher linked, not the demo server)", fmt(cache["rss_mib"], 1, " MiB")],
                    ["ingest of generated pages, one thread, one transaction per page", fmt(cache["ingest_entities_per_s"], 0, " entities/s")],
                    ["filling the list to %s rows" % fmt(cache["rows"]), fmt(cache["fill_seconds"], 1, " s")],
                ]), ""]
    writes = results.get("writes")
    if writes:
        out += ["## 7. Writes (`write-bench`, built-in service in-process)", "",
                table(["figure", "measured"], [
                    ["save → row on screen at 0 ms latency (200 saves)",
                     "p50 %s ms, p99 %s ms" % (fmt(writes["save_to_frame_p50_ms_0"], 2), fmt(writes["save_to_frame_p99_ms_0"], 2))],
                    ["save → row on screen at 300 ms latency (200 saves)",
                     "p50 %s ms, p99 %s ms" % (fmt(writes["save_to_frame_p50_ms_300"], 2), fmt(writes["save_to_frame_p99_ms_300"], 2))],
                    ["1,000 changes to 1,000 people over 100 ms latency, 8 at a time", fmt(writes["flush_writes_per_s_8"], 1, " writes/s")],
                    ["the same, one at a time", fmt(writes["flush_writes_per_s_1"], 1, " writes/s")],
                ] + ([
                    ["the same, in $batches of 100", "%s writes/s in %d requests" % (
                        fmt(writes["flush_writes_per_s_batched"], 1), writes["flush_requests_batched"])],
                ] if "flush_writes_per_s_batched" in writes else []) + ([
                    ["refresh of 10,000 cached cars after 100 changes and 10 deletions on the service, 100 ms latency: "
                     "by delta link", "%s ms, %s B in %d request(s)" % (
                         fmt(writes["refresh_seconds_delta"] * 1000, 1), fmt(int(writes["refresh_bytes_delta"])),
                         writes["refresh_requests_delta"])],
                    ["the same, reading the list's pages again", "%s s, %s B in %d requests" % (
                        fmt(writes["refresh_seconds_full"], 2), fmt(int(writes["refresh_bytes_full"])),
                        writes["refresh_requests_full"])],
                ] if "refresh_bytes_delta" in writes else []) + ([
                    ["100 cars each added among a person's cars (car + ownership), 100 ms latency: in $batches",
                     "%s s in %d requests" % (fmt(writes["creates_seconds_batched"], 2), writes["creates_requests_batched"])],
                    ["the same, one request at a time", "%s s in %d requests" % (
                        fmt(writes["creates_seconds_1"], 2), writes["creates_requests_1"])],
                ] if "creates_seconds_batched" in writes else [])), ""]
    ssh = results.get("ssh")
    if ssh and "frames" in ssh:
        def step(run, name):
            m = run[name]
            return "%s B in %d message%s (%s B on the wire)" % (fmt(m["bytes"]), m["messages"], "" if m["messages"] == 1 else "s", fmt(m["wire_bytes"]))
        rows = []
        for label, name in (("first frame (connect → 1.5 s without output), cold cache", "first"),
                            ("cursor one row (median of 5)", "row"), ("drill-down (Enter)", "drill"),
                            ("Esc back", "back"), ("a car's chart (c), 30 services", "chart"),
                            ("chart: the highlighted point moved (median of 5)", "chart_point"),
                            ("10 idle seconds", "idle")):
            rows.append([label, step(ssh["frames"], name), step(ssh["raw"], name) if "raw" in ssh else "not measured"])
        out += ["## 8. SSH (`cardealer serve-ssh`, paramiko client (and swift-nio-ssh where named) on 127.0.0.1, 80×24, built-in demo, 200 people)", "",
                table(["step", "frames (the browser's mark ends one; else %s ms of quiet)" % ssh.get("frame_quiet_ms", 2), "every read sent as it comes (`--frame-quiet-ms 0`)"], rows), ""]
        c = ssh.get("concurrent")
        if c:
            raw = ssh.get("concurrent_raw")
            quiet = ssh.get("concurrent_quiet")
            out += [table(["%d sessions at once, each pressing j/k every 100 ms for 10 s (paramiko unless named)" % c["sessions"], "measured"], [
                ["keypress → first data back (%s presses), frames ended by the browser's mark" % fmt(c["presses"]),
                 ssh_line(c)],
            ] + ([
                ["the same, frames ended only by %s ms of quiet (`--no-frame-mark`)" % ssh.get("frame_quiet_ms", 2),
                 ssh_line(quiet)],
            ] if quiet else []) + ([
                ["the same, every read sent as it comes",
                 ssh_line(raw)],
            ] if raw else []) + [
                ["the same presses from the swift-nio-ssh client (one thread), frames ended by the mark, "
                 "presses spread over each 100 ms (%s presses: %d runs of 10 s, new sessions each; p99 per run %s; "
                 "each press credited with the frame that shows it: crediting the first data after it instead, "
                 "p99 per run %s)"
                 % (fmt(ssh[key]["presses"]), ssh[key].get("runs", 1),
                    ", ".join("over 100 ms" if p is None else fmt(p, 2, " ms") for p in ssh[key].get("p99_per_run_ms", [])),
                    ", ".join("-" if p is None else fmt(p, 2, " ms")
                              for p in ssh[key].get("p99_first_data_per_run_ms", [])))
                 if key.endswith("spread") else
                 "the same from the swift-nio-ssh client, all %d sessions pressing at the same instant (%s presses)"
                 % (ssh[key]["sessions"], fmt(ssh[key]["presses"])), ssh_line(ssh[key])]
                for key in ("concurrent_nio_spread", "concurrent_nio_aligned") if key in ssh
            ] + [
                ["resident memory per session's process (%d processes)" % c["processes"], fmt(c["rss_mib_per_session"], 1, " MiB")],
                ["the gateway's own resident memory (demo service included)", fmt(c["gateway_rss_mib"], 1, " MiB")],
            ]), ""]
    return "\n".join(out)
