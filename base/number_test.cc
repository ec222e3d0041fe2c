#include "base/number.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

namespace ordis {
namespace {

using namespace std::literals;

bool Int(std::string_view s, int64_t* out) { return ParseInt64(s, out); }

TEST(ParseInt64, Accepts) {
  int64_t v = 99;
  ASSERT_TRUE(Int("0", &v));
  EXPECT_EQ(v, 0);
  ASSERT_TRUE(Int("1", &v));
  EXPECT_EQ(v, 1);
  ASSERT_TRUE(Int("-1", &v));
  EXPECT_EQ(v, -1);
  ASSERT_TRUE(Int("1234567890", &v));
  EXPECT_EQ(v, 1234567890);
  ASSERT_TRUE(Int("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(Int("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  ASSERT_TRUE(Int("-9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MIN + 1);
}

TEST(ParseInt64, RejectsWhatRedisRejects) {
  int64_t v = 42;
  for (std::string_view s : {""sv,
                             "-"sv,
                             "+1"sv,
                             "+0"sv,
                             "-0"sv,
                             "00"sv,
                             "01"sv,
                             "-01"sv,
                             " 1"sv,
                             "1 "sv,
                             "1\n"sv,
                             "\t1"sv,
                             "1a"sv,
                             "a1"sv,
                             "0x10"sv,
                             "1.0"sv,
                             "1e3"sv,
                             "--1"sv,
                             "1-"sv,
                             "9223372036854775808"sv,
                             "-9223372036854775809"sv,
                             "18446744073709551615"sv,
                             "18446744073709551616"sv,
                             "99999999999999999999"sv,
                             "-99999999999999999999"sv,
                             "123456789012345678901"sv,
                             "00000000000000000001"sv}) {
    EXPECT_FALSE(Int(s, &v)) << "'" << s << "'";
  }
  EXPECT_FALSE(Int("1\0"s, &v));
  EXPECT_FALSE(Int("\0"s, &v));
  EXPECT_EQ(v, 42) << "a rejected string must not change the output";
}

// Every int64 round-trips through AppendInt64 and ParseInt64.
TEST(CheckedAdd, AddsUpToTheInt64EdgesAndRefusesPastThem) {
  int64_t sum = 0;
  EXPECT_TRUE(CheckedAdd(INT64_MAX - 1, 1, &sum));
  EXPECT_EQ(sum, INT64_MAX);
  EXPECT_TRUE(CheckedAdd(INT64_MIN + 1, -1, &sum));
  EXPECT_EQ(sum, INT64_MIN);
  EXPECT_TRUE(CheckedAdd(INT64_MAX, INT64_MIN, &sum));
  EXPECT_EQ(sum, -1);
  EXPECT_FALSE(CheckedAdd(INT64_MAX, 1, &sum));
  EXPECT_FALSE(CheckedAdd(INT64_MIN, -1, &sum));
  EXPECT_FALSE(CheckedAdd(INT64_MIN, INT64_MIN, &sum));
}

TEST(ParseInt64, RoundTripsAppendInt64) {
  std::mt19937_64 rng(3);
  std::vector<int64_t> values = {
      0, 1, -1, 9, 10, -10, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1};
  for (int i = 0; i < 100000; ++i) {
    int64_t v = static_cast<int64_t>(rng());
    values.push_back(v >> (rng() % 64));  // all magnitudes
  }
  for (int64_t v : values) {
    std::string s;
    AppendInt64(&s, v);
    ASSERT_EQ(s, std::to_string(v));
    int64_t back = 0;
    ASSERT_TRUE(Int(s, &back)) << s;
    ASSERT_EQ(back, v);
  }
  std::string appended = "x=";
  AppendInt64(&appended, -5);
  EXPECT_EQ(appended, "x=-5");
}

// Random short strings over digits and signs against a strict reference built on strtoll.
TEST(ParseInt64, MatchesStrictReference) {
  auto reference = [](const std::string& s, int64_t* out) {
    if (s.empty() || s.size() > 20) return false;
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (size_t j = i; j < s.size(); ++j) {
      if (s[j] < '0' || s[j] > '9') return false;
    }
    if (s[i] == '0' && s != "0") return false;  // leading zero, or "-0"
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == ERANGE) return false;
    *out = v;
    return true;
  };
  std::mt19937 rng(5);
  const char kChars[] = "0123456789-+ ";
  for (int n = 0; n < 200000; ++n) {
    std::string s;
    int len = static_cast<int>(rng() % 21);
    for (int i = 0; i < len; ++i) {
      // Mostly digits.
      s += rng() % 8 == 0 ? kChars[10 + rng() % 3] : kChars[rng() % 10];
    }
    int64_t got = 0, want = 0;
    bool ok = Int(s, &got);
    ASSERT_EQ(ok, reference(s, &want)) << "'" << s << "'";
    if (ok) {
      ASSERT_EQ(got, want) << "'" << s << "'";
    }
  }
}

TEST(ParseDouble, Accepts) {
  double v = 0;
  ASSERT_TRUE(ParseDouble("1.5", &v));
  EXPECT_EQ(v, 1.5);
  ASSERT_TRUE(ParseDouble("-1.5", &v));
  EXPECT_EQ(v, -1.5);
  ASSERT_TRUE(ParseDouble("1e3", &v));
  EXPECT_EQ(v, 1000);
  ASSERT_TRUE(ParseDouble(".5", &v));
  EXPECT_EQ(v, 0.5);
  ASSERT_TRUE(ParseDouble("5.", &v));
  EXPECT_EQ(v, 5);
  ASSERT_TRUE(ParseDouble("+2", &v));  // strtod rules: '+' is fine for doubles
  EXPECT_EQ(v, 2);
  ASSERT_TRUE(ParseDouble("007", &v));
  EXPECT_EQ(v, 7);
  ASSERT_TRUE(ParseDouble("inf", &v));
  EXPECT_TRUE(std::isinf(v) && v > 0);
  ASSERT_TRUE(ParseDouble("-inf", &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  ASSERT_TRUE(ParseDouble("+inf", &v));
  EXPECT_TRUE(std::isinf(v) && v > 0);
  ASSERT_TRUE(ParseDouble("-0", &v));
  EXPECT_EQ(v, 0);
  ASSERT_TRUE(ParseDouble("0x10", &v));  // strtod accepts hex, so does Redis
  EXPECT_EQ(v, 16);
  ASSERT_TRUE(ParseDouble("1.7976931348623157e308", &v));
  EXPECT_EQ(v, std::numeric_limits<double>::max());
}

TEST(ParseDouble, Rejects) {
  double v = 42;
  for (std::string_view s :
       {""sv, " 1"sv, "1 "sv, "\t1"sv, "abc"sv, "1.5x"sv, "1e"sv, "nan"sv, "NaN"sv, "-nan"sv,
        "1e400"sv, "-1e400"sv, "1e-400"sv, "--1"sv, "1,5"sv}) {
    EXPECT_FALSE(ParseDouble(s, &v)) << "'" << s << "'";
  }
  EXPECT_FALSE(ParseDouble("1\0"s, &v));
  EXPECT_EQ(v, 42);
}

TEST(ParseLongDouble, AcceptsAndRejects) {
  long double v = 0;
  ASSERT_TRUE(ParseLongDouble("10.5", &v));
  EXPECT_EQ(v, 10.5L);
  ASSERT_TRUE(ParseLongDouble("-3", &v));
  EXPECT_EQ(v, -3.0L);
  ASSERT_TRUE(ParseLongDouble("5.0e3", &v));
  EXPECT_EQ(v, 5000.0L);
  ASSERT_TRUE(ParseLongDouble("1e400", &v));  // fits a long double, not a double
  EXPECT_GT(v, 1e300L);
  ASSERT_TRUE(ParseLongDouble("inf", &v));
  EXPECT_TRUE(std::isinf(v));
  long double before = v = 7;
  for (std::string_view s :
       {""sv, " 1"sv, "1 "sv, "x"sv, "nan"sv, "1e99999"sv, "-1e99999"sv, "1e-99999"sv, "1.2.3"sv}) {
    EXPECT_FALSE(ParseLongDouble(s, &v)) << "'" << s << "'";
  }
  EXPECT_EQ(v, before);
}

TEST(FormatLongDouble, HumanModeAsRedis) {
  EXPECT_EQ(FormatLongDouble(10.5L), "10.5");
  EXPECT_EQ(FormatLongDouble(3.0L), "3");
  EXPECT_EQ(FormatLongDouble(5.0e3L), "5000");
  EXPECT_EQ(FormatLongDouble(0.0L), "0");
  EXPECT_EQ(FormatLongDouble(-0.0L), "0");
  EXPECT_EQ(FormatLongDouble(-1.5L), "-1.5");
  EXPECT_EQ(FormatLongDouble(0.1L), "0.1");
  EXPECT_EQ(FormatLongDouble(100.0L), "100");
  EXPECT_EQ(FormatLongDouble(1e20L), "100000000000000000000");
  EXPECT_EQ(FormatLongDouble(-12345678.25L), "-12345678.25");
  // Below 17 decimals it rounds to zero, and "-0" prints as "0".
  EXPECT_EQ(FormatLongDouble(1e-20L), "0");
  EXPECT_EQ(FormatLongDouble(-1e-20L), "0");
  EXPECT_EQ(FormatLongDouble(std::numeric_limits<long double>::infinity()), "inf");
  EXPECT_EQ(FormatLongDouble(-std::numeric_limits<long double>::infinity()), "-inf");
  // A double's 0.1 is not a long double's 0.1: 17 decimals show the difference, as Redis does.
  EXPECT_EQ(FormatLongDouble(static_cast<long double>(0.1)), "0.10000000000000001");
  // The largest long double still fits the buffer.
  std::string max = FormatLongDouble(std::numeric_limits<long double>::max());
  EXPECT_GT(max.size(), 4900u);
  EXPECT_EQ(max.find('.'), std::string::npos);
}

// What INCRBYFLOAT does: parse both, add, print. Values from Redis's test suite.
TEST(FormatLongDouble, IncrByFloatExamples) {
  auto incr = [](std::string_view a, std::string_view b) {
    long double x = 0, y = 0;
    EXPECT_TRUE(ParseLongDouble(a, &x));
    EXPECT_TRUE(ParseLongDouble(b, &y));
    return FormatLongDouble(x + y);
  };
  EXPECT_EQ(incr("10.5", "0.1"), "10.6");
  EXPECT_EQ(incr("0", "1"), "1");
  EXPECT_EQ(incr("1", "0.25"), "1.25");
  EXPECT_EQ(incr("10.60", "-0.1"), "10.5");
  EXPECT_EQ(incr("5.0e3", "2.0e2"), "5200");
  EXPECT_EQ(incr("17179869184", "1.5"), "17179869185.5");
  EXPECT_EQ(incr("1", "-1"), "0");
  EXPECT_EQ(incr("-1", "0.5"), "-0.5");
}

// Small decimal strings survive parse and print unchanged (why Redis prints 17 decimals). Below
// 32 a long double's half-ulp is under 5e-18, so the 17th decimal rounds back exactly; larger
// magnitudes show conversion noise in Redis too.
TEST(FormatLongDouble, SmallDecimalsRoundTrip) {
  std::mt19937 rng(9);
  for (int n = 0; n < 20000; ++n) {
    int64_t whole = static_cast<int64_t>(rng() % 63) - 31;
    int frac = static_cast<int>(rng() % 1000);
    std::string s = std::to_string(whole);
    if (frac != 0) {
      std::string f = std::to_string(frac);
      f = std::string(3 - f.size(), '0') + f;
      while (f.back() == '0') f.pop_back();
      s += "." + f;
    }
    if (s == "-0") continue;
    long double v = 0;
    ASSERT_TRUE(ParseLongDouble(s, &v)) << s;
    ASSERT_EQ(FormatLongDouble(v), s);
  }
}

TEST(ParseMemory, Units) {
  int64_t v = 0;
  ASSERT_TRUE(ParseMemory("0", &v));
  EXPECT_EQ(v, 0);
  ASSERT_TRUE(ParseMemory("100", &v));
  EXPECT_EQ(v, 100);
  ASSERT_TRUE(ParseMemory("100b", &v));
  EXPECT_EQ(v, 100);
  ASSERT_TRUE(ParseMemory("1k", &v));
  EXPECT_EQ(v, 1000);
  ASSERT_TRUE(ParseMemory("1kb", &v));
  EXPECT_EQ(v, 1024);
  ASSERT_TRUE(ParseMemory("1m", &v));
  EXPECT_EQ(v, 1000 * 1000);
  ASSERT_TRUE(ParseMemory("1mb", &v));
  EXPECT_EQ(v, 1024 * 1024);
  ASSERT_TRUE(ParseMemory("1g", &v));
  EXPECT_EQ(v, 1000LL * 1000 * 1000);
  ASSERT_TRUE(ParseMemory("1gb", &v));
  EXPECT_EQ(v, 1024LL * 1024 * 1024);
  ASSERT_TRUE(ParseMemory("64MB", &v));
  EXPECT_EQ(v, 64LL * 1024 * 1024);
  ASSERT_TRUE(ParseMemory("2Gb", &v));
  EXPECT_EQ(v, 2LL * 1024 * 1024 * 1024);
  ASSERT_TRUE(ParseMemory("3K", &v));
  EXPECT_EQ(v, 3000);
  ASSERT_TRUE(ParseMemory("8589934591gb", &v));
  EXPECT_EQ(v, 8589934591LL * 1024 * 1024 * 1024);
  ASSERT_TRUE(ParseMemory("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
}

TEST(ParseMemory, Rejects) {
  int64_t v = 42;
  for (std::string_view s :
       {""sv, "kb"sv, "k"sv, "1tb"sv, "1kbb"sv, "1 kb"sv, " 1"sv, "1.5mb"sv, "1x"sv,
        "8589934592gb"sv, "9223372036854775808"sv, "9223372036854775807kb"sv, "abc"sv}) {
    EXPECT_FALSE(ParseMemory(s, &v)) << "'" << s << "'";
  }
  EXPECT_EQ(v, 42);
}

}  // namespace
}  // namespace ordis
