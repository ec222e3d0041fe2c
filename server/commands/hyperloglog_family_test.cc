// PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST, in-process. Every expectation was first checked
// against redis-server 7.0.15 (redis-compat/test_hyperloglog.py holds both servers to the same
// bytes through the real binaries).
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server::test {
namespace {

class HyperLogLogFamilyTest : public FamilyTest {};

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr std::string_view kCorrupt = "INVALIDOBJ Corrupted HLL object detected";
constexpr std::string_view kNoPermKey =
    "NOPERM this user has no permissions to access one of the keys used as arguments";

std::string Header(char encoding, std::string_view cache) {
  return std::string("HYLL", 4) + encoding + std::string(3, '\0') + std::string(cache);
}
const std::string kStale("\0\0\0\0\0\0\0\x80", 8);
// PFADD h (a new, empty HLL: XZERO:16384, the cache stale).
const std::string kEmpty = Header('\x01', kStale) + "\x7f\xff";
// PFADD h a b c; PFCOUNT h.
const std::string kAbc = Header('\x01', std::string("\x03\0\0\0\0\0\0\0", 8)) +
                         "\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a";
// Opcodes covering 16383 registers (XZERO:16383): corrupt.
const std::string kShort = Header('\x01', kStale) + "\x7f\xfe";

std::vector<std::string> Elements(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back("e" + std::to_string(i));
  return out;
}

std::vector<std::string> Cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_F(HyperLogLogFamilyTest, PfAddMakesRedisBytes) {
  EXPECT_EQ(Run({"pfadd", "h"}), Int(1));
  EXPECT_EQ(Run({"get", "h"}), Bulk(kEmpty));
  EXPECT_EQ(Run({"pfadd", "h"}), Int(0));
  EXPECT_EQ(Run({"object", "encoding", "h"}), Bulk("raw"));
  EXPECT_EQ(Run({"pfadd", "h", "a", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"pfadd", "h", "c", "a"}), Int(0));
  EXPECT_EQ(Run({"pfcount", "h"}), Int(3));
  EXPECT_EQ(Run({"get", "h"}), Bulk(kAbc));
  EXPECT_EQ(Run({"pfdebug", "decode", "h"}), Bulk("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"));
  EXPECT_EQ(Run({"pfadd", "n", "x"}), Int(1));
  EXPECT_EQ(Run({"pfcount", "n"}), Int(1));
}

TEST_F(HyperLogLogFamilyTest, Arity) {
  EXPECT_EQ(Run({"pfadd"}), Err("ERR wrong number of arguments for 'pfadd' command"));
  EXPECT_EQ(Run({"pfcount"}), Err("ERR wrong number of arguments for 'pfcount' command"));
  EXPECT_EQ(Run({"pfmerge"}), Err("ERR wrong number of arguments for 'pfmerge' command"));
  EXPECT_EQ(Run({"pfdebug", "getreg"}), Err("ERR wrong number of arguments for 'pfdebug' command"));
  EXPECT_EQ(Run({"pfselftest", "x"}),
            Err("ERR wrong number of arguments for 'pfselftest' command"));
}

TEST_F(HyperLogLogFamilyTest, OtherTypesAndOtherStrings) {
  EXPECT_EQ(Run({"rpush", "l", "x"}), Int(1));
  EXPECT_EQ(Run({"pfadd", "h", "a"}), Int(1));
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"pfadd", "l", "a"},
                                             {"pfcount", "l"},
                                             {"pfcount", "h", "l"},
                                             {"pfmerge", "l"},
                                             {"pfmerge", "h", "l"},
                                             {"pfdebug", "encoding", "l"}}) {
    EXPECT_EQ(Run(args), Err(kWrongType)) << args[0];
  }
  const std::vector<std::string> not_hll = {"foo", "12345678901234567", "HYLL",
                                            Header('\x02', kStale) + "\x7f\xff",
                                            Header('\x00', kStale) + "\x7f\xff"};
  for (const std::string& value : not_hll) {
    EXPECT_EQ(Run({"set", "s", value}), Ok());
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"pfadd", "s", "a"},
                                               {"pfcount", "s"},
                                               {"pfcount", "s", "h"},
                                               {"pfmerge", "s", "h"},
                                               {"pfmerge", "h", "s"},
                                               {"pfdebug", "nosuch", "s"}}) {
      EXPECT_EQ(Run(args), Err(kNotHll)) << args[0] << " " << value;
    }
    EXPECT_EQ(Run({"get", "s"}), Bulk(value));
  }
}

