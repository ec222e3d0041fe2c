"""LCS: the subsequence, LEN, IDX (RESP2 array and RESP3 map), MINMATCHLEN and WITHMATCHLEN, missing
keys and int values, errors, the proto-max-bulk-len guard on the table, and a randomized comparison
with a model of Redis's walk of the table. Every expectation passes against redis-server 7.0.15
(ORDIS_SERVER=/usr/bin/redis-server)."""

import random
import time

from harness import Map, ServerTestCase

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
NOT_STRINGS = "ERR The specified keys must contain string values"
BOTH = "ERR If you want both the length and indexes, please just use IDX."
TOO_BIG = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"


def match(a0, a1, b0, b1, with_len=False):
    m = [[a0, a1], [b0, b1]]
    return m + [a1 - a0 + 1] if with_len else m


def model(a, b, min_len, with_len):
    """Redis's algorithm: the table of prefix LCS lengths walked back from the ends (on a tie the
    walk shortens b); each maximal run of matches is reported as the walk leaves it."""
    n, m = len(a), len(b)
    t = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            t[i][j] = t[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(t[i - 1][j], t[i][j - 1])
    text, matches, run = bytearray(), [], 0
    i, j = n, m

    def emit(i, j):
        if min_len == 0 or run >= min_len:
            matches.append(match(i, i + run - 1, j, j + run - 1, with_len))

    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            text.insert(0, a[i - 1])
            run += 1
            i, j = i - 1, j - 1
            if i == 0 or j == 0:
                emit(i, j)
                run = 0
        else:
            if run:
                emit(i, j)
                run = 0
            if t[i - 1][j] > t[i][j - 1]:
                i -= 1
            else:
                j -= 1
    return bytes(text), matches, t[n][m]


class LcsTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.assertReply("OK", "MSET", "a", "ohmytext", "b", "mynewtext")

    def test_forms(self):
        self.assertReply(b"mytext", "LCS", "a", "b")
        self.assertReply(6, "LCS", "a", "b", "LEN")
        self.assertReply([b"matches", [match(4, 7, 5, 8), match(2, 3, 0, 1)], b"len", 6],
                         "LCS", "a", "b", "IDX")
        self.assertReply([b"matches", [match(4, 7, 5, 8, True)], b"len", 6],
                         "LCS", "a", "b", "idx", "minmatchlen", "4", "withmatchlen")
        self.assertReply([b"matches", [match(4, 7, 5, 8, True), match(2, 3, 0, 1, True)], b"len", 6],
                         "LCS", "a", "b", "IDX", "MINMATCHLEN", "-3", "WITHMATCHLEN")
        self.assertReply(6, "LCS", "a", "b", "LEN", "WITHMATCHLEN")
        self.assertReply(b"mytext", "LCS", "a", "b", "MINMATCHLEN", "2")

    def test_resp3_map(self):
        c = self.resp3_client()
        self.assertReply(Map({b"matches": [match(4, 7, 5, 8, True)], b"len": 6}),
                         "LCS", "a", "b", "IDX", "MINMATCHLEN", "3", "WITHMATCHLEN", client=c)
        self.assertRawReply(b"%2\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n",
                            "LCS", "a", "nokey", "IDX", client=c)

    def test_missing_keys_and_ints(self):
        self.assertReply(b"", "LCS", "a", "nokey")
        self.assertReply(0, "LCS", "nokey", "a", "LEN")
        self.assertReply([b"matches", [], b"len", 0], "LCS", "a", "nokey", "IDX")
        self.assertReply("OK", "MSET", "i1", "12345", "i2", "2345")
        self.assertReply([b"matches", [match(1, 4, 0, 3, True)], b"len", 4],
                         "LCS", "i1", "i2", "IDX", "WITHMATCHLEN")
        self.assertReply("OK", "MSET", "x", b"\x00a\xffb", "y", b"a\x00\xff")
        self.assertReply(b"a\xff", "LCS", "x", "y")

    def test_errors(self):
        self.assertErr("ERR wrong number of arguments for 'lcs' command", "LCS", "a")
        self.assertErr(BOTH, "LCS", "a", "b", "LEN", "IDX")
        self.assertErr(NOT_INT, "LCS", "a", "b", "MINMATCHLEN", "x")
        self.assertErr(NOT_INT, "LCS", "a", "b", "MINMATCHLEN", "99999999999999999999")
        self.assertErr(SYNTAX, "LCS", "a", "b", "MINMATCHLEN")
        self.assertErr(SYNTAX, "LCS", "a", "b", "foo")
        self.assertReply(1, "RPUSH", "l", "1")
        self.assertErr(NOT_STRINGS, "LCS", "a", "l")
        self.assertErr(NOT_STRINGS, "LCS", "l", "a", "foo")  # the types come before the options

    def test_table_guard(self):
        self.assertReply("OK", "CONFIG", "SET", "proto-max-bulk-len", "1048576")
        try:
            self.assertReply("OK", "MSET", "p", b"a" * 511, "q", b"a" * 512)
            self.assertReply(511, "LCS", "p", "p", "LEN")  # 512 * 512 cells of 4 bytes: the limit
            self.assertErr(TOO_BIG, "LCS", "p", "q", "LEN")
            self.assertErr(TOO_BIG, "LCS", "q", "p")
            self.assertErr(TOO_BIG, "LCS", "q", "p", "IDX")
            self.assertErr(SYNTAX, "LCS", "p", "q", "foo")
            self.assertReply("OK", "MSET", "big", b"x" * 200000)
            self.assertReply([b"matches", [], b"len", 0], "LCS", "big", "nokey", "IDX")
            self.assertErr(TOO_BIG, "LCS", "big", "a")
        finally:
            self.assertReply("OK", "CONFIG", "SET", "proto-max-bulk-len", "536870912")

    def test_large_inputs(self):
        rng = random.Random(5)
        a = bytes(rng.choice(b"acgt") for _ in range(1500))
        b = bytes(rng.choice(b"acgt") for _ in range(1200))
        self.assertReply("OK", "MSET", "a", a, "b", b)
        text, matches, length = model(a, b, 5, True)
        started = time.monotonic()
        self.assertReply(text, "LCS", "a", "b")
        self.assertReply([b"matches", matches, b"len", length],
                         "LCS", "a", "b", "IDX", "MINMATCHLEN", "5", "WITHMATCHLEN")
        self.assertLess(time.monotonic() - started, 10)

    def test_random_strings_match_the_model(self):
        rng = random.Random(11)
        for _ in range(150):
            def s():
                alphabet = b"abcde"[:rng.randint(1, 5)]
                return bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 70)))
            a, b = s(), s()
            min_len = rng.randint(-1, 3)
            self.assertReply("OK", "MSET", "a", a, "b", b)
            text, matches, length = model(a, b, max(min_len, 0), True)
            self.assertReply(text, "LCS", "a", "b")
            self.assertReply(length, "LCS", "a", "b", "LEN")
            self.assertReply([b"matches", matches, b"len", length],
                             "LCS", "a", "b", "IDX", "MINMATCHLEN", str(min_len), "WITHMATCHLEN")
