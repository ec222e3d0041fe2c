"""loglevel and logfile: what the server logs, and where (Redis's levels and line format)."""

import os
import re
import unittest

from harness import Err, RawClient, Server, close_all, wait_until

# pid:role day Mon year HH:MM:SS.mmm <level> message; the level: . debug, - verbose, * notice,
# # warning.
LINE = re.compile(r"^\d+:[MCSX] \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}\.\d{3} ([.*#-]) (.*)$")


def parsed_lines(text):
    return [m.groups() for m in map(LINE.match, text.splitlines()) if m]


def accepted_lines(text):
    return [msg for level, msg in parsed_lines(text) if msg.startswith("Accepted ")]


class LogLevelTest(unittest.TestCase):
    def test_notice_logs_start_up_and_not_connections(self):
        with Server(extra_args=["--loglevel", "notice"]) as server:
            with RawClient(server.port) as c:
                self.assertEqual(c.call("PING"), "PONG")
            text = server.log_text()
        levels = [level for level, _ in parsed_lines(text)]
        self.assertIn("*", levels, text)  # start-up notices, e.g. ready to accept connections
        self.assertTrue(any("eady to accept connections" in msg for _, msg in parsed_lines(text)),
                        text)
        self.assertEqual(accepted_lines(text), [], text)
        self.assertNotIn("-", levels, text)

    def test_warning_silences_notices(self):
        with Server(extra_args=["--loglevel", "warning"]) as server:
            with RawClient(server.port) as c:
                self.assertEqual(c.call("PING"), "PONG")
            text = server.log_text()
        self.assertTrue(all(level == "#" for level, _ in parsed_lines(text)), text)
        self.assertFalse(any("eady to accept connections" in line for line in text.splitlines()),
                         text)

    def test_config_set_verbose_logs_accepted_connections(self):
        with Server(extra_args=["--loglevel", "notice"]) as server:
            admin = RawClient(server.port)
            self.assertEqual(admin.call("CONFIG", "SET", "loglevel", "verbose"), "OK")
            self.assertEqual(admin.call("CONFIG", "GET", "loglevel"), [b"loglevel", b"verbose"])
            c = RawClient(server.port)
            self.assertEqual(c.call("PING"), "PONG")
            # The line is written as the connection is accepted, before its first reply.
            self.assertTrue(accepted_lines(server.log_text()), server.log_text())
            self.assertIn("-", [level for level, _ in parsed_lines(server.log_text())])
            self.assertEqual(admin.call("CONFIG", "SET", "loglevel", "warning"), "OK")
            before = len(accepted_lines(server.log_text()))
            c2 = RawClient(server.port)
            self.assertEqual(c2.call("PING"), "PONG")
            self.assertEqual(len(accepted_lines(server.log_text())), before, server.log_text())
            close_all([admin, c, c2])

    def test_bad_level_is_refused(self):
        with Server() as server:
            with RawClient(server.port) as c:
                self.assertEqual(
                    c.call("CONFIG", "SET", "loglevel", "loud"),
                    Err("ERR CONFIG SET failed (possibly related to argument 'loglevel') - "
                        "argument(s) must be one of the following: debug, verbose, notice, warning"))
                self.assertEqual(c.call("CONFIG", "GET", "loglevel"), [b"loglevel", b"notice"])


class LogFileTest(unittest.TestCase):
    def test_logfile_receives_the_log(self):
        server = Server(extra_args=["--loglevel", "verbose", "--logfile", "server-own.log"],
                        keep_dir=True)
        server.start()
        try:
            with RawClient(server.port) as c:
                self.assertEqual(c.call("PING"), "PONG")
            path = os.path.join(server.dir, "server-own.log")

            def logged():
                with open(path) as f:
                    return accepted_lines(f.read())

            self.assertTrue(wait_until(logged, 5), path)
            # Nothing of the log goes to standard output any more.
            self.assertEqual(parsed_lines(server.log_text()), [], server.log_text())
        finally:
            server.stop()
            server.remove_dir()


if __name__ == "__main__":
    unittest.main()
