#include "server/rdb/rdb_value.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "base/hex_test_support.h"
#include "persistence/rdb_containers.h"

namespace ordis::server {
namespace {

namespace rdb = persistence::rdb;

using base::FromHex;

// Reads a whole DUMP payload (checksum verified) into an object.
ObjectPtr Restore(std::string_view payload, RdbValueStatus* status = nullptr) {
  RdbValueStatus s = RdbValueStatus::kMalformed;
  ObjectPtr obj;
  if (rdb::Verify(payload)) {
    rdb::Reader in(payload.substr(0, payload.size() - 10));
    uint8_t type;
    if (in.ReadByte(&type)) s = ReadRdbValue(type, &in, RdbLimits(), kNoExpire, &obj);
  }
  if (status != nullptr) *status = s;
  return obj;
}

std::vector<std::string> ListOf(const Object& obj) {
  const ListValue& l = std::get<ListValue>(obj.collection());
  return {l.begin(), l.end()};
}

// DUMP payloads from redis-server 7.0.15.
// RPUSH l a 1 -5000 "hello world" 300 127 128 -1 70000 -9000000 5000000000 ""
const char kList[] =
    "1201023f3f0000000c008161020101f178ec038b68656c6c6f20776f726c640cc12c027f01c08002dfff02f2701101"
    "0"
    "4f3c0ab76ff05f400f2052a01000000098001ff0a00835f0f93a71b72e4";
// SADD s 5 -3 70000
const char kSet[] = "0b140400000003000000fdffffff05000000701101000a009db067c236a65f3f";
// ZADD z 1 a 2.5 b -0.5 c 100 d
const char kZSet[] =
    "1122220000000800816302842d302e3505816102010181620283322e35048164026401ff0a00412fbd547f30c004";
// HSET h f v n 12
const char kHash[] = "1012120000000400816602817602816e020c01ff0a0001369481d35b8974";
// SET str 12345
const char kString[] = "00c139300a009d94ea2793fc08b9";
// XADD st 1-1 a 1 b 2; XADD st 1-2 a 3 b 4; XADD st 2-0 c x; XDEL st 1-2; XGROUP CREATE st g 0;
// XREADGROUP GROUP g alice COUNT 1 STREAMS st >
const char kStream[] =
    "13011000000000000000010000000000000001c3393e123e0000001900020101010201816102816202002009000020"
    "01"
    "401102050103600902030104200b401301dfff202b088163028178020601ff0202000101010203010167010181ffff"
    "ffffffffffff01000000000000000100000000000000019ef67b11a2010000010105616c6963659ef67b11a2010000"
    "01000000000000000100000000000000010a00e87c71de227317aa";

TEST(RdbValue, RestoresRedisDumpsAndDumpsTheSameBytes) {
  for (const char* hex : {kList, kSet, kZSet, kString, kStream}) {
    const std::string payload = FromHex(hex);
    ObjectPtr obj = Restore(payload);
    ASSERT_NE(obj, nullptr) << hex;
    EXPECT_EQ(DumpPayload(*obj, RdbLimits()), payload) << hex;
  }
  ObjectPtr list = Restore(FromHex(kList));
  EXPECT_EQ(ListOf(*list),
            (std::vector<std::string>{"a", "1", "-5000", "hello world", "300", "127", "128", "-1",
                                      "70000", "-9000000", "5000000000", ""}));
  ObjectPtr zset = Restore(FromHex(kZSet));
  EXPECT_EQ(zset->zset().Score("c"), -0.5);
  EXPECT_EQ(zset->zset().Score("d"), 100);
  ObjectPtr hash = Restore(FromHex(kHash));
  ASSERT_NE(hash, nullptr);
  EXPECT_EQ(hash->hash().at("n"), "12");
  EXPECT_EQ(Restore(DumpPayload(*hash, RdbLimits()))->hash(), hash->hash());
  ObjectPtr stream = Restore(FromHex(kStream));
  const StreamValue& st = stream->stream();
  EXPECT_EQ(st.size(), 2u);
  EXPECT_EQ(st.entries_added(), 3u);
  EXPECT_EQ(st.max_deleted_id(), (StreamId{1, 2}));
  const StreamGroup& g = st.groups().at("g");
  EXPECT_EQ(g.pel.at(StreamId{1, 1}).consumer->name, "alice");
}

TEST(RdbValue, LargeFormsRoundTrip) {
  ObjectPtr list = NewObject(ObjType::kList);
  for (int i = 0; i < 5000; ++i) list->list().push_back(std::string(i % 300, 'a' + i % 26));
  ObjectPtr set = NewObject(ObjType::kSet);
  for (int i = 0; i < 1000; ++i) set->set().insert("m" + std::to_string(i));
  ObjectPtr ints = NewObject(ObjType::kSet);
  for (int i = 0; i < 100; ++i) ints->set().insert(std::to_string(i * 1000003LL));
  ObjectPtr hash = NewObject(ObjType::kHash);
  for (int i = 0; i < 1000; ++i) hash->hash()["f" + std::to_string(i)] = std::string(i % 100, 'v');
  ObjectPtr zset = NewObject(ObjType::kZSet);
  for (int i = 0; i < 1000; ++i) zset->zset().Insert("m" + std::to_string(i), i * 0.5 - 7, {});
  ObjectPtr stream = NewObject(ObjType::kStream);
  for (uint64_t i = 1; i <= 1000; ++i) {
    const std::string v = std::to_string(i);
    const std::vector<std::string_view> fv = i % 7 ? std::vector<std::string_view>{"a", v, "b", v}
                                                   : std::vector<std::string_view>{"c", v};
    stream->stream().Append({i, i % 3}, fv, {});
    if (i % 5 == 0) stream->stream().Delete({i, i % 3});
  }
  for (Object* obj : {list.get(), set.get(), ints.get(), hash.get(), zset.get(), stream.get()}) {
    const std::string payload = DumpPayload(*obj, RdbLimits());
    ObjectPtr back = Restore(payload);
    ASSERT_NE(back, nullptr) << static_cast<int>(obj->type());
    EXPECT_EQ(DumpPayload(*back, RdbLimits()).size() > 0, true);
    switch (obj->type()) {
      case ObjType::kList:
        EXPECT_EQ(ListOf(*back), ListOf(*obj));
        EXPECT_EQ(static_cast<uint8_t>(payload[0]), rdb::kTypeListQuicklist2);
        break;
      case ObjType::kHash:
        EXPECT_EQ(back->hash(), obj->hash());
        break;
      case ObjType::kZSet:
        EXPECT_EQ(back->zset().size(), 1000u);
        EXPECT_EQ(back->zset().Score("m3"), 3 * 0.5 - 7);
        EXPECT_EQ(static_cast<uint8_t>(payload[0]), rdb::kTypeZSet2);
        break;
      case ObjType::kSet:
        EXPECT_EQ(back->set().size(), obj->set().size());
        for (const auto& m : obj->set()) EXPECT_TRUE(back->set().contains(m));
        break;
      case ObjType::kStream:
        EXPECT_EQ(back->stream().size(), 800u);
        EXPECT_EQ(back->stream().entries_added(), 1000u);
        EXPECT_EQ(back->stream().last_id(), (StreamId{1000, 1}));
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(static_cast<uint8_t>(DumpPayload(*ints, RdbLimits())[0]), rdb::kTypeSetIntset);
}

TEST(RdbValue, ReadsRedis72SetListpacks) {
  rdb::ListpackWriter lp;
  lp.Append("a");
  lp.Append("17");
  std::string payload(1, static_cast<char>(rdb::kTypeSetListpack));
  rdb::AppendString(&payload, lp.Finish());
  rdb::Seal(&payload);
  ObjectPtr set = Restore(payload);
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->set().size(), 2u);
  EXPECT_TRUE(set->set().contains("17"));
}

TEST(RdbValue, CorruptPayloadsFailCleanly) {
  std::mt19937 rng(3);
  for (const char* hex : {kList, kSet, kZSet, kHash, kString, kStream}) {
    const std::string good = FromHex(hex);
    const std::string body = good.substr(0, good.size() - 10);
    for (int i = 0; i < 5000; ++i) {
      std::string bad = body;
      bad[rng() % bad.size()] = static_cast<char>(rng());
      if (rng() % 3 == 0) bad.resize(rng() % bad.size());
      rdb::Reader in(bad);
      uint8_t type;
      ObjectPtr obj;
      if (in.ReadByte(&type)) ReadRdbValue(type, &in, RdbLimits(), kNoExpire, &obj);
    }
  }
  RdbValueStatus status;
  // A set listed twice, an empty hash, a module value.
  std::string dup(1, static_cast<char>(rdb::kTypeSet));
  rdb::AppendLength(&dup, 2);
  rdb::AppendString(&dup, "x");
  rdb::AppendString(&dup, "x");
  rdb::Seal(&dup);
  EXPECT_EQ(Restore(dup, &status), nullptr);
  EXPECT_EQ(status, RdbValueStatus::kMalformed);
  std::string empty(1, static_cast<char>(rdb::kTypeHash));
  rdb::AppendLength(&empty, 0);
  rdb::Seal(&empty);
  EXPECT_EQ(Restore(empty, &status), nullptr);
  EXPECT_EQ(status, RdbValueStatus::kEmpty);
  std::string module(1, static_cast<char>(rdb::kTypeModule2));
  rdb::Seal(&module);
  EXPECT_EQ(Restore(module, &status), nullptr);
  EXPECT_EQ(status, RdbValueStatus::kUnsupported);
}

}  // namespace
}  // namespace ordis::server