TEST_F(HyperLogLogFamilyTest, CorruptValuesChangeNothing) {
  EXPECT_EQ(Run({"set", "c", kShort}), Ok());
  EXPECT_EQ(Run({"pfcount", "c"}), Err(kCorrupt));
  EXPECT_EQ(Run({"pfcount", "c", "missing"}), Err(kCorrupt));
  EXPECT_EQ(Run({"pfmerge", "d", "c"}), Err(kCorrupt));
  EXPECT_EQ(Run({"pfmerge", "c"}), Err(kCorrupt));
  EXPECT_EQ(Run({"pfdebug", "getreg", "c"}), Err(kCorrupt));
  EXPECT_EQ(Run({"pfdebug", "todense", "c"}), Err(kCorrupt));
  // "a" lands in register 12711, which the opcodes cover; "r7803" in 16383, which they do not:
  // Redis would keep the first change, ordis keeps none.
  EXPECT_EQ(Run({"pfadd", "c", "a", "r7803"}), Err(kCorrupt));
  EXPECT_EQ(Run({"get", "c"}), Bulk(kShort));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(Run({"pfdebug", "decode", "c"}), Bulk("Z:16383"));
  EXPECT_EQ(Run({"pfdebug", "encoding", "c"}), Status("sparse"));
  // A valid cache is believed whatever the registers.
  EXPECT_EQ(Run({"set", "cached", Header('\x01', std::string("\x07\0\0\0\0\0\0\0", 8)) + "\x7f"}),
            Ok());
  EXPECT_EQ(Run({"pfcount", "cached"}), Int(7));
}

TEST_F(HyperLogLogFamilyTest, OneAtATimeAsInBatches) {
  // In place, a sparse value grows through its scratch copy, then dense registers are patched.
  for (const std::string& e : Elements(0, 5000))
    ASSERT_EQ(Run({"pfadd", "one", e}).type, Reply::Type::kInteger);
  EXPECT_EQ(Run(Cat({"pfadd", "batch"}, Elements(0, 5000))), Int(1));
  EXPECT_EQ(Run({"pfdebug", "encoding", "one"}), Status("dense"));
  EXPECT_EQ(Run({"get", "one"}), Run({"get", "batch"}));
  EXPECT_EQ(Run({"pfcount", "one"}), Int(4968));
  EXPECT_EQ(Run({"pfcount", "batch"}), Int(4968));
  EXPECT_EQ(Run({"get", "one"}), Run({"get", "batch"}));
}

