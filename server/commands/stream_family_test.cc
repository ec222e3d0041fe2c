// XADD XTRIM XRANGE XREVRANGE XLEN XDEL XSETID XREAD XREADGROUP XINFO XGROUP XACK XPENDING XCLAIM
// XAUTOCLAIM, in-process, and streams as a type (TYPE, OBJECT ENCODING, SCAN TYPE, COPY, RENAME,
// notifications). Every expectation was first checked against redis-server 7.0.15 (IDs explicit,
// idle times normalized by PendingRows, so replies do not depend on the clock).
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class StreamFamilyTest : public FamilyTest {
 protected:
  // [id, [field, value ...]]
  static Reply Entry(std::string id, std::vector<std::string> fields) {
    return Array({Bulk(id), Strings(std::move(fields))});
  }
  // An extended XPENDING reply with each row's idle time (milliseconds since delivery) checked to
  // be recent and set to 0: a slow machine (ASAN, a busy CI host) lets a millisecond pass between
  // the delivery and the XPENDING.
  static Reply PendingRows(Reply reply) {
    for (Reply& row : reply.elements) {
      if (row.elements.size() != 4) continue;  // the comparison that follows shows the shape
      Reply& idle = row.elements[2];
      EXPECT_EQ(idle.type, Reply::Type::kInteger);
      EXPECT_GE(idle.integer, 0);
      EXPECT_LT(idle.integer, 5000);
      idle.integer = 0;
    }
    return reply;
  }
};

const char kWrongType[] = "WRONGTYPE Operation against a key holding the wrong kind of value";
const char kInvalidId[] = "ERR Invalid stream ID specified as stream command argument";

TEST_F(StreamFamilyTest, XAddAndRanges) {
  EXPECT_EQ(Run({"xadd", "s", "1-1", "a", "1", "b", "2"}), Bulk("1-1"));
  EXPECT_EQ(Run({"xadd", "s", "1-*", "a", "3"}), Bulk("1-2"));
  EXPECT_EQ(Run({"xadd", "s", "5", "c", "4"}), Bulk("5-0"));
  EXPECT_EQ(Run({"xlen", "s"}), Int(3));
  EXPECT_EQ(Run({"xrange", "s", "-", "+"}),
            Array({Entry("1-1", {"a", "1", "b", "2"}), Entry("1-2", {"a", "3"}),
                   Entry("5-0", {"c", "4"})}));
  EXPECT_EQ(Run({"xrange", "s", "(1-1", "+", "COUNT", "1"}), Array({Entry("1-2", {"a", "3"})}));
  EXPECT_EQ(Run({"xrevrange", "s", "+", "-", "count", "2"}),
            Array({Entry("5-0", {"c", "4"}), Entry("1-2", {"a", "3"})}));
  // "(5" as an end is 5-18446744073709551615, exclusive: 5-0 is in.
  EXPECT_EQ(Run({"xrevrange", "s", "(5", "1-2"}),
            Array({Entry("5-0", {"c", "4"}), Entry("1-2", {"a", "3"})}));
  EXPECT_EQ(Run({"xrange", "s", "-", "+", "COUNT", "0"}), NilArray());
  EXPECT_EQ(Run({"xrange", "nokey", "-", "+"}), Array({}));
  // COUNT 0 is checked after the key's lookup, as Redis.
  EXPECT_EQ(Run({"xrange", "nokey", "-", "+", "COUNT", "0"}), Array({}));
  Run({"set", "str", "x"});
  EXPECT_EQ(Run({"xrevrange", "str", "+", "-", "COUNT", "0"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"xrange", "s", "(18446744073709551615-18446744073709551615", "+"}),
            Err("ERR invalid start ID for the interval"));
  EXPECT_EQ(Run({"xrange", "s", "-", "(0-0"}), Err("ERR invalid end ID for the interval"));
  EXPECT_EQ(Run({"xrange", "s", "(-", "+"}), Err(kInvalidId));
  EXPECT_EQ(Run({"xrange", "s", "-", "+", "foo"}), Err("ERR syntax error"));
}

