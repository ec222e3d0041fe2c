"""Geo commands (issue 17): GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH GEOSEARCHSTORE GEORADIUS
GEORADIUSBYMEMBER and the _RO forms, with replies, errors and keyspace events byte for byte as
redis-server 7.0.15 gives them (every expectation here passes against it:
ORDIS_SERVER=/usr/bin/redis-server).

The randomized comparison starts a reference redis-server (REDIS_REFERENCE, default
/usr/bin/redis-server) beside the server under test and sends both the same sets and searches:
clustered and world-wide points, positions at the edges of the ranges, members sharing a position
(ties in distance, whose order under COUNT is Redis's partial sort's), both encodings, radii and
boxes in every unit, every option, and the STORE forms; every reply must be identical.
"""

import random
import unittest

from harness import CrossServerTestCase, RawClient, ServerTestCase, close_all


SICILY = ("13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
PALERMO = [b"13.36138933897018433", b"38.11555639549629859"]
CATANIA = [b"15.08726745843887329", b"37.50266842333162032"]
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
UNIT = "ERR unsupported unit provided. please use M, KM, FT, MI"


class GeoCommandsTest(ServerTestCase):
    def sicily(self):
        self.assertReply(2, "GEOADD", "Sicily", *SICILY)

    def test_positions_hashes_distances(self):
        self.sicily()
        self.assertReply([b"Palermo", b"3479099956230698", b"Catania", b"3479447370796909"],
                         "ZRANGE", "Sicily", "0", "-1", "WITHSCORES")
        self.assertReply([PALERMO, CATANIA, None], "GEOPOS", "Sicily", "Palermo", "Catania", "x")
        self.assertReply([b"sqc8b49rny0", b"sqdtr74hyu0", None], "GEOHASH", "Sicily", "Palermo",
                         "Catania", "x")
        self.assertReply(b"166274.1516", "GEODIST", "Sicily", "Palermo", "Catania")
        self.assertReply(b"166.2742", "GEODIST", "Sicily", "Palermo", "Catania", "km")
        self.assertReply(b"103.3182", "GEODIST", "Sicily", "Palermo", "Catania", "MI")
        self.assertReply(b"545518.8700", "GEODIST", "Sicily", "Palermo", "Catania", "ft")
        self.assertReply(None, "GEODIST", "Sicily", "Palermo", "x")
        self.assertReply(None, "GEODIST", "nokey", "a", "b")
        self.assertReply([None, None], "GEOPOS", "nokey", "a", "b")
        self.assertErr(UNIT, "GEODIST", "nokey", "a", "b", "parsec")
        self.assertErr("ERR syntax error", "GEODIST", "Sicily", "Palermo", "Catania", "km", "x")
        # RESP3: coordinates are doubles, distances stay bulk strings, a missing member is null.
        c = self.resp3_client()
        expected = b"*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n"
        c.send_command("GEOPOS", "Sicily", "Palermo", "x")
        self.assertEqual(c.read_raw(len(expected)), expected)
        self.assertReply(b"166274.1516", "GEODIST", "Sicily", "Palermo", "Catania", client=c)

    def test_edges_of_the_ranges(self):
        self.assertReply(3, "GEOADD", "g", "180", "85.05112878", "top", "-180", "-85.05112878",
                         "bottom", "0", "0", "zero")
        self.assertReply([b"bottom", b"0", b"zero", b"3377699720527872", b"top",
                          b"13510798882111488"], "ZRANGE", "g", "0", "-1", "WITHSCORES")
        self.assertReply([[b"180", b"85.0511287799999991"],
                          [b"-179.99999731779098511", b"-85.05112751263942528"],
                          [b"0.00000268220901489", b"0.00000126736058093"]],
                         "GEOPOS", "g", "top", "bottom", "zero")
        self.assertReply([b"bp05b5048p0", b"00bh0hbj200", b"s0000000000"], "GEOHASH", "g", "top",
                         "bottom", "zero")
        self.assertReply(b"18919844.5891", "GEODIST", "g", "top", "bottom")
        # Scores that are no geohash decode as Redis converts them.
        self.assertReply(2, "ZADD", "g", "-1", "neg", "1e300", "big")
        self.assertReply([[b"180", b"85.0511287799999991"],
                          [b"-179.99999731779098511", b"-85.05112751263942528"]],
                         "GEOPOS", "g", "neg", "big")
        self.assertReply([[b"top", b"0.0000", 13510798882111488]], "GEOSEARCH", "g",
                         "FROMLONLAT", "180", "85.05112878", "BYRADIUS", "1", "m", "WITHDIST",
                         "WITHHASH")

    def test_geoadd_options_and_errors(self):
        self.sicily()
        self.assertReply(0, "GEOADD", "Sicily", "CH", "13.361389", "38.115556", "Palermo")
        self.assertReply(2, "GEOADD", "Sicily", "CH", "13.5", "38.1", "Palermo", "1", "1", "a")
        self.assertReply(1, "GEOADD", "Sicily", "NX", "2", "2", "a", "3", "3", "b")
        self.assertReply(1, "GEOADD", "Sicily", "XX", "CH", "4", "4", "a", "5", "5", "c")
        self.assertReply(0, "GEOADD", "other", "XX", "1", "1", "a")
        self.assertReply(0, "EXISTS", "other")
        for args, error in (
                (("1", "1", "x", "200", "10", "y"),
                 "ERR invalid longitude,latitude pair 200.000000,10.000000"),
                (("10", "86", "y"), "ERR invalid longitude,latitude pair 10.000000,86.000000"),
                (("inf", "1", "y"), "ERR invalid longitude,latitude pair inf,1.000000"),
                (("abc", "1", "y"), "ERR value is not a valid float"),
                (("1", "1", "x", "2", "2"), "ERR syntax error"),
                (("NX", "XX", "1", "1", "y"), "ERR syntax error"),
                (("CH", "CH", "CH"), "ERR syntax error"),
                (("GT", "1", "1", "y"), "ERR syntax error")):
            self.assertErr(error, "GEOADD", "Sicily", *args)
        self.assertReply(4, "ZCARD", "Sicily")
        self.assertReply("OK", "SET", "s", "x")
        self.assertErr("ERR invalid longitude,latitude pair 200.000000,1.000000", "GEOADD", "s",
                       "200", "1", "a")
        self.assertErr(WRONGTYPE, "GEOADD", "s", "1", "1", "a")
        self.assertErr(WRONGTYPE, "GEOSEARCH", "s", "FROMLONLAT", "200", "1", "BYRADIUS", "1", "m")

    def test_searches(self):
        self.sicily()
        self.assertReply(2, "GEOADD", "Sicily", "12.758489", "38.788135", "edge1", "17.241510",
                         "38.788135", "edge2")
        self.assertReply([b"Catania", b"Palermo"], "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37",
                         "BYRADIUS", "200", "km", "ASC")
        self.assertReply([b"Palermo", b"Catania"], "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37",
                         "BYRADIUS", "200", "km")
        self.assertReply([[b"Catania", b"56.4413", 3479447370796909, CATANIA],
                          [b"Palermo", b"190.4424", 3479099956230698, PALERMO],
                          [b"edge2", b"279.7403", 3481342659049484,
                           [b"17.24151045083999634", b"38.78813451624225195"]],
                          [b"edge1", b"279.7405", 3479273021651468,
                           [b"12.7584877610206604", b"38.78813451624225195"]]],
                         "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400",
                         "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH")
        self.assertReply([[b"Palermo", b"0.0000"], [b"edge1", b"91.4007"],
                          [b"Catania", b"166.2742"]], "GEOSEARCH", "Sicily", "FROMMEMBER",
                         "Palermo", "BYRADIUS", "200", "km", "WITHDIST")
        self.assertReply([b"Palermo"], "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
                         "200", "km", "COUNT", "1", "DESC")
        self.assertReply([b"Palermo", b"edge1"], "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37",
                         "BYRADIUS", "500", "km", "COUNT", "2", "ANY")
        self.assertReply([[b"Palermo", b"190.4424", PALERMO], [b"Catania", b"56.4413", CATANIA]],
                         "GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD")
        self.assertReply([b"Catania", b"Palermo"], "GEORADIUS_RO", "Sicily", "15", "37", "200",
                         "km", "ASC")
        self.assertReply([[b"Catania", b"166.2742"], [b"edge1", b"91.4007"],
                          [b"Palermo", b"0.0000"]], "GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", "WITHDIST",
                         "DESC")
        self.assertReply([], "GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "10", "km")
        self.assertReply([], "GEORADIUSBYMEMBER", "nokey", "x", "bad", "parsec")

    def test_search_errors_in_redis_order(self):
        self.sicily()
        base = ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37")
        for args, error in (
                (("GeoSearch", "Sicily", "BYRADIUS", "10", "km", "ASC", "WITHDIST"),
                 "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearch"),
                (base + ("ASC", "WITHDIST"),
                 "ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH"),
                (base + ("BYBOX", "1", "1", "km", "BYRADIUS", "1", "km"), "ERR syntax error"),
                (("GEOSEARCH", "Sicily", "FROMMEMBER", "x", "BYRADIUS", "-1", "km"),
                 "ERR could not decode requested zset member"),
                (base + ("BYRADIUS", "x", "km"), "ERR need numeric radius"),
                (base + ("BYRADIUS", "-1", "km"), "ERR radius cannot be negative"),
                (base + ("BYRADIUS", "1", "parsec"), UNIT),
                (base + ("BYBOX", "1", "x", "km"), "ERR need numeric height"),
                (base + ("BYBOX", "-1", "1", "km"), "ERR height or width cannot be negative"),
                (base + ("BYRADIUS", "1", "km", "COUNT", "0"), "ERR COUNT must be > 0"),
                (base + ("BYRADIUS", "1", "km", "COUNT", "x"),
                 "ERR value is not an integer or out of range"),
                (base + ("BYRADIUS", "1", "km", "ANY"),
                 "ERR the ANY argument requires COUNT argument"),
                (base + ("BYRADIUS", "1", "km", "STORE", "d"), "ERR syntax error"),
                (("GEORADIUS_RO", "Sicily", "15", "37", "1", "km", "STORE", "d"),
                 "ERR syntax error"),
                (("GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "d", "WITHDIST"),
                 "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
                 "WITHCOORD options"),
                (("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km",
                  "WITHHASH"),
                 "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD "
                 "options"),
                (("GEORADIUSBYMEMBER", "Sicily", "x", "1", "km"),
                 "ERR could not decode requested zset member")):
            self.assertErr(error, *args)
        self.assertReply(0, "EXISTS", "d")

    def test_store_forms_and_events(self):
        self.sicily()
        sub = self.raw_client()
        self.assertReply("OK", "CONFIG", "SET", "notify-keyspace-events", "KEA")
        self.assertEqual(sub.call("PSUBSCRIBE", "__keyevent@0__:*"),
                         [b"psubscribe", b"__keyevent@0__:*", 1])
        self.assertReply(2, "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d1")
        self.assertReply([b"Palermo", b"3479099956230698", b"Catania", b"3479447370796909"],
                         "ZRANGE", "d1", "0", "-1", "WITHSCORES")
        self.assertReply(1, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "STOREDIST",
                         "d2", "COUNT", "1", "DESC")
        self.assertReply([b"Catania", b"166.27415156960032"], "ZRANGE", "d2", "0", "-1",
                         "WITHSCORES")
        self.assertReply(2, "GEOSEARCHSTORE", "d3", "Sicily", "FROMLONLAT", "15", "37",
                         "BYRADIUS", "200", "mi", "STOREDIST")
        self.assertReply([b"Catania", b"35.071058862737644", b"Palermo", b"118.33573380874013"],
                         "ZRANGE", "d3", "0", "-1", "WITHSCORES")
        self.assertReply(0, "GEOSEARCHSTORE", "d3", "Sicily", "FROMLONLAT", "15", "37",
                         "BYRADIUS", "1", "km")
        self.assertReply(0, "GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d1")
        self.assertReply(0, "GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "d1")
        self.assertReply(1, "GEOADD", "Sicily", "1", "1", "x")
        self.assertReply(0, "GEOADD", "Sicily", "1", "1", "x")
        self.assertReply([b"Catania", b"Palermo"], "GEORADIUS", "Sicily", "15", "37", "200", "km",
                         "ASC")
        expected = [b"georadiusstore d1", b"georadiusstore d2",
                    b"geosearchstore d3", b"del d3", b"del d1",
                    b"zadd Sicily"]
        got = []
        while len(got) < len(expected):
            m = sub.read_reply()
            got.append(m[2].split(b"__:")[1] + b" " + m[3])
        self.assertEqual(got, expected)
        # Nothing more was published: a PING on the subscribed connection comes back next.
        self.assertEqual(sub.call("PING"), [b"pong", b""])

    def test_ties_as_redis_orders_them(self):
        self.assertReply(11, "GEOADD", "t", *("10 10 a 10 10 b 10 10 c 10 10 d 10 10 e 10 10 f "
                                              "10 10 g 10 10 h 10.1 10 i 10.1 10 j 9.9 10 k").split())
        search = ("GEOSEARCH", "t", "FROMLONLAT", "10", "10", "BYRADIUS", "100", "km")
        self.assertReply([m.encode() for m in "kabcdefghij"], *search)
        self.assertReply([b"g", b"a", b"b"], *search, "COUNT", "3")
        self.assertReply([b"g", b"a", b"b", b"c", b"d", b"e", b"f", b"h", b"j", b"i"], *search,
                         "COUNT", "10")
        self.assertReply([b"k", b"j", b"i", b"b", b"d", b"e", b"f", b"g", b"h", b"a"], *search,
                         "COUNT", "10", "DESC")
        self.assertReply([b"k", b"i", b"j", b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h"],
                         *search, "DESC")


def random_set(rng, n):
    """GEOADD arguments for n members: clustered or world-wide, some at the ranges' edges, some
    sharing a position."""
    if rng.random() < 0.5:
        lon0, lat0, spread = rng.uniform(-180, 180), rng.uniform(-85, 85), rng.choice([0.01, 1, 20])
    else:
        lon0, lat0, spread = 0, 0, 400
    shared = [(rng.uniform(-180, 180), rng.uniform(-85, 85)) for _ in range(3)]
    args = []
    for i in range(n):
        lon = max(-180.0, min(180.0, lon0 + rng.uniform(-spread, spread)))
        lat = max(-85.05112878, min(85.05112878, lat0 + rng.uniform(-spread, spread) / 2))
        roll = rng.random()
        if roll < 0.03:
            lon = rng.choice([-180, 180])
        elif roll < 0.06:
            lat = rng.choice([-85.05112878, 85.05112878])
        elif roll < 0.15:
            lon, lat = rng.choice(shared)
        args += [repr(lon), repr(lat), "m%d" % i]
    return args, (lon0, lat0, spread), shared


def random_search(rng, n, area, shared):
    """A GEOSEARCH's FROM..., BY... and option arguments, with the shape's radius (or None)."""
    lon0, lat0, spread = area
    unit = rng.choice(["m", "km", "mi", "ft"])
    meters = {"m": 1, "km": 1000, "mi": 1609.34, "ft": 0.3048}[unit]
    size = rng.choice([0, 1, 50, 500, 5000, 30000]) * 1000 * rng.random() / meters
    roll = rng.random()
    if roll < 0.4:
        lon = max(-180.0, min(180.0, lon0 + rng.uniform(-spread, spread)))
        lat = max(-85.05112878, min(85.05112878, lat0 + rng.uniform(-spread, spread) / 2))
        origin = ["FROMLONLAT", repr(lon), repr(lat)]
    elif roll < 0.5:
        origin = ["FROMLONLAT", repr(shared[0][0]), repr(shared[0][1])]
    else:
        origin = ["FROMMEMBER", "m%d" % rng.randrange(n)]
    if rng.random() < 0.6:
        shape = ["BYRADIUS", repr(size), unit]
    else:
        shape = ["BYBOX", repr(size * rng.uniform(0.1, 3)), repr(size * rng.uniform(0.1, 3)), unit]
    options = []
    if rng.random() < 0.7:
        options.append(rng.choice(["ASC", "DESC"]))
    if rng.random() < 0.5:
        options += ["COUNT", str(rng.choice([1, 2, 5, 20, 1000]))]
        if rng.random() < 0.3:
            options.append("ANY")
    withs = rng.sample(["WITHDIST", "WITHHASH", "WITHCOORD"], rng.randrange(4))
    return origin, shape, options, withs


class GeoAgainstRedisTest(CrossServerTestCase):
    """The same sets and searches on the server under test and on a reference redis-server."""

    def setUp(self):
        self.clients = [RawClient(self.server.port), RawClient(self.reference.port)]

    def tearDown(self):
        close_all(self.clients)

    def both(self, *args):
        ours, theirs = (c.call(*args) for c in self.clients)
        self.assertEqual(ours, theirs, "reply to %r" % (args,))
        return theirs

    def test_random_searches(self):
        rng = random.Random(17)
        compared = 0
        for trial in range(36):
            self.both("FLUSHALL")
            # Small sets stay listpacks, the others become skiplists.
            n = rng.choice([5, 60, 127, 400, 1500])
            args, area, shared = random_set(rng, n)
            for i in range(0, len(args), 300):
                self.both("GEOADD", "g", *args[i:i + 300])
            self.both("OBJECT", "ENCODING", "g")
            for _ in range(30):
                origin, shape, options, withs = random_search(rng, n, area, shared)
                self.both("GEOSEARCH", "g", *origin, *shape, *options, *withs)
                if shape[0] == "BYRADIUS":
                    if origin[0] == "FROMLONLAT":
                        self.both("GEORADIUS", "g", origin[1], origin[2], shape[1], shape[2],
                                  *options, *withs)
                        self.both("GEORADIUS_RO", "g", origin[1], origin[2], shape[1], shape[2],
                                  *options, *withs)
                    else:
                        self.both("GEORADIUSBYMEMBER", "g", origin[1], shape[1], shape[2],
                                  *options, *withs)
                    store = rng.choice(["STORE", "STOREDIST"])
                    cmd = (["GEORADIUS", "g", origin[1], origin[2]] if origin[0] == "FROMLONLAT"
                           else ["GEORADIUSBYMEMBER", "g", origin[1]])
                    self.both(*cmd, shape[1], shape[2], *options, store, "dst")
                else:
                    dist = ["STOREDIST"] if rng.random() < 0.5 else []
                    self.both("GEOSEARCHSTORE", "dst", "g", *origin, *shape, *options, *dist)
                self.both("ZRANGE", "dst", "0", "-1", "WITHSCORES")
                compared += 1
            members = ["m%d" % rng.randrange(n) for _ in range(8)] + ["nope"]
            self.both("GEOPOS", "g", *members)
            self.both("GEOHASH", "g", *members)
            for unit in ("m", "km", "mi", "ft"):
                self.both("GEODIST", "g", members[0], members[1], unit)
        self.assertEqual(compared, 36 * 30)

    def test_random_arguments(self):
        """Argument lists of keywords, numbers and junk: the same reply or error, the same keys."""
        rng = random.Random(23)
        words = ("WITHDIST withhash WithCoord ANY asc DESC COUNT STORE STOREDIST FROMMEMBER "
                 "FROMLONLAT BYRADIUS BYBOX m km mi ft parsec NX XX CH GT Palermo Catania nope g d "
                 "s 0 1 -1 15 37 200 1e400 inf -inf nan abc 181 -85.06 85.05112878 3 0.5 x "
                 "9223372036854775807 9223372036854775808").split() + [""]
        commands = ("GEOADD", "GEODIST", "GEOHASH", "GEOPOS", "GEOSEARCH", "GEOSEARCHSTORE",
                    "GEORADIUS", "GEORADIUSBYMEMBER", "GEORADIUS_RO", "GEORADIUSBYMEMBER_RO")
        errors = set()
        for i in range(4000):
            if i % 400 == 0:
                self.both("FLUSHALL")
                self.both("GEOADD", "g", *SICILY)
                self.both("SET", "s", "x")
            args = [rng.choice(commands), rng.choice(["g", "g", "nokey", "s", "d"])]
            args += [rng.choice(words) for _ in range(rng.randrange(12))]
            reply = self.both(*args)
            if hasattr(reply, "message"):
                errors.add(reply.message.split(" pair ")[0])
            if i % 400 == 399:
                self.assertEqual(*(sorted(c.call("KEYS", "*")) for c in self.clients))
        # The calls reached every kind of error, not just the first ones.
        self.assertGreaterEqual(len(errors), 12, errors)


if __name__ == "__main__":
    unittest.main()