TEST_F(HyperLogLogFamilyTest, PfCountCachesTheCountAndSignalsIt) {
  EXPECT_EQ(Run({"pfadd", "h", "a"}), Int(1));
  EXPECT_EQ(WatchedExec("h", {"pfcount", "h"}), NilArray());
  EXPECT_EQ(WatchedExec("h", {"pfcount", "h"}), Array({Status("PONG")}));  // the cache was valid
  EXPECT_EQ(WatchedExec("h", {"pfadd", "h", "a"}), Array({Status("PONG")}));
  EXPECT_EQ(WatchedExec("h", {"pfadd", "h", "b"}), NilArray());
  const std::string stale = Run({"get", "h"}).str;
  EXPECT_EQ(WatchedExec("h", {"pfcount", "h", "x"}), Array({Status("PONG")}));
  EXPECT_EQ(Run({"get", "h"}), Bulk(stale));  // several keys: nothing written
  EXPECT_EQ(Run({"pfcount", "h"}), Int(2));
  EXPECT_EQ(Run({"get", "h"}).str.substr(8, 8), std::string("\x02\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(Run({"pfcount", "missing"}), Int(0));
  EXPECT_EQ(Run({"pfcount", "missing", "other"}), Int(0));
}

// What Redis neither propagates nor counts in its dirty counter is no change here either: not
// logged, not counted in rdb_changes_since_last_save.
TEST_F(HyperLogLogFamilyTest, ReadsAndNoOpsAreNoChanges) {
  uint64_t changes = keyspace().changes();
  EXPECT_EQ(Run(Cat({"pfadd", "h"}, Elements(0, 10))), Int(1));
  EXPECT_EQ(Run(Cat({"pfadd", "d"}, Elements(0, 5000))), Int(1));
  EXPECT_GT(keyspace().changes(), changes);
  for (const char* key : {"h", "d"}) {
    changes = keyspace().changes();
    EXPECT_EQ(Run({"pfadd", key, "e3", "e1"}), Int(0));
    EXPECT_EQ(keyspace().changes(), changes) << key;
    EXPECT_EQ(Run({"pfcount", key}).type, Reply::Type::kInteger);  // fills the cache: a change
    EXPECT_GT(keyspace().changes(), changes) << key;
    changes = keyspace().changes();
    EXPECT_EQ(Run({"pfcount", key}).type, Reply::Type::kInteger);
    EXPECT_EQ(Run({"pfcount", key, "other"}).type, Reply::Type::kInteger);
    EXPECT_EQ(Run({"pfdebug", "encoding", key}).type, Reply::Type::kStatus);
    EXPECT_EQ(Run({"pfdebug", "todense", "d"}), Int(0));
    EXPECT_EQ(keyspace().changes(), changes) << key;
  }
}

TEST_F(HyperLogLogFamilyTest, PfMerge) {
  EXPECT_EQ(Run({"pfmerge", "empty"}), Ok());
  EXPECT_EQ(Run({"get", "empty"}), Bulk(kEmpty));
  EXPECT_EQ(Run({"pfadd", "abc", "a", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"pfadd", "x", "x"}), Int(1));
  EXPECT_EQ(Run({"pfmerge", "x", "abc", "missing"}), Ok());
  EXPECT_EQ(Run({"pfcount", "x"}), Int(4));  // the destination's registers count too
  EXPECT_EQ(Run({"pfdebug", "encoding", "x"}), Status("sparse"));
  EXPECT_EQ(Run(Cat({"pfadd", "big"}, Elements(0, 3000))), Int(1));
  EXPECT_EQ(Run({"expire", "x", "100"}), Int(1));
  EXPECT_EQ(Run({"pfmerge", "x", "big"}), Ok());
  EXPECT_EQ(Run({"pfdebug", "encoding", "x"}), Status("dense"));  // one source is dense
  EXPECT_EQ(Run({"ttl", "x"}), Int(100));
  EXPECT_EQ(Run({"pfcount", "x"}), Run({"pfcount", "abc", "big", "x"}));
  EXPECT_EQ(WatchedExec("x", {"pfmerge", "x"}), NilArray());  // signalled even unchanged
}

TEST_F(HyperLogLogFamilyTest, PfDebug) {
  EXPECT_EQ(Run({"pfdebug", "getreg", "missing"}), Err("ERR The specified key does not exist"));
  EXPECT_EQ(Run({"pfdebug", "nosuch", "missing"}), Err("ERR The specified key does not exist"));
  EXPECT_EQ(Run({"pfadd", "h", "a", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"pfdebug", "Bogus", "h"}), Err("ERR Unknown PFDEBUG subcommand 'Bogus'"));
  EXPECT_EQ(Run({"pfdebug", "ENCODING", "h"}), Status("sparse"));
  const uint64_t changes = keyspace().changes();
  const Reply registers = Run({"pfdebug", "GetReg", "h"});
  EXPECT_GT(keyspace().changes(), changes);  // made dense: logged as Redis propagates it
  ASSERT_EQ(registers.elements.size(), 16384u);
  std::vector<std::pair<size_t, int64_t>> set;
  for (size_t i = 0; i < registers.elements.size(); ++i) {
    if (registers.elements[i].integer != 0) set.emplace_back(i, registers.elements[i].integer);
  }
  EXPECT_EQ(set, (std::vector<std::pair<size_t, int64_t>>{{8436, 1}, {12711, 2}, {15780, 1}}));
  EXPECT_EQ(Run({"pfdebug", "encoding", "h"}), Status("dense"));
  EXPECT_EQ(Run({"pfdebug", "decode", "h"}), Err("ERR HLL encoding is not sparse"));
  EXPECT_EQ(Run({"pfdebug", "todense", "h"}), Int(0));
  EXPECT_EQ(Run({"pfadd", "g", "a"}), Int(1));
  EXPECT_EQ(WatchedExec("g", {"pfdebug", "todense", "g"}), Array({Status("PONG")}));
  EXPECT_EQ(Run({"pfdebug", "encoding", "g"}), Status("dense"));
  EXPECT_EQ(Run({"strlen", "g"}), Int(12304));
  EXPECT_EQ(Run({"pfcount", "g"}), Int(1));
}

TEST_F(HyperLogLogFamilyTest, HllSparseMaxBytes) {
  EXPECT_EQ(Run({"config", "set", "hll-sparse-max-bytes", "0"}), Ok());
  EXPECT_EQ(Run({"pfadd", "h"}), Int(1));
  EXPECT_EQ(Run({"pfdebug", "encoding", "h"}), Status("sparse"));
  EXPECT_EQ(Run({"pfadd", "h", "a"}), Int(1));  // the split grows it past 0 bytes
  EXPECT_EQ(Run({"pfdebug", "encoding", "h"}), Status("dense"));
  EXPECT_EQ(Run({"config", "set", "hll-sparse-max-bytes", "100"}), Ok());
  // Redis turns this one dense at its 29th element.
  for (const std::string& e : Elements(0, 28)) EXPECT_EQ(Run({"pfadd", "s", e}), Int(1));
  EXPECT_EQ(Run({"pfdebug", "encoding", "s"}), Status("sparse"));
  EXPECT_EQ(Run({"pfadd", "s", "e28"}), Int(1));
  EXPECT_EQ(Run({"pfdebug", "encoding", "s"}), Status("dense"));
}

TEST_F(HyperLogLogFamilyTest, EmbstrValuesBecomeRaw) {
  EXPECT_EQ(Run({"pfadd", "src", "a"}), Int(1));
  const std::string value = Run({"get", "src"}).str;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"pfadd", "k", "a"}, "raw"},          {{"pfcount", "k"}, "raw"},
      {{"pfdebug", "encoding", "k"}, "raw"}, {{"pfcount", "k", "src"}, "embstr"},
      {{"pfmerge", "other", "k"}, "embstr"}, {{"pfmerge", "k"}, "raw"}};
  for (const auto& [command, encoding] : cases) {
    EXPECT_EQ(Run({"set", "k", value}), Ok());
    EXPECT_EQ(Run({"object", "encoding", "k"}), Bulk("embstr"));
    EXPECT_NE(Run(command).type, Reply::Type::kError);
    EXPECT_EQ(Run({"object", "encoding", "k"}), Bulk(encoding)) << command[0];
  }
}

