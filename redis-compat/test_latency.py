"""LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR / HISTOGRAM / HELP, the latency monitor's
configuration, INFO errorstats and latencystats: the replies' shapes and numbers as Redis 7.0 gives them
(GRAPH's drawing and DOCTOR's report are free text in Redis: only their kind is checked)."""

import unittest

from harness import Err, ServerTestCase, Status, info


class LatencyMonitorTest(ServerTestCase):
    server_args = ("--enable-debug-command", "yes")

    def setUp(self):
        super().setUp()
        self.raw.call("CONFIG", "SET", "latency-monitor-threshold", "0")
        self.raw.call("LATENCY", "RESET")

    def test_off_by_default_records_nothing(self):
        self.assertReply([b"latency-monitor-threshold", b"0"], "CONFIG", "GET",
                         "latency-monitor-threshold")
        self.assertReply("OK", "DEBUG", "SLEEP", "0.02")
        self.assertReply([], "LATENCY", "LATEST")
        self.assertReply([], "LATENCY", "HISTORY", "command")

    def test_events_over_the_threshold(self):
        self.assertReply("OK", "CONFIG", "SET", "latency-monitor-threshold", "10")
        self.assertReply("OK", "DEBUG", "SLEEP", "0.03")
        self.assertReply("OK", "SET", "k", "v")  # fast, far under the threshold
        latest = self.raw.call("LATENCY", "LATEST")
        self.assertEqual(len(latest), 1, latest)
        event, at, last_ms, max_ms = latest[0]
        self.assertEqual(event, b"command")  # DEBUG is not flagged fast
        self.assertGreaterEqual(last_ms, 30)
        self.assertEqual(last_ms, max_ms)
        self.assertReply([[at, last_ms]], "LATENCY", "HISTORY", "command")
        # A second spike: the latest changes, the maximum stays the larger.
        self.assertReply("OK", "DEBUG", "SLEEP", "0.012")
        latest = self.raw.call("LATENCY", "LATEST")
        self.assertEqual(latest[0][3], max_ms)
        self.assertLessEqual(len(self.raw.call("LATENCY", "HISTORY", "command")), 2)

        self.assertIsInstance(self.raw.call("LATENCY", "GRAPH", "command"), bytes)
        self.assertIsInstance(self.raw.call("LATENCY", "DOCTOR"), bytes)
        self.assertErr("ERR No samples available for event 'nosuch'", "LATENCY", "GRAPH", "nosuch")
        self.assertReply(0, "LATENCY", "RESET", "nosuch")
        self.assertReply(1, "LATENCY", "RESET", "command", "nosuch")
        self.assertReply([], "LATENCY", "LATEST")

    def test_errors_and_help(self):
        self.assertErr("ERR wrong number of arguments for 'latency|history' command",
                       "LATENCY", "HISTORY")
        self.assertErr("ERR wrong number of arguments for 'latency|latest' command",
                       "LATENCY", "LATEST", "x")
        self.assertErr("ERR unknown subcommand 'FOO'. Try LATENCY HELP.", "LATENCY", "FOO")
        help_lines = self.raw.call("LATENCY", "HELP")
        self.assertEqual(help_lines[0], Status(
            "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"))
        self.assertIn(Status("HISTOGRAM [COMMAND ...]"), help_lines)
        self.assertEqual(len(help_lines), 17)


class LatencyHistogramTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.raw.call("CONFIG", "SET", "latency-tracking", "yes")
        self.raw.call("CONFIG", "RESETSTAT")

    def test_cumulative_buckets_per_command(self):
        for _ in range(20):
            self.raw.call("SET", "k", "v")
        self.raw.call("GET", "k")
        reply = self.raw.call("LATENCY", "HISTOGRAM", "set", "nosuchcommand")
        self.assertEqual(reply[0], b"set")
        self.assertEqual(len(reply), 2)
        body = reply[1]
        self.assertEqual(body[0:2], [b"calls", 20])
        self.assertEqual(body[2], b"histogram_usec")
        buckets = body[3]
        levels, counts = buckets[0::2], buckets[1::2]
        self.assertEqual(counts[-1], 20)
        self.assertEqual(counts, sorted(counts))
        # hdr_histogram's power-of-two levels from 1024 ns, in microseconds.
        for level in levels:
            self.assertIn(level, (1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454,
                                  16908, 33816, 67633))

    def test_container_names_its_subcommands(self):
        self.raw.call("CONFIG", "GET", "maxmemory")
        reply = self.raw.call("LATENCY", "HISTOGRAM", "config")
        # CONFIG RESETSTAT ran in setUp, after the statistics were reset.
        self.assertEqual(sorted(reply[0::2]), [b"config|get", b"config|resetstat"])
        reply = self.raw.call("LATENCY", "HISTOGRAM", "CONFIG|GET", "config|nosuch")
        self.assertEqual(reply[0::2], [b"config|get"])

    def test_resp3_maps(self):
        c = self.resp3_client()
        c.call("SET", "k", "v")
        reply = c.call("LATENCY", "HISTOGRAM", "set")
        self.assertEqual(list(reply.keys()), [b"set"])
        self.assertEqual(reply[b"set"][b"calls"], 1)

    def test_tracking_off(self):
        self.assertReply("OK", "CONFIG", "SET", "latency-tracking", "no")
        self.raw.call("CONFIG", "RESETSTAT")
        self.raw.call("SET", "k", "v")
        self.assertReply([], "LATENCY", "HISTOGRAM", "set")
        self.assertNotIn("latency_percentiles_usec_set", info(self.raw, "latencystats"))

    def test_info_latencystats(self):
        for _ in range(5):
            self.raw.call("INCR", "n")
        fields = info(self.raw, "latencystats")
        value = fields["latency_percentiles_usec_incr"]
        names = [part.split("=")[0] for part in value.split(",")]
        self.assertEqual(names, ["p50", "p99", "p99.9"])
        self.assertReply("OK", "CONFIG", "SET", "latency-tracking-info-percentiles", "50 100")
        value = info(self.raw, "latencystats")["latency_percentiles_usec_incr"]
        self.assertEqual([part.split("=")[0] for part in value.split(",")], ["p50", "p100"])
        self.raw.call("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9")


class ErrorStatsTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.raw.call("CONFIG", "RESETSTAT")

    def test_errors_counted_by_code(self):
        self.raw.call("RPUSH", "l", "a")
        self.assertEqual(self.raw.call("GET", "l"),
                         Err("WRONGTYPE Operation against a key holding the wrong kind of value"))
        self.raw.call("GET", "l")
        self.raw.call("NOSUCHCOMMAND")
        self.raw.call("GET")  # arity: ERR
        self.raw.call("INCR", "l")
        fields = info(self.raw, "errorstats")
        self.assertEqual(fields["errorstat_WRONGTYPE"], "count=3")
        self.assertEqual(fields["errorstat_ERR"], "count=2")
        stats = info(self.raw, "stats")
        self.assertEqual(stats["total_error_replies"], "5")
        self.raw.call("CONFIG", "RESETSTAT")
        self.assertEqual(info(self.raw, "errorstats"), {})

    def test_errors_in_exec(self):
        self.raw.call("SET", "s", "x")
        self.assertReply("OK", "MULTI")
        self.raw.call("INCR", "s")
        self.raw.call("LPUSH", "s", "a")
        self.raw.call("EXEC")
        fields = info(self.raw, "errorstats")
        self.assertEqual(fields["errorstat_ERR"], "count=1")
        self.assertEqual(fields["errorstat_WRONGTYPE"], "count=1")


if __name__ == "__main__":
    unittest.main()
