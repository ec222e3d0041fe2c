#include <string>

#include "base/hex_test_support.h"
#include "persistence/rdb_payload.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class DumpFamilyTest : public FamilyTest {
 protected:
  std::string Dump(const std::string& key) {
    Reply r = Run({"dump", key});
    EXPECT_EQ(r.type, Reply::Type::kBulk) << key;
    return r.str;
  }
};

using base::FromHex;

TEST_F(DumpFamilyTest, DumpIsRedisBytes) {
  EXPECT_EQ(Run({"dump", "missing"}), Nil());
  Run({"set", "str", "12345"});
  // redis-server 7.0.15's DUMP of the same value.
  EXPECT_EQ(Dump("str"), FromHex("00c139300a009d94ea2793fc08b9"));
  Run({"sadd", "s", "5", "-3", "70000"});
  EXPECT_EQ(Dump("s"), FromHex("0b140400000003000000fdffffff05000000701101000a009db067c236a65f3f"));
  Run({"zadd", "z", "1", "a", "2.5", "b", "-0.5", "c", "100", "d"});
  EXPECT_EQ(Dump("z"), FromHex("1122220000000800816302842d302e3505816102010181620283322e3504816402"
                               "6401ff0a00412fbd547f30c004"));
}

TEST_F(DumpFamilyTest, RestoreRoundTripsEveryType) {
  Run({"rpush", "l", "a", "1", "b"});
  Run({"hset", "h", "f", "v"});
  Run({"zadd", "z", "1", "m"});
  Run({"sadd", "s", "x", "y"});
  Run({"xadd", "x", "1-1", "f", "v"});
  Run({"set", "str", "text"});
  for (const char* key : {"l", "h", "z", "s", "x", "str"}) {
    const std::string payload = Dump(key);
    const std::string copy = std::string(key) + "2";
    EXPECT_EQ(Run({"restore", copy, "0", payload}), Ok()) << key;
    EXPECT_EQ(Dump(copy), payload) << key;
    EXPECT_EQ(Run({"type", copy}), Run({"type", key}));
  }
  EXPECT_EQ(Run({"lrange", "l2", "0", "-1"}), Strings({"a", "1", "b"}));
  EXPECT_EQ(Run({"xrange", "x2", "-", "+"}), Array({Array({Bulk("1-1"), Strings({"f", "v"})})}));
}

TEST_F(DumpFamilyTest, RestoreOptionsAndErrors) {
  Run({"set", "k", "v"});
  const std::string payload = Dump("k");
  EXPECT_EQ(Run({"restore", "k", "0", payload}), Err("BUSYKEY Target key name already exists."));
  EXPECT_EQ(Run({"restore", "n", "-1", payload}), Err("ERR Invalid TTL value, must be >= 0"));
  EXPECT_EQ(Run({"restore", "n", "x", payload}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"restore", "n", "0", payload, "bogus"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"restore", "n", "0", payload, "idletime", "-1"}),
            Err("ERR Invalid IDLETIME value, must be >= 0"));
  EXPECT_EQ(Run({"restore", "n", "0", payload, "freq", "256"}),
            Err("ERR Invalid FREQ value, must be >= 0 and <= 255"));
  // IDLETIME and FREQ exclude each other: the second is a syntax error.
  EXPECT_EQ(Run({"restore", "n", "0", payload, "idletime", "1", "freq", "1"}),
            Err("ERR syntax error"));
  std::string bad = payload;
  bad[1] ^= 1;
  EXPECT_EQ(Run({"restore", "n", "0", bad}), Err("ERR DUMP payload version or checksum are wrong"));
  EXPECT_EQ(Run({"restore", "n", "0", "short"}),
            Err("ERR DUMP payload version or checksum are wrong"));
  // A good checksum over a bad value (a list claiming 5 nodes and holding none).
  std::string no_nodes = "\x12\x05";
  persistence::rdb::Seal(&no_nodes);
  EXPECT_EQ(Run({"restore", "n", "0", no_nodes}), Err("ERR Bad data format"));
  EXPECT_EQ(Run({"exists", "n"}), Int(0));
  // REPLACE, with a TTL; ABSTTL in the past deletes the replaced key.
  Run({"set", "other", "w"});
  EXPECT_EQ(Run({"restore", "other", "100000", payload, "REPLACE"}), Ok());
  EXPECT_EQ(Run({"get", "other"}), Bulk("v"));
  Reply pttl = Run({"pttl", "other"});
  EXPECT_GT(pttl.integer, 99000);
  EXPECT_LE(pttl.integer, 100000);
  EXPECT_EQ(Run({"restore", "other", "1", payload, "REPLACE", "ABSTTL"}), Ok());
  EXPECT_EQ(Run({"exists", "other"}), Int(0));
  EXPECT_EQ(Run({"restore", "idle", "0", payload, "IDLETIME", "1000"}), Ok());
  Reply idle = Run({"object", "idletime", "idle"});
  EXPECT_GE(idle.integer, 1000);
  EXPECT_LE(idle.integer, 1001);
}

TEST_F(DumpFamilyTest, RestoreUnderLfuSetsTheFrequency) {
  Run({"config", "set", "maxmemory-policy", "allkeys-lfu"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"restore", "f", "0", Dump("k"), "FREQ", "100"}), Ok());
  EXPECT_EQ(Run({"object", "freq", "f"}), Int(100));
}

}  // namespace
}  // namespace ordis::server::test
