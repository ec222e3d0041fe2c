#include "resp/writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ordis::resp {
namespace {

using namespace std::string_literals;

std::string Drain(OutBuffer* out) {
  std::string s;
  std::vector<struct iovec> iov(1024);
  while (!out->empty()) {
    const int n = out->FillIovec(iov.data(), static_cast<int>(iov.size()));
    for (int i = 0; i < n; ++i) s.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
    out->Consume(out->size());
  }
  return s;
}

// The bytes `write` produces with a writer speaking `protocol`.
std::string Encode(int protocol, const std::function<void(Writer&)>& write) {
  OutBuffer out;
  Writer writer(&out);
  writer.set_protocol(protocol);
  write(writer);
  return Drain(&out);
}

// Expected bytes for RESP2 and RESP3 (Redis 7.0.15 replies, e.g. from DEBUG PROTOCOL).
void ExpectBoth(const std::function<void(Writer&)>& write, const std::string& resp2,
                const std::string& resp3) {
  EXPECT_EQ(Encode(2, write), resp2);
  EXPECT_EQ(Encode(3, write), resp3);
}

TEST(Writer, Protocol) {
  OutBuffer out;
  Writer writer(&out);
  EXPECT_EQ(writer.protocol(), 2);
  writer.set_protocol(3);
  EXPECT_EQ(writer.protocol(), 3);
  EXPECT_EQ(writer.out(), &out);
}

TEST(Writer, SimpleStringAndOk) {
  ExpectBoth([](Writer& w) { w.SimpleString("PONG"); }, "+PONG\r\n", "+PONG\r\n");
  ExpectBoth([](Writer& w) { w.SimpleString(""); }, "+\r\n", "+\r\n");
  ExpectBoth([](Writer& w) { w.Ok(); }, "+OK\r\n", "+OK\r\n");
}

TEST(Writer, ErrorReplacesLineBreaks) {
  ExpectBoth([](Writer& w) { w.Error("ERR syntax error"); }, "-ERR syntax error\r\n",
             "-ERR syntax error\r\n");
  ExpectBoth([](Writer& w) { w.Error("ERR a\r\nb\nc\rd"); }, "-ERR a  b c d\r\n",
             "-ERR a  b c d\r\n");
}

TEST(Writer, CountsErrorReplies) {
  OutBuffer out;
  Writer writer(&out);
  EXPECT_EQ(writer.errors_written(), 0u);
  writer.Error("ERR one");
  writer.Ok();
  writer.Error("WRONGTYPE two");
  EXPECT_EQ(writer.errors_written(), 2u);
}

TEST(Writer, SetOutRedirectsReplies) {
  OutBuffer out;
  OutBuffer scratch;
  Writer writer(&out);
  writer.Integer(1);
  writer.set_out(&scratch);
  EXPECT_EQ(writer.out(), &scratch);
  writer.Integer(2);
  writer.set_out(&out);
  writer.Integer(3);
  EXPECT_EQ(Drain(&out), ":1\r\n:3\r\n");
  EXPECT_EQ(Drain(&scratch), ":2\r\n");
}

TEST(Writer, Integer) {
  ExpectBoth([](Writer& w) { w.Integer(0); }, ":0\r\n", ":0\r\n");
  ExpectBoth([](Writer& w) { w.Integer(-1); }, ":-1\r\n", ":-1\r\n");
  ExpectBoth([](Writer& w) { w.Integer(INT64_MIN); }, ":-9223372036854775808\r\n",
             ":-9223372036854775808\r\n");
  ExpectBoth([](Writer& w) { w.Integer(INT64_MAX); }, ":9223372036854775807\r\n",
             ":9223372036854775807\r\n");
}

TEST(Writer, IntegerMatchesToString) {
  std::vector<int64_t> values;
  for (int64_t p = 1; p > 0 && p <= INT64_MAX / 10; p *= 10) {
    for (int64_t v : {p - 1, p, p + 1, 2 * p - 1, 5 * p, 9 * p + (p - 1)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (int64_t v = -1000; v <= 1000; ++v) values.push_back(v);
  for (int64_t v : values) {
    EXPECT_EQ(Encode(2, [v](Writer& w) { w.Integer(v); }), ":" + std::to_string(v) + "\r\n");
  }
}

TEST(Writer, Bulk) {
  ExpectBoth([](Writer& w) { w.Bulk("hello"); }, "$5\r\nhello\r\n", "$5\r\nhello\r\n");
  ExpectBoth([](Writer& w) { w.Bulk(""); }, "$0\r\n\r\n", "$0\r\n\r\n");
  ExpectBoth([](Writer& w) { w.Bulk("a\0\r\nb"s); }, "$5\r\na\0\r\nb\r\n"s, "$5\r\na\0\r\nb\r\n"s);
  // Around the small-bulk fast path and across output chunks.
  for (size_t n : {127, 128, 129, 1000, 16 * 1024 - 8, 16 * 1024, 100 * 1000}) {
    const std::string value(n, 'x');
    const std::string expected = "$" + std::to_string(n) + "\r\n" + value + "\r\n";
    ExpectBoth([&](Writer& w) { w.Bulk(value); }, expected, expected);
  }
}

TEST(Writer, Nulls) {
  ExpectBoth([](Writer& w) { w.NullBulk(); }, "$-1\r\n", "_\r\n");
  ExpectBoth([](Writer& w) { w.NullArray(); }, "*-1\r\n", "_\r\n");
}

TEST(Writer, AggregateHeaders) {
  ExpectBoth([](Writer& w) { w.ArrayHeader(3); }, "*3\r\n", "*3\r\n");
  ExpectBoth([](Writer& w) { w.ArrayHeader(0); }, "*0\r\n", "*0\r\n");
  ExpectBoth([](Writer& w) { w.MapHeader(3); }, "*6\r\n", "%3\r\n");
  ExpectBoth([](Writer& w) { w.MapHeader(0); }, "*0\r\n", "%0\r\n");
  ExpectBoth([](Writer& w) { w.SetHeader(3); }, "*3\r\n", "~3\r\n");
  ExpectBoth([](Writer& w) { w.PushHeader(3); }, "*3\r\n", ">3\r\n");
}

TEST(Writer, Double) {
  ExpectBoth([](Writer& w) { w.Double(1.1); }, "$18\r\n1.1000000000000001\r\n",
             ",1.1000000000000001\r\n");
  ExpectBoth([](Writer& w) { w.Double(3.141); }, "$5\r\n3.141\r\n", ",3.141\r\n");
  ExpectBoth([](Writer& w) { w.Double(0); }, "$1\r\n0\r\n", ",0\r\n");
  ExpectBoth([](Writer& w) { w.Double(-2.5); }, "$4\r\n-2.5\r\n", ",-2.5\r\n");
  ExpectBoth([](Writer& w) { w.Double(1e300); }, "$23\r\n1.0000000000000001e+300\r\n",
             ",1.0000000000000001e+300\r\n");
  ExpectBoth([](Writer& w) { w.Double(INFINITY); }, "$3\r\ninf\r\n", ",inf\r\n");
  ExpectBoth([](Writer& w) { w.Double(-INFINITY); }, "$4\r\n-inf\r\n", ",-inf\r\n");
  ExpectBoth([](Writer& w) { w.Double(std::numeric_limits<double>::quiet_NaN()); }, "$3\r\nnan\r\n",
             ",nan\r\n");
}

TEST(Writer, Bool) {
  ExpectBoth([](Writer& w) { w.Bool(true); }, ":1\r\n", "#t\r\n");
  ExpectBoth([](Writer& w) { w.Bool(false); }, ":0\r\n", "#f\r\n");
}

TEST(Writer, Verbatim) {
  ExpectBoth([](Writer& w) { w.Verbatim("txt", "This is a verbatim\nstring"); },
             "$25\r\nThis is a verbatim\nstring\r\n", "=29\r\ntxt:This is a verbatim\nstring\r\n");
  ExpectBoth([](Writer& w) { w.Verbatim("mkd", ""); }, "$0\r\n\r\n", "=4\r\nmkd:\r\n");
}

TEST(Writer, BigNumber) {
  ExpectBoth([](Writer& w) { w.BigNumber("1234567999999999999999999999999999999"); },
             "$37\r\n1234567999999999999999999999999999999\r\n",
             "(1234567999999999999999999999999999999\r\n");
}

TEST(Writer, RawIsCopiedAsIs) {
  ExpectBoth([](Writer& w) { w.Raw("+OK\r\n:1\r\n"); }, "+OK\r\n:1\r\n", "+OK\r\n:1\r\n");
}

TEST(Writer, NestedReply) {
  auto write = [](Writer& w) {
    w.MapHeader(2);
    w.Bulk("a");
    w.Integer(1);
    w.Bulk("b");
    w.SetHeader(2);
    w.Bool(true);
    w.NullBulk();
  };
  ExpectBoth(write, "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n*2\r\n:1\r\n$-1\r\n",
             "%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n~2\r\n#t\r\n_\r\n");
}

}  // namespace
}  // namespace ordis::resp