// A dense value of registers all at v.
std::string DenseAll(uint8_t v) {
  std::string regs;
  for (int i = 0; i < 4096; ++i) {  // 4 registers in 3 bytes
    const uint32_t w = v | v << 6 | v << 12 | v << 18;
    regs += static_cast<char>(w & 0xff);
    regs += static_cast<char>((w >> 8) & 0xff);
    regs += static_cast<char>(w >> 16);
  }
  return Header('\x00', kStale) + regs;
}

TEST_F(HyperLogLogFamilyTest, OverflowingEstimateIsNegativeAsRedis) {
  EXPECT_EQ(Run({"set", "d", DenseAll(63)}), Ok());
  EXPECT_EQ(Run({"pfcount", "d"}), Int(INT64_MIN));
  EXPECT_EQ(Run({"getrange", "d", "8", "15"}), Bulk(kStale));  // stored, stale: counted again
  EXPECT_EQ(Run({"pfcount", "d", "missing"}), Int(INT64_MIN));
}

TEST_F(HyperLogLogFamilyTest, KeyspaceEvents) {
  TestClient& sub = NewClient();
  sub.RunAll({"psubscribe", "__keyevent@0__:*"});
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "E$g"}), Ok());
  auto events = [&] { return TakeKeyEvents(sub); };
  using Events = std::vector<std::string>;
  EXPECT_EQ(Run({"pfadd", "h", "a"}), Int(1));
  EXPECT_EQ(events(), (Events{"pfadd h"}));
  EXPECT_EQ(Run({"pfadd", "h", "a"}), Int(0));
  EXPECT_EQ(Run({"pfcount", "h"}), Int(1));
  EXPECT_EQ(Run({"pfdebug", "todense", "h"}), Int(1));
  EXPECT_EQ(events(), Events{});
  EXPECT_EQ(Run({"pfmerge", "d", "h"}), Ok());
  EXPECT_EQ(Run({"pfmerge", "d"}), Ok());
  EXPECT_EQ(events(), (Events{"pfadd d", "pfadd d"}));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"pfadd", "s", "a"}), Err(kNotHll));
  EXPECT_EQ(events(), (Events{"set s"}));
}

