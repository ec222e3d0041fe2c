#include "resp/parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

// Allocation tracking for this test binary: the parser must not allocate in proportion to what a
// client declares, nor per command once warmed up. Replacing global operator new is the only way to
// see the parser's private vectors from outside.
namespace {
std::atomic<bool> g_tracking{false};
std::atomic<size_t> g_allocations{0};
std::atomic<size_t> g_largest_allocation{0};
}  // namespace

// Out of line so that GCC does not pair the inlined free() with operator new and warn
// (-Wmismatched-new-delete); they are a matching malloc/free pair.
[[gnu::noinline]] void* operator new(std::size_t n) {
  if (g_tracking.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    size_t seen = g_largest_allocation.load(std::memory_order_relaxed);
    while (n > seen && !g_largest_allocation.compare_exchange_weak(seen, n)) {
    }
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace ordis::resp {
namespace {

using namespace std::string_literals;
using Command = std::vector<std::string>;

class AllocationScope {
 public:
  AllocationScope() {
    g_allocations = 0;
    g_largest_allocation = 0;
    g_tracking = true;
  }
  ~AllocationScope() { g_tracking = false; }
  size_t count() const { return g_allocations; }
  size_t largest() const { return g_largest_allocation; }
};

// What a connection sees after feeding some bytes.
struct Outcome {
  std::vector<Command> commands;
  ParseStatus last = ParseStatus::kNeedMore;
  std::string error;
  size_t leftover = 0;  // bytes fed but not consumed, when there was no error

  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "{" << o.commands.size() << " commands:";
  for (const Command& c : o.commands) {
    os << " [";
    for (const std::string& a : c) os << testing::PrintToString(a) << ",";
    os << "]";
  }
  return os << " last=" << static_cast<int>(o.last) << " error=\"" << o.error
            << "\" leftover=" << o.leftover << "}";
}

// Feeds `input` to `parser` like a connection would, in pieces ending at each offset of `cuts`
// (increasing; the last should be input.size()). Before each piece the unconsumed bytes move to a
// new allocation and the old one is overwritten, so a parser that kept pointers instead of offsets
// would read garbage. Stops at the first error.
Outcome Feed(Parser& parser, std::string_view input, const std::vector<size_t>& cuts) {
  Outcome out;
  auto buffer = std::make_unique<std::string>();
  std::vector<std::string_view> args;
  size_t fed = 0;
  for (size_t cut : cuts) {
    auto moved = std::make_unique<std::string>();
    moved->reserve(buffer->size() + (cut - fed) + 1);
    moved->append(*buffer).append(input.substr(fed, cut - fed));
    buffer->assign(buffer->size(), '#');
    buffer = std::move(moved);
    fed = cut;
    while (true) {
      size_t consumed = 0;
      const ParseStatus status = parser.Parse(*buffer, &consumed, &args);
      EXPECT_LE(consumed, buffer->size());
      out.last = status;
      if (status == ParseStatus::kError) {
        out.error = parser.ErrorText();
        return out;  // leftover stays 0: it would depend on how much was fed before the error
      }
      if (status == ParseStatus::kCommand) {
        EXPECT_FALSE(args.empty());
        out.commands.emplace_back(args.begin(), args.end());
      } else {
        EXPECT_TRUE(args.empty());
      }
      buffer->erase(0, consumed);
      if (status == ParseStatus::kNeedMore) break;
    }
  }
  out.leftover = buffer->size();
  return out;
}

Outcome FeedWhole(std::string_view input, const ParserLimits& limits = {}, bool auth = true) {
  Parser parser(limits);
  parser.set_authenticated(auth);
  return Feed(parser, input, {input.size()});
}

// Checks that splitting `input` at every byte boundary, and feeding it one byte at a time, gives
// the same outcome as feeding it whole; returns that outcome.
Outcome FeedSplitEverywhere(std::string_view input, const ParserLimits& limits = {},
                            bool auth = true) {
  const Outcome whole = FeedWhole(input, limits, auth);
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    Parser parser(limits);
    parser.set_authenticated(auth);
    EXPECT_EQ(Feed(parser, input, {cut, input.size()}), whole) << "split at " << cut;
  }
  std::vector<size_t> bytewise;
  for (size_t i = 1; i <= input.size(); ++i) bytewise.push_back(i);
  Parser parser(limits);
  parser.set_authenticated(auth);
  EXPECT_EQ(Feed(parser, input, bytewise), whole) << "byte at a time";
  return whole;
}

Outcome Commands(std::vector<Command> commands, size_t leftover = 0) {
  Outcome out;
  out.commands = std::move(commands);
  out.leftover = leftover;
  return out;
}

Outcome Error(std::string text, std::vector<Command> commands = {}) {
  Outcome out;
  out.commands = std::move(commands);
  out.last = ParseStatus::kError;
  out.error = std::move(text);
  return out;
}

std::string Multibulk(const Command& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

TEST(Parser, ParsesOneMultibulkCommandWithViewsIntoInput) {
  Parser parser;
  const std::string input = Multibulk({"SET", "key", "value"});
  size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(parser.Parse(input, &consumed, &args), ParseStatus::kCommand);
  EXPECT_EQ(consumed, input.size());
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0], "SET");
  EXPECT_EQ(args[1], "key");
  EXPECT_EQ(args[2], "value");
  for (std::string_view a : args) {
    EXPECT_GE(a.data(), input.data());
    EXPECT_LE(a.data() + a.size(), input.data() + input.size());
  }
  EXPECT_FALSE(parser.InProgress());
}

TEST(Parser, PipelineSplitAtEveryByte) {
  const std::string input =
      Multibulk({"SET", "key", "value"}) + "*0\r\n*-1\r\n" + "PING\r\n" + "\r\n   \n" +
      Multibulk({"ECHO", "a\0\r\nb\n"s}) + Multibulk({"ECHO", ""}) + "ECHO \"hi there\" 'x y'\n" +
      "*1\r\n$4\r\nPINGxx" + "*1\rX$4\r\nPING\r\n" + "set a b\r\n" + Multibulk({"GET", "k"});
  EXPECT_EQ(FeedSplitEverywhere(input), Commands({{"SET", "key", "value"},
                                                  {"PING"},
                                                  {"ECHO", "a\0\r\nb\n"s},
                                                  {"ECHO", ""},
                                                  {"ECHO", "hi there", "x y"},
                                                  {"PING"},
                                                  {"PING"},
                                                  {"set", "a", "b"},
                                                  {"GET", "k"}}));
}

TEST(Parser, IncompleteTailIsLeftUnconsumed) {
  const std::string input = Multibulk({"PING"}) + "*2\r\n$3\r\nGET\r\n$3\r\nke";
  EXPECT_EQ(FeedSplitEverywhere(input), Commands({{"PING"}}, input.size() - 14));
  EXPECT_EQ(FeedSplitEverywhere("PING\r\nECHO x"), Commands({{"PING"}}, 6));
}

TEST(Parser, BinarySafeBulks) {
  std::string all_bytes;
  for (int c = 0; c < 256; ++c) all_bytes.push_back(static_cast<char>(c));
  const Command command = {"SET", all_bytes, "\r\n", "\0"s, "$3\r\n*1\r\n"};
  EXPECT_EQ(FeedSplitEverywhere(Multibulk(command)), Commands({command}));
}

TEST(Parser, EmptyBulkIsAnEmptyArgument) {
  EXPECT_EQ(FeedSplitEverywhere("*3\r\n$0\r\n\r\n$0\r\n\r\n$1\r\nx\r\n"),
            Commands({{"", "", "x"}}));
}

TEST(Parser, EmptyMultibulksAreConsumedAndSkipped) {
  Parser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  // kNeedMore may consume skipped commands: the caller must drop those bytes.
  EXPECT_EQ(parser.Parse("*0\r\n*-1\r\n*-5\r\n*1\r\n", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(consumed, 14u);
  EXPECT_TRUE(parser.InProgress());
  EXPECT_EQ(parser.Parse("*1\r\n$4\r\nPING\r\n", &consumed, &args), ParseStatus::kCommand);
  EXPECT_EQ(consumed, 14u);
  EXPECT_EQ(parser.Parse("\r\n\n  \t \r\n", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(consumed, 9u);
  EXPECT_FALSE(parser.InProgress());
}

// Redis skips the two bytes after a bulk, and the byte after the count line's CR, unchecked.
TEST(Parser, TerminatorsAfterCrAndBulkAreNotChecked) {
  EXPECT_EQ(FeedSplitEverywhere("*2\r\n$4\r\nECHOab$1\r\nxyz"), Commands({{"ECHO", "x"}}));
  EXPECT_EQ(FeedSplitEverywhere("*1\rX$4\r\nPING\r\n"), Commands({{"PING"}}));
  EXPECT_EQ(FeedSplitEverywhere("*1\r\n$4\rXPING\r\n"), Commands({{"PING"}}));
  // The byte after "$4\r" is skipped, so the payload starts at "ING" and is still incomplete.
  EXPECT_EQ(FeedSplitEverywhere("*1\r\n$4\rPING\r\n"), Commands({}, 13));
}

struct ErrorCase {
  std::string input;
  std::string error;
};

void ExpectErrors(const std::vector<ErrorCase>& cases, const ParserLimits& limits = {},
                  bool auth = true) {
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.input));
    EXPECT_EQ(FeedSplitEverywhere(c.input, limits, auth), Error(c.error));
  }
}

// Each reply checked against redis-server 7.0.15.
TEST(Parser, MalformedMultibulkErrors) {
  const std::string kCount = "ERR Protocol error: invalid multibulk length";
  const std::string kBulk = "ERR Protocol error: invalid bulk length";
  ExpectErrors({
      {"*abc\r\n", kCount},
      {"*\r\n", kCount},
      {"*-0\r\n", kCount},
      {"*01\r\n", kCount},
      {"*+1\r\n", kCount},
      {"* 1\r\n", kCount},
      {"*1 \r\n", kCount},
      {"*2147483648\r\n", kCount},
      {"*99999999999999999999\r\n", kCount},
      {"*-9223372036854775809\r\n", kCount},
      {"*1\r\nX\r\n", "ERR Protocol error: expected '$', got 'X'"},
      {"*1\r\n:1\r\n", "ERR Protocol error: expected '$', got ':'"},
      {"*1\r\n\r\n", "ERR Protocol error: expected '$', got ' '"},
      {"*1\r\n\n\r\n", "ERR Protocol error: expected '$', got ' '"},
      {"*1\r\n\xff\r\n", "ERR Protocol error: expected '$', got '\xff'"},
      {"*2\r\n$1\r\na\r\n*1\r\n", "ERR Protocol error: expected '$', got '*'"},
      {"*1\r\n$-1\r\n", kBulk},
      {"*1\r\n$-0\r\n", kBulk},
      {"*1\r\n$04\r\n", kBulk},
      {"*1\r\n$ 4\r\n", kBulk},
      {"*1\r\n$4 \r\n", kBulk},
      {"*1\r\n$\r\n", kBulk},
      {"*1\r\n$+4\r\n", kBulk},
      {"*1\r\n$536870913\r\n", kBulk},
      {"*1\r\n$99999999999999999999\r\n", kBulk},
  });
  // Commands before the bad one are still delivered.
  EXPECT_EQ(FeedSplitEverywhere("PING\r\n*1\r\n$x\r\n"), Error(kBulk, {{"PING"}}));
}

TEST(Parser, LimitBoundariesMatchRedis) {
  EXPECT_EQ(FeedWhole("*2147483647\r\n"), Commands({}, 13));
  EXPECT_EQ(FeedWhole("*1\r\n$536870912\r\n"), Commands({}, 16));
}

TEST(Parser, HeaderErrorsWaitForTheWholeLine) {
  // Like Redis, a header is judged only once its CR and one more byte are there.
  for (std::string partial : {"*abc", "*abc\r", "*1\r\nX", "*1\r\nX\r", "*1\r\n$x\r"}) {
    EXPECT_EQ(FeedSplitEverywhere(partial), Commands({}, partial.size()));
  }
}

TEST(Parser, InlineErrors) {
  const std::string kQuotes = "ERR Protocol error: unbalanced quotes in request";
  ExpectErrors({
      {"ECHO \"a\"b\r\n", kQuotes},
      {"ECHO 'a'b\r\n", kQuotes},
      {"ECHO \"ab\r\n", kQuotes},
      {"ECHO 'ab\r\n", kQuotes},
      {"ECHO \"a\\\r\n", kQuotes},
      {"ECHO \"a\\\"\n", kQuotes},
      {"ECHO 'a\\'\n", kQuotes},
      {"\"\n", kQuotes},
  });
}

TEST(Parser, TooLongLinesWithSmallLimits) {
  ParserLimits limits;
  limits.max_inline_len = 16;
  const std::string p16(16, 'P');
  const std::string d15(15, '1');
  // Redis fails once more than max_inline_len bytes wait without a line end.
  EXPECT_EQ(FeedSplitEverywhere(p16, limits), Commands({}, 16));
  EXPECT_EQ(FeedSplitEverywhere(p16 + "P", limits),
            Error("ERR Protocol error: too big inline request"));
  EXPECT_EQ(FeedSplitEverywhere(p16 + "\n", limits), Commands({{p16}}));
  EXPECT_EQ(FeedSplitEverywhere("*" + d15, limits), Commands({}, 16));
  EXPECT_EQ(FeedSplitEverywhere("*" + d15 + "1", limits),
            Error("ERR Protocol error: too big mbulk count string"));
  // A CR within the limit is found, and the count line then needs only one more byte.
  EXPECT_EQ(FeedSplitEverywhere("*" + d15 + "\r", limits), Commands({}, 17));
  EXPECT_EQ(FeedSplitEverywhere("*" + d15 + "\r\n", limits),
            Error("ERR Protocol error: invalid multibulk length"));
  EXPECT_EQ(FeedSplitEverywhere("*1\r\n$" + d15, limits), Commands({}, 20));
  EXPECT_EQ(FeedSplitEverywhere("*1\r\n$" + d15 + "1", limits),
            Error("ERR Protocol error: too big bulk count string"));
  // The limit applies per line: a long command made of short lines is fine.
  const Command long_command(10, std::string(10, 'x'));
  EXPECT_EQ(FeedSplitEverywhere(Multibulk(long_command), limits), Commands({long_command}));
}

TEST(Parser, TooLongLinesWithDefaultLimits) {
  const std::string digits(64 * 1024, '1');
  EXPECT_EQ(FeedWhole("*" + digits.substr(1)), Commands({}, 64 * 1024));
  EXPECT_EQ(FeedWhole("*" + digits), Error("ERR Protocol error: too big mbulk count string"));
  EXPECT_EQ(FeedWhole("*1\r\n$" + digits), Error("ERR Protocol error: too big bulk count string"));
  EXPECT_EQ(FeedWhole(std::string(64 * 1024, 'P')), Commands({}, 64 * 1024));
  EXPECT_EQ(FeedWhole(std::string(64 * 1024 + 1, 'P')),
            Error("ERR Protocol error: too big inline request"));
  // An inline line of exactly the limit is accepted.
  const std::string arg(64 * 1024 - 1, 'a');
  EXPECT_EQ(FeedWhole("A" + arg + "\n"), Commands({{"A" + arg}}));
}

// Redis finds line ends with strchr on its NUL-terminated buffer: a NUL before the line end hides
// it, so the request waits until it is too big.
TEST(Parser, NulBeforeLineEndNeverCompletesLikeRedis) {
  ParserLimits limits;
  limits.max_inline_len = 16;
  EXPECT_EQ(FeedSplitEverywhere("PI\0NG\r\n"s, limits), Commands({}, 7));
  EXPECT_EQ(FeedSplitEverywhere("PI\0NG\r\nPING\r\nPING\r\n"s, limits),
            Error("ERR Protocol error: too big inline request"));
  EXPECT_EQ(FeedSplitEverywhere("*1\0\r\n$4\r\nPING\r\nPING\r\n"s, limits),
            Error("ERR Protocol error: too big mbulk count string"));
  EXPECT_EQ(FeedSplitEverywhere("*1\r\n$4\0\r\nPING\r\nPING\r\n"s, limits),
            Error("ERR Protocol error: too big bulk count string"));
  // A NUL after the line end is a later command's business.
  EXPECT_EQ(FeedSplitEverywhere("PING\r\n\0"s, limits), Commands({{"PING"}}, 1));
}

TEST(Parser, CustomLimits) {
  ParserLimits limits;
  limits.max_bulk_len = 10;
  limits.max_multibulk_len = 3;
  const Command ok = {"0123456789", "a", "b"};
  EXPECT_EQ(FeedSplitEverywhere(Multibulk(ok), limits), Commands({ok}));
  EXPECT_EQ(FeedSplitEverywhere("*4\r\n", limits),
            Error("ERR Protocol error: invalid multibulk length"));
  EXPECT_EQ(FeedSplitEverywhere("*1\r\n$11\r\n", limits),
            Error("ERR Protocol error: invalid bulk length"));
}

TEST(Parser, UnauthenticatedLimits) {
  const ParserLimits defaults;
  ExpectErrors({{"*11\r\n", "ERR Protocol error: unauthenticated multibulk length"},
                {"*1\r\n$16385\r\n", "ERR Protocol error: unauthenticated bulk length"},
                // The general checks come first, as in Redis.
                {"*x\r\n", "ERR Protocol error: invalid multibulk length"},
                {"*1\r\n$536870913\r\n", "ERR Protocol error: invalid bulk length"}},
               defaults, /*auth=*/false);
  EXPECT_EQ(FeedWhole("*10\r\n", defaults, false), Commands({}, 5));
  EXPECT_EQ(FeedWhole("*1\r\n$16384\r\n", defaults, false), Commands({}, 12));
  EXPECT_EQ(FeedWhole("*-1\r\nPING\r\n", defaults, false), Commands({{"PING"}}));
  // Authenticated clients get the normal limits.
  EXPECT_EQ(FeedWhole("*11\r\n$16385\r\n", defaults, true), Commands({}, 13));

  ParserLimits limits;
  limits.unauth_max_multibulk_len = 2;
  limits.unauth_max_bulk_len = 3;
  EXPECT_EQ(FeedSplitEverywhere(Multibulk({"AUTH", "pw"}), limits, false),
            Error("ERR Protocol error: unauthenticated bulk length"));
  EXPECT_EQ(FeedSplitEverywhere(Multibulk({"abc", "pw"}), limits, false),
            Commands({{"abc", "pw"}}));
  EXPECT_EQ(FeedSplitEverywhere(Multibulk({"a", "b", "c"}), limits, false),
            Error("ERR Protocol error: unauthenticated multibulk length"));

  Parser parser(limits);
  parser.set_authenticated(false);
  size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(parser.Parse("*3\r\n", &consumed, &args), ParseStatus::kError);
  parser.set_authenticated(true);
  EXPECT_EQ(parser.Parse("*3\r\n", &consumed, &args), ParseStatus::kNeedMore);
}

// Inline splitting as sdssplitargs; each case checked against redis-server 7.0.15.
TEST(Parser, InlineQuoting) {
  const std::vector<std::pair<std::string, Command>> cases = {
      {"SET k v", {"SET", "k", "v"}},
      {"  SET \t k   v  ", {"SET", "k", "v"}},
      {"SET k \"a\\x41\\n\\z\" ", {"SET", "k", "aA\nz"}},
      {"SET k \"\\x4a\\x4A\"", {"SET", "k", "JJ"}},
      {"SET k \"\\xZZ\\x4\"", {"SET", "k", "xZZx4"}},
      {"SET k \"\\\"\\\\\\t\\b\\a\\r\"", {"SET", "k", "\"\\\t\b\a\r"}},
      {"SET k \"\\x00\"", {"SET", "k", "\0"s}},
      {"SET k 'b\\'c\\n'", {"SET", "k", "b'c\\n"}},
      {"SET k 'a\\\\b'", {"SET", "k", "a\\\\b"}},
      {"SET k a\"b c\"", {"SET", "k", "ab c"}},
      {"SET k a'b c'd", {"SET", "k", "ab c"}},  // closing quote followed by "d": error below
      {"SET k \"x\"\v", {"SET", "k", "x"}},
      {"SET k \"a\"\fb", {"SET", "k", "a", "b"}},
      {"SET k \"\" ''", {"SET", "k", "", ""}},
      {"\v\fSET k v\f", {"SET", "k", "v\f"}},
      {"ECHO a\vb", {"ECHO", "a\vb"}},
      {"SET k \x80\xff", {"SET", "k", "\x80\xff"}},
      {"PING\rECHO", {"PING", "ECHO"}},
      {"\rPING", {"PING"}},
      {"PING\r", {"PING"}},
  };
  for (const auto& [line, args] : cases) {
    SCOPED_TRACE(testing::PrintToString(line));
    if (line == "SET k a'b c'd") {
      EXPECT_EQ(FeedSplitEverywhere(line + "\r\n"),
                Error("ERR Protocol error: unbalanced quotes in request"));
      continue;
    }
    EXPECT_EQ(FeedSplitEverywhere(line + "\r\n"), Commands({args}));
    EXPECT_EQ(FeedSplitEverywhere(line + "\n"), Commands({args}));
  }
}

TEST(Parser, InlineArgumentsLiveInTheParser) {
  Parser parser;
  std::string input = "SET \"k\\x41\" v\r\n";
  size_t consumed = 0;
  std::vector<std::string_view> args;
  ASSERT_EQ(parser.Parse(input, &consumed, &args), ParseStatus::kCommand);
  input.assign(input.size(), '#');
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[1], "kA");
  EXPECT_EQ(args[2], "v");
}

TEST(Parser, HugeDeclaredSizesDoNotAllocate) {
  Parser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  args.reserve(16);
  {
    AllocationScope scope;
    EXPECT_EQ(parser.Parse("*2000000000\r\n$3\r\nSET\r\n", &consumed, &args),
              ParseStatus::kNeedMore);
    EXPECT_EQ(consumed, 0u);
    // Redis's cap: argv for at most 1024 arguments until more arrive.
    EXPECT_LE(scope.largest(), 1024 * sizeof(std::pair<size_t, size_t>));
  }
  Parser bulk_parser;
  {
    AllocationScope scope;
    EXPECT_EQ(bulk_parser.Parse("*1\r\n$536870912\r\n", &consumed, &args), ParseStatus::kNeedMore);
    EXPECT_LE(scope.largest(), 1024 * sizeof(std::pair<size_t, size_t>));
  }
  EXPECT_EQ(bulk_parser.BulkBytesPending(), 536870912u + 2);
}

TEST(Parser, SteadyStateParsingDoesNotAllocate) {
  std::string pipeline;
  for (int i = 0; i < 1000; ++i) {
    pipeline += Multibulk({"SET", "key:" + std::to_string(i), "value"});
    pipeline += "SET \"k\" v" + std::to_string(i) + "\r\n";
  }
  Parser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  // Warm up: the first commands size the parser's reused storage.
  std::string_view rest = pipeline;
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(parser.Parse(rest, &consumed, &args), ParseStatus::kCommand);
    rest.remove_prefix(consumed);
  }
  AllocationScope scope;
  size_t commands = 0;
  while (parser.Parse(rest, &consumed, &args) == ParseStatus::kCommand) {
    rest.remove_prefix(consumed);
    ++commands;
  }
  EXPECT_EQ(commands, 2000u - 4);
  EXPECT_TRUE(rest.empty());
  EXPECT_EQ(scope.count(), 0u);
}

TEST(Parser, LongPipelineOfSmallCommands) {
  std::string pipeline;
  const int kCommands = 200000;
  for (int i = 0; i < kCommands; ++i) pipeline += "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
  Parser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  std::string_view rest = pipeline;
  int commands = 0;
  while (parser.Parse(rest, &consumed, &args) == ParseStatus::kCommand) {
    rest.remove_prefix(consumed);
    ++commands;
  }
  EXPECT_EQ(commands, kCommands);
  EXPECT_TRUE(rest.empty());
}

TEST(Parser, BigBulkArrivingInSmallPiecesIsLinear) {
  // 4 MiB in 64-byte reads: a parser that rescanned from the command start would do ~128 GiB of
  // work here; resuming from its offsets it does 4 MiB.
  const std::string value(4 << 20, 'v');
  const std::string input = Multibulk({"SET", "k", value});
  Parser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  size_t size = 0;
  ParseStatus status = ParseStatus::kNeedMore;
  while (status == ParseStatus::kNeedMore) {
    size = std::min(size + 64, input.size());
    status = parser.Parse(std::string_view(input.data(), size), &consumed, &args);
  }
  ASSERT_EQ(status, ParseStatus::kCommand);
  EXPECT_EQ(args[2].size(), value.size());
}

TEST(Parser, BulkBytesPending) {
  Parser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(parser.BulkBytesPending(), 0u);
  EXPECT_EQ(parser.Parse("*2\r\n$3\r\nGET\r\n$1", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.BulkBytesPending(), 0u);  // header incomplete: unknown
  EXPECT_EQ(parser.Parse("*2\r\n$3\r\nGET\r\n$10\r\nabc", &consumed, &args),
            ParseStatus::kNeedMore);
  EXPECT_EQ(parser.BulkBytesPending(), 9u);  // 7 payload bytes and CRLF
  EXPECT_EQ(parser.Parse("*2\r\n$3\r\nGET\r\n$10\r\nabcdefghij\r", &consumed, &args),
            ParseStatus::kNeedMore);
  EXPECT_EQ(parser.BulkBytesPending(), 1u);
  EXPECT_EQ(parser.Parse("*2\r\n$3\r\nGET\r\n$10\r\nabcdefghij\r\n", &consumed, &args),
            ParseStatus::kCommand);
  EXPECT_EQ(parser.BulkBytesPending(), 0u);
  // Relative to the partial command even when skipped commands precede it.
  EXPECT_EQ(parser.Parse("*0\r\n*1\r\n$5\r\nab", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(consumed, 4u);
  EXPECT_EQ(parser.BulkBytesPending(), 5u);
}

TEST(Parser, ParsedBytes) {
  Parser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(parser.Parse("*3\r\n$3\r\nSET", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.ParsedBytes(), 8u);  // the count line and the first header
  EXPECT_EQ(parser.Parse("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabc", &consumed, &args),
            ParseStatus::kNeedMore);
  EXPECT_EQ(parser.ParsedBytes(), 25u);  // up to the value's payload
  EXPECT_EQ(parser.Parse("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabcdefghij\r\n", &consumed, &args),
            ParseStatus::kCommand);
  EXPECT_EQ(parser.ParsedBytes(), 0u);  // between commands
  EXPECT_EQ(parser.Parse("PIN", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.ParsedBytes(), 0u);  // an inline line counts whole
}

TEST(Parser, InProgress) {
  Parser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_FALSE(parser.InProgress());
  EXPECT_EQ(parser.Parse("*1\r\n$4\r\nPI", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_TRUE(parser.InProgress());
  EXPECT_EQ(parser.Parse("*1\r\n$4\r\nPING\r\n", &consumed, &args), ParseStatus::kCommand);
  EXPECT_FALSE(parser.InProgress());
  EXPECT_EQ(parser.Parse("PIN", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_TRUE(parser.InProgress());
  EXPECT_EQ(parser.Parse("PING\n", &consumed, &args), ParseStatus::kCommand);
  EXPECT_FALSE(parser.InProgress());
  EXPECT_EQ(parser.Parse("*x\r\n", &consumed, &args), ParseStatus::kError);
  EXPECT_FALSE(parser.InProgress());
}

TEST(Parser, ShorterInputThanBeforeRestartsTheCommand) {
  // Breaks the calling contract; the parser must stay in bounds and still parse correctly.
  Parser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(parser.Parse("*2\r\n$4\r\nECHO\r\n$2\r\nh", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.Parse("*2\r\n", &consumed, &args), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.Parse("*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n", &consumed, &args),
            ParseStatus::kCommand);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[1], "hi");
}

TEST(Parser, ErrorResetsForANewConnectionState) {
  Parser parser;
  size_t consumed = 0;
  std::vector<std::string_view> args;
  EXPECT_EQ(parser.Parse("*1\r\n$x\r\n", &consumed, &args), ParseStatus::kError);
  EXPECT_EQ(parser.ErrorText(), "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(parser.Parse("PING\r\n", &consumed, &args), ParseStatus::kCommand);
  EXPECT_EQ(consumed, 6u);
}

}  // namespace
}  // namespace ordis::resp