TEST_F(StreamFamilyTest, XAddErrors) {
  EXPECT_EQ(Run({"xadd", "s", "1-1", "a", "1"}), Bulk("1-1"));
  // A partial ID whose sequence would overflow: Redis 7.0.15's text.
  EXPECT_EQ(Run({"xadd", "u", "2-18446744073709551615", "a", "1"}), Bulk("2-18446744073709551615"));
  EXPECT_EQ(Run({"xadd", "u", "2-*", "a", "1"}), Err("ERR Elements are too large to be stored"));
  EXPECT_EQ(
      Run({"xadd", "s", "1-1", "a", "1"}),
      Err("ERR The ID specified in XADD is equal or smaller than the target stream top item"));
  EXPECT_EQ(Run({"xadd", "s", "0-0", "a", "1"}),
            Err("ERR The ID specified in XADD must be greater than 0-0"));
  EXPECT_EQ(Run({"xadd", "s", "abc", "a", "1"}), Err(kInvalidId));
  EXPECT_EQ(Run({"xadd", "s", "2-2", "a"}),
            Err("ERR wrong number of arguments for 'xadd' command"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "1", "minid", "1", "3-1", "a", "1"}),
            Err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "-1", "3-1", "a", "1"}),
            Err("ERR The MAXLEN argument must be >= 0."));
  EXPECT_EQ(Run({"xadd", "s", "limit", "10", "3-1", "a", "1"}),
            Err("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "5", "limit", "10", "3-1", "a", "1"}),
            Err("ERR syntax error, LIMIT cannot be used without the special ~ option"));
  EXPECT_EQ(Run({"xadd", "nokey", "nomkstream", "*", "a", "1"}), Nil());
  EXPECT_EQ(Run({"exists", "nokey"}), Int(0));
  EXPECT_EQ(Run({"xadd", "s", "18446744073709551615-18446744073709551615", "a", "1"}),
            Bulk("18446744073709551615-18446744073709551615"));
  EXPECT_EQ(Run({"xadd", "s", "*", "a", "1"}),
            Err("ERR The stream has exhausted the last possible ID, unable to add more items"));
  Run({"set", "str", "x"});
  EXPECT_EQ(Run({"xadd", "str", "*", "a", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"xlen", "str"}), Err(kWrongType));
}

TEST_F(StreamFamilyTest, TrimmingAndDeletion) {
  for (int i = 1; i <= 250; ++i) Run({"xadd", "s", std::to_string(i) + "-0", "f", "v"});
  // Approximate: whole nodes of 100 entries only.
  EXPECT_EQ(Run({"xtrim", "s", "maxlen", "~", "120"}), Int(100));
  EXPECT_EQ(Run({"xtrim", "s", "maxlen", "~", "0", "limit", "50"}), Int(0));
  EXPECT_EQ(Run({"xtrim", "s", "maxlen", "=", "120"}), Int(30));
  EXPECT_EQ(Run({"xtrim", "s", "minid", "200"}), Int(69));
  EXPECT_EQ(Run({"xlen", "s"}), Int(51));
  EXPECT_EQ(Run({"xdel", "s", "200-0", "200-0", "9-9"}), Int(1));
  EXPECT_EQ(Run({"xdel", "s", "201-0", "bad"}), Err(kInvalidId));
  EXPECT_EQ(Run({"xdel", "nokey", "bad"}), Int(0));
  EXPECT_EQ(Run({"xtrim", "s"}), Err("ERR wrong number of arguments for 'xtrim' command"));
  EXPECT_EQ(Run({"xtrim", "s", "foo", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "2", "300-1", "f", "v"}), Bulk("300-1"));
  EXPECT_EQ(Run({"xlen", "s"}), Int(2));
  // An emptied stream stays.
  EXPECT_EQ(Run({"xtrim", "s", "maxlen", "0"}), Int(2));
  EXPECT_EQ(Run({"exists", "s"}), Int(1));
  EXPECT_EQ(Run({"type", "s"}), Status("stream"));
}