TEST_F(HyperLogLogFamilyTest, PfSelfTest) { EXPECT_EQ(Run({"pfselftest"}), Ok()); }

// Redis 7.0's key specs: PFADD writes without reading (RW INSERT), PFCOUNT and PFDEBUG read
// (RW ACCESS), PFMERGE reads and writes its destination and reads its sources.
TEST_F(HyperLogLogFamilyTest, AclKeyAccessAsRedis) {
  for (const char* key : {"r1", "w1", "rw1"}) EXPECT_EQ(Run({"pfadd", key, "a"}), Int(1));
  EXPECT_EQ(Run({"acl", "setuser", "u", "on", ">p", "%R~r*", "%W~w*", "~rw*", "+@hyperloglog"}),
            Ok());
  TestClient& u = NewClient();
  EXPECT_EQ(u.Run({"auth", "u", "p"}), Ok());
  EXPECT_EQ(u.Run({"pfadd", "w1", "b"}), Int(1));
  EXPECT_EQ(u.Run({"pfadd", "r1", "b"}), Err(kNoPermKey));
  EXPECT_EQ(u.Run({"pfcount", "r1"}), Int(1));
  EXPECT_EQ(u.Run({"pfcount", "w1"}), Err(kNoPermKey));
  EXPECT_EQ(u.Run({"pfmerge", "rw1", "r1"}), Ok());
  EXPECT_EQ(u.Run({"pfmerge", "w1", "r1"}), Err(kNoPermKey));
  EXPECT_EQ(u.Run({"pfmerge", "r1", "r1"}), Err(kNoPermKey));
  EXPECT_EQ(u.Run({"pfmerge", "rw1", "w1"}), Err(kNoPermKey));
  EXPECT_EQ(u.Run({"pfdebug", "encoding", "r1"}), Status("sparse"));
  EXPECT_EQ(u.Run({"pfdebug", "encoding", "w1"}), Err(kNoPermKey));
}

}  // namespace
}  // namespace ordis::server::test
