// Test support for the command families: commands run through the dispatcher on a keyspace of
// their own, with no sockets and no threads (after Dragonfly's BaseFamilyTest), and their replies
// decoded into Reply values that tests compare exactly:
//
//   class StringFamilyTest : public FamilyTest {};
//   TEST_F(StringFamilyTest, SetGet) {
//     EXPECT_EQ(Run({"set", "k", "v"}), Ok());
//     EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
//     EXPECT_EQ(Run({"incr", "k"}), Err("ERR value is not an integer or out of range"));
//   }
//
// Each test gets a fresh keyspace and a scratch directory (`dir`), so SAVE and friends write there.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ordis::server {

class Keyspace;
class Config;
struct ClientState;

namespace test {

// A decoded RESP2 or RESP3 reply.
struct Reply {
  enum class Type {
    kStatus,     // +OK
    kError,      // -ERR ...
    kInteger,    // :1
    kBulk,       // $1 v
    kNil,        // $-1, or RESP3 _
    kNilArray,   // *-1 (RESP2)
    kArray,      // *n
    kMap,        // RESP3 %n: elements are key, value, key, value ...
    kSet,        // RESP3 ~n
    kPush,       // RESP3 >n
    kDouble,     // RESP3 ,1.5 (str holds the text)
    kBoolean,    // RESP3 #t / #f (integer 1 / 0)
    kVerbatim,   // RESP3 =n txt:... (str holds "txt:...")
    kBigNumber,  // RESP3 (123 (str holds the digits)
  };
  Type type = Type::kNil;
  std::string str;
  int64_t integer = 0;
  std::vector<Reply> elements;

  bool operator==(const Reply&) const = default;
  // The bulk strings of an array reply (fails the test on another shape).
  std::vector<std::string> Strings() const;
};

// gtest prints replies the way redis-cli shows them: OK, (error) ..., (integer) 1, "v", (nil),
// [a, b], {k: v}.
void PrintTo(const Reply& reply, std::ostream* os);
std::ostream& operator<<(std::ostream& os, const Reply& reply);

Reply Ok();
Reply Status(std::string_view s);
Reply Err(std::string_view message);  // the whole text, e.g. "ERR syntax error"
Reply Int(int64_t v);
Reply Bulk(std::string_view s);
Reply Nil();
Reply NilArray();
Reply Array(std::vector<Reply> elements);
// An array of bulk strings.
Reply Strings(std::vector<std::string> bulks);
Reply Map(std::vector<Reply> keys_and_values);
Reply Set(std::vector<Reply> elements);
Reply Double(std::string_view text);
Reply Boolean(bool b);

// Decodes exactly one reply from bytes; fails the test on malformed or trailing bytes.
Reply DecodeReply(std::string_view bytes);
// Decodes every reply in bytes (pub/sub messages and replies back to back).
std::vector<Reply> DecodeReplies(std::string_view bytes);
// A pub/sub frame as RESP2 sends it (an array of bulks and integers: {"message", "ch", "hi"}) or
// RESP3 (a push).
Reply Message(std::vector<std::string> parts);
Reply PushMessage(std::vector<std::string> parts);
// A (un)subscribe reply: {"subscribe", "ch"} and its count; a nil channel when channel is null.
Reply Subscribed(std::string_view verb, const char* channel, int64_t count, bool resp3 = false);

class FamilyTest;

// One client of the keyspace: its own database, protocol, MULTI queue, WATCH list, name.
class TestClient {
 public:
  ~TestClient();
  // Runs one command and returns its reply (Nil() if it wrote nothing, e.g. under CLIENT REPLY
  // OFF).
  Reply Run(std::vector<std::string> args);
  // The reply bytes exactly as they would go to the socket.
  std::string RunRaw(std::vector<std::string> args);
  // Every frame a command wrote (SUBSCRIBE a b: two replies; PUBLISH to oneself: the message,
  // then the reply).
  std::vector<Reply> RunAll(std::vector<std::string> args);
  // The pub/sub messages published to this client since the last call, as its connection would
  // send them.
  std::vector<Reply> TakeMessages();
  // Blocking commands: whether the client waits (its command replied nothing yet), and the reply
  // its wait ended with: nullopt while it still waits. timed_out: as its deadline passing.
  bool blocked();
  std::optional<Reply> Resume(bool timed_out = false);
  ClientState& state();

 private:
  friend class FamilyTest;
  struct Impl;
  explicit TestClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A command's name as a client sends it: "config|get" is {"config", "get"}.
std::vector<std::string> CommandWords(std::string_view name);

// "event key" of each keyevent message (`__keyevent@<db>__:<event>`) subscriber got since the
// last call: the keyspace events a command raised, in order.
std::vector<std::string> TakeKeyEvents(TestClient& subscriber);

class FamilyTest : public ::testing::Test {
 protected:
  FamilyTest();
  // With configuration parameters set at start-up (as `--name value` flags would).
  explicit FamilyTest(std::vector<std::pair<std::string, std::string>> config);
  ~FamilyTest() override;

  // Runs a command as the default client.
  Reply Run(std::vector<std::string> args) { return client().Run(std::move(args)); }
  std::string RunRaw(std::vector<std::string> args) { return client().RunRaw(std::move(args)); }

  TestClient& client() { return *clients_.front(); }
  // A further client, alive until the end of the test or CloseClient.
  TestClient& NewClient();
  // Ends the session of a client NewClient made, as its connection closing would.
  void CloseClient(TestClient& client);

  // EXEC's reply after the default client WATCHes key, another client runs change, and the
  // default client queues a PING: a nil array iff change counts as modifying key.
  Reply WatchedExec(std::string_view key, std::vector<std::string> change);

  Keyspace& keyspace();
  Config& config();
  // What maxmemory is checked against from now on, instead of the process's heap.
  void FakeUsedMemory(std::function<uint64_t()> used);
  // The scratch directory the server's files go to (`dir`).
  const std::string& dir() const { return dir_; }

 private:
  struct Env;
  std::string dir_;
  std::unique_ptr<Env> env_;
  std::vector<std::unique_ptr<TestClient>> clients_;
};

}  // namespace test
}  // namespace ordis::server