TEST_F(StreamFamilyTest, XInfoStream) {
  Run({"xadd", "s", "1-1", "a", "1"});
  Run({"xadd", "s", "2-1", "b", "2"});
  Run({"xdel", "s", "1-1"});
  EXPECT_EQ(Run({"xinfo", "stream", "s"}), Array({Bulk("length"),
                                                  Int(1),
                                                  Bulk("radix-tree-keys"),
                                                  Int(1),
                                                  Bulk("radix-tree-nodes"),
                                                  Int(2),
                                                  Bulk("last-generated-id"),
                                                  Bulk("2-1"),
                                                  Bulk("max-deleted-entry-id"),
                                                  Bulk("1-1"),
                                                  Bulk("entries-added"),
                                                  Int(2),
                                                  Bulk("recorded-first-entry-id"),
                                                  Bulk("2-1"),
                                                  Bulk("groups"),
                                                  Int(0),
                                                  Bulk("first-entry"),
                                                  Entry("2-1", {"b", "2"}),
                                                  Bulk("last-entry"),
                                                  Entry("2-1", {"b", "2"})}));
  EXPECT_EQ(Run({"xinfo", "stream", "s", "full", "count", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"xinfo", "stream", "s", "foo"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO "
                "HELP."));
  EXPECT_EQ(Run({"xinfo", "stream", "nokey"}), Err("ERR no such key"));
}

TEST_F(StreamFamilyTest, XSetId) {
  Run({"xadd", "s", "5-1", "a", "1"});
  EXPECT_EQ(Run({"xsetid", "s", "1-1"}),
            Err("ERR The ID specified in XSETID is smaller than the target stream top item"));
  EXPECT_EQ(Run({"xsetid", "s", "10-1", "entriesadded", "0"}),
            Err("ERR The entries_added specified in XSETID is smaller than the target stream "
                "length"));
  EXPECT_EQ(Run({"xsetid", "s", "10-1", "maxdeletedid", "11-0"}),
            Err("ERR The ID specified in XSETID is smaller than the provided "
                "max_deleted_entry_id"));
  EXPECT_EQ(Run({"xsetid", "nokey", "1-1"}), Err("ERR no such key"));
  // Redis 7.0.15 lets the last ID go below the max deleted ID (7.2 refuses it).
  Run({"xadd", "d", "5-1", "a", "1"});
  EXPECT_EQ(Run({"xsetid", "d", "10-0", "maxdeletedid", "8-0"}), Ok());
  EXPECT_EQ(Run({"xsetid", "d", "7-0"}), Ok());
  EXPECT_EQ(Run({"xsetid", "s", "10-1", "entriesadded", "7", "maxdeletedid", "6-0"}), Ok());
  EXPECT_EQ(Run({"xadd", "s", "10-*", "a", "1"}), Bulk("10-2"));
  EXPECT_EQ(Run({"xsetid", "s", "10-2", "entriesadded", "-1"}),
            Err("ERR entries_added must be positive"));
}

TEST_F(StreamFamilyTest, XReadServesNewerEntries) {
  Run({"xadd", "a", "1-1", "f", "1"});
  Run({"xadd", "a", "2-1", "f", "2"});
  Run({"xadd", "b", "1-1", "g", "1"});
  EXPECT_EQ(Run({"xread", "count", "1", "streams", "a", "b", "1-1", "0"}),
            Array({Array({Bulk("a"), Array({Entry("2-1", {"f", "2"})})}),
                   Array({Bulk("b"), Array({Entry("1-1", {"g", "1"})})})}));
  EXPECT_EQ(Run({"xread", "streams", "a", "$"}), NilArray());
  EXPECT_EQ(Run({"xread", "streams", "a", "nokey", "2-1", "0"}), NilArray());
  // BLOCK answers as its timeout would where the client cannot block (MULTI).
  Run({"multi"});
  Run({"xread", "block", "10", "streams", "a", "$"});
  EXPECT_EQ(Run({"exec"}), Array({NilArray()}));
  EXPECT_EQ(Run({"xread", "streams", "a", "+"}), Err(kInvalidId));
  EXPECT_EQ(Run({"xread", "streams", "a", "b", "0"}),
            Err("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
                "specified."));
  EXPECT_EQ(Run({"xread", "streams", "a", ">"}),
            Err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                "<group> <consumer> option."));
  EXPECT_EQ(Run({"xread", "group", "g", "c", "streams", "a", "0"}),
            Err("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."));
  EXPECT_EQ(Run({"xread", "block", "-1", "streams", "a", "0"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"xread", "count", "1", "x"}), Err("ERR syntax error"));
  // RESP3: a map of stream to entries.
  Run({"hello", "3"});
  EXPECT_EQ(Run({"xread", "streams", "b", "0"}),
            Map({Bulk("b"), Array({Entry("1-1", {"g", "1"})})}));
}

TEST_F(StreamFamilyTest, ConsumerGroupLifecycle) {
  Run({"xadd", "s", "1-1", "a", "1"});
  Run({"xadd", "s", "2-1", "b", "2"});
  Run({"xadd", "s", "3-1", "c", "3"});
  EXPECT_EQ(Run({"xgroup", "create", "s", "g", "0"}), Ok());
  EXPECT_EQ(Run({"xgroup", "create", "s", "g", "0"}),
            Err("BUSYGROUP Consumer Group name already exists"));
  EXPECT_EQ(Run({"xgroup", "create", "nokey", "g", "0"}),
            Err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
                "want to use the MKSTREAM option to create an empty stream automatically."));
  EXPECT_EQ(Run({"xgroup", "create", "made", "g", "$", "mkstream"}), Ok());
  EXPECT_EQ(Run({"xlen", "made"}), Int(0));
  EXPECT_EQ(Run({"xgroup", "setid", "s", "nog", "0"}),
            Err("NOGROUP No such consumer group 'nog' for key name 's'"));

  EXPECT_EQ(
      Run({"xreadgroup", "group", "g", "bob", "count", "2", "streams", "s", ">"}),
      Array({Array({Bulk("s"), Array({Entry("1-1", {"a", "1"}), Entry("2-1", {"b", "2"})})})}));
  EXPECT_EQ(
      Run({"xreadgroup", "group", "g", "bob", "streams", "s", "0"}),
      Array({Array({Bulk("s"), Array({Entry("1-1", {"a", "1"}), Entry("2-1", {"b", "2"})})})}));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "bob", "noack", "streams", "s", ">"}),
            Array({Array({Bulk("s"), Array({Entry("3-1", {"c", "3"})})})}));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "bob", "streams", "s", ">"}), NilArray());
  EXPECT_EQ(Run({"xreadgroup", "group", "nog", "bob", "streams", "s", ">"}),
            Err("NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option"));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "bob", "streams", "s", "$"}),
            Err("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
                "history of this consumer by specifying a proper ID, or use the > ID to get new "
                "messages. The $ ID would just return an empty result set."));

  EXPECT_EQ(Run({"xpending", "s", "g"}),
            Array({Int(2), Bulk("1-1"), Bulk("2-1"), Array({Strings({"bob", "2"})})}));
  // Each re-read of the history counts a delivery.
  EXPECT_EQ(PendingRows(Run({"xpending", "s", "g", "-", "+", "10", "bob"})),
            Array({Array({Bulk("1-1"), Bulk("bob"), Int(0), Int(2)}),
                   Array({Bulk("2-1"), Bulk("bob"), Int(0), Int(2)})}));
  EXPECT_EQ(Run({"xpending", "s", "g", "-", "+", "10", "nobody"}), Array({}));
  EXPECT_EQ(Run({"xpending", "s", "nog"}), Err("NOGROUP No such key 's' or consumer group 'nog'"));
  EXPECT_EQ(Run({"xack", "s", "g", "1-1", "1-1", "9-9"}), Int(1));
  EXPECT_EQ(Run({"xack", "s", "g", "bad"}), Err(kInvalidId));
  EXPECT_EQ(Run({"xack", "s", "nog", "bad"}), Int(0));

  EXPECT_EQ(Run({"xinfo", "groups", "s"}),
            Array({Array({Bulk("name"), Bulk("g"), Bulk("consumers"), Int(1), Bulk("pending"),
                          Int(1), Bulk("last-delivered-id"), Bulk("3-1"), Bulk("entries-read"),
                          Int(3), Bulk("lag"), Int(0)})}));
  EXPECT_EQ(Run({"xgroup", "createconsumer", "s", "g", "alice"}), Int(1));
  EXPECT_EQ(Run({"xgroup", "createconsumer", "s", "g", "alice"}), Int(0));
  EXPECT_EQ(Run({"xgroup", "delconsumer", "s", "g", "bob"}), Int(1));
  EXPECT_EQ(Run({"xpending", "s", "g"}), Array({Int(0), Nil(), Nil(), NilArray()}));
  EXPECT_EQ(Run({"xgroup", "destroy", "s", "g"}), Int(1));
  EXPECT_EQ(Run({"xgroup", "destroy", "s", "g"}), Int(0));
}

TEST_F(StreamFamilyTest, ClaimAndAutoClaim) {
  for (int i = 1; i <= 4; ++i) Run({"xadd", "s", std::to_string(i) + "-1", "f", "v"});
  Run({"xgroup", "create", "s", "g", "0"});
  Run({"xreadgroup", "group", "g", "crashed", "streams", "s", ">"});
  EXPECT_EQ(Run({"xclaim", "s", "g", "alice", "0", "1-1", "justid"}), Strings({"1-1"}));
  EXPECT_EQ(Run({"xclaim", "s", "g", "alice", "0", "2-1", "retrycount", "7"}),
            Array({Entry("2-1", {"f", "v"})}));
  EXPECT_EQ(PendingRows(Run({"xpending", "s", "g", "-", "2-1", "10"})),
            Array({Array({Bulk("1-1"), Bulk("alice"), Int(0), Int(1)}),
                   Array({Bulk("2-1"), Bulk("alice"), Int(0), Int(7)})}));
  EXPECT_EQ(Run({"xclaim", "s", "g", "alice", "0", "2-1", "foo"}),
            Err("ERR Unrecognized XCLAIM option 'foo'"));
  EXPECT_EQ(Run({"xclaim", "s", "g", "alice", "x", "2-1"}),
            Err("ERR Invalid min-idle-time argument for XCLAIM"));
  EXPECT_EQ(Run({"xclaim", "s", "nog", "alice", "0", "2-1"}),
            Err("NOGROUP No such key 's' or consumer group 'nog'"));
  // A deleted entry leaves the PEL when claimed; XAUTOCLAIM reports it.
  Run({"xdel", "s", "3-1"});
  EXPECT_EQ(
      Run({"xautoclaim", "s", "g", "bob", "0", "0", "count", "2"}),
      Array({Bulk("3-1"), Array({Entry("1-1", {"f", "v"}), Entry("2-1", {"f", "v"})}), Array({})}));
  EXPECT_EQ(Run({"xautoclaim", "s", "g", "bob", "0", "0", "justid"}),
            Array({Bulk("0-0"), Strings({"1-1", "2-1", "4-1"}), Strings({"3-1"})}));
  EXPECT_EQ(Run({"xautoclaim", "s", "g", "bob", "0", "0", "count", "0"}),
            Err("ERR COUNT must be > 0"));
  EXPECT_EQ(Run({"xpending", "s", "g"}),
            Array({Int(3), Bulk("1-1"), Bulk("4-1"), Array({Strings({"bob", "3"})})}));
}

TEST_F(StreamFamilyTest, StreamsAsAType) {
  Run({"xadd", "s", "1-1", "f", "v"});
  Run({"xgroup", "create", "s", "g", "0"});
  EXPECT_EQ(Run({"type", "s"}), Status("stream"));
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("stream"));
  Run({"set", "str", "x"});
  EXPECT_EQ(Run({"scan", "0", "type", "stream"}), Array({Bulk("0"), Strings({"s"})}));
  EXPECT_EQ(Run({"copy", "s", "c"}), Int(1));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "x", "streams", "c", ">"}),
            Array({Array({Bulk("c"), Array({Entry("1-1", {"f", "v"})})})}));
  EXPECT_EQ(Run({"xpending", "s", "g"}), Array({Int(0), Nil(), Nil(), NilArray()}));
  EXPECT_EQ(Run({"rename", "c", "d"}), Ok());
  EXPECT_EQ(Run({"xpending", "d", "g"}),
            Array({Int(1), Bulk("1-1"), Bulk("1-1"), Array({Strings({"x", "1"})})}));
  const Reply usage = Run({"memory", "usage", "d"});
  EXPECT_EQ(usage.type, Reply::Type::kInteger);
  EXPECT_GT(usage.integer, 0);
  EXPECT_EQ(Run({"del", "d"}), Int(1));
  EXPECT_EQ(Run({"command", "getkeys", "xread", "count", "1", "streams", "a", "b", "0", "0"}),
            Strings({"a", "b"}));
  EXPECT_EQ(Run({"command", "getkeys", "xreadgroup", "group", "streams", "c", "streams", "k", ">"}),
            Strings({"k"}));
}

TEST_F(StreamFamilyTest, WatchSeesEntriesNotGroupBookkeeping) {
  Run({"xadd", "s", "1-1", "f", "v"});
  Run({"xgroup", "create", "s", "g", "0"});
  EXPECT_EQ(WatchedExec("s", {"xadd", "s", "2-1", "f", "v"}), NilArray());
  // As Redis: XREADGROUP and XACK change no watched key.
  EXPECT_EQ(WatchedExec("s", {"xreadgroup", "group", "g", "c", "streams", "s", ">"}),
            Array({Status("PONG")}));
  EXPECT_EQ(WatchedExec("s", {"xack", "s", "g", "1-1"}), Array({Status("PONG")}));
}

TEST_F(StreamFamilyTest, BlockedReadsServedEndedAndRefusedInScripts) {
  Run({"xgroup", "create", "s", "g", "$", "mkstream"});
  TestClient& reader = NewClient();
  TestClient& member = NewClient();
  EXPECT_EQ(reader.RunRaw({"xread", "block", "0", "streams", "s", "$"}), "");
  EXPECT_EQ(member.RunRaw({"xreadgroup", "group", "g", "c", "block", "0", "streams", "s", ">"}),
            "");
  EXPECT_EQ(Run({"xadd", "s", "1-1", "f", "v"}), Bulk("1-1"));
  const Reply entries =
      Array({Array({Bulk("s"), Array({Array({Bulk("1-1"), Strings({"f", "v"})})})})});
  EXPECT_EQ(reader.Resume(), entries);
  EXPECT_EQ(member.Resume(), entries);
  // A destroyed group ends its waiters with Redis's NOGROUP; a deleted key with UNBLOCKED.
  EXPECT_EQ(member.RunRaw({"xreadgroup", "group", "g", "c", "block", "0", "streams", "s", ">"}),
            "");
  EXPECT_EQ(Run({"xgroup", "destroy", "s", "g"}), Int(1));
  EXPECT_EQ(member.Resume(),
            Err("NOGROUP the consumer group this client was blocked on no longer exists"));
  Run({"xgroup", "create", "s", "g", "$"});
  EXPECT_EQ(member.RunRaw({"xreadgroup", "group", "g", "c", "block", "0", "streams", "s", ">"}),
            "");
  Run({"del", "s"});
  EXPECT_EQ(member.Resume(), Err("UNBLOCKED the stream key no longer exists"));
  // In a script BLOCK is refused, as Redis refuses it.
  const Reply refused =
      Run({"eval", "return redis.call('xread', 'block', '0', 'streams', 's', '$')", "0"});
  ASSERT_EQ(refused.type, Reply::Type::kError);
  EXPECT_EQ(refused.str.rfind("ERR xread command is not allowed with BLOCK option from scripts", 0),
            0u)
      << refused.str;
}

}  // namespace
}  // namespace ordis::server::test
