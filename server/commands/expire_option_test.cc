#include "server/commands/expire_option.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace ordis::server {
namespace {

constexpr int64_t kNow = 1700000000000;  // a fixed "now" in ms

int64_t Abs(int64_t value, TimeUnit unit, bool absolute, bool allow_non_positive,
            int64_t now = kNow) {
  int64_t out = -12345;
  EXPECT_TRUE(ToAbsoluteMs(value, unit, absolute, now, allow_non_positive, &out));
  return out;
}

bool Invalid(int64_t value, TimeUnit unit, bool absolute, bool allow_non_positive,
             int64_t now = kNow) {
  int64_t out = -12345;
  bool ok = ToAbsoluteMs(value, unit, absolute, now, allow_non_positive, &out);
  EXPECT_EQ(out, -12345) << "a rejected value must not write the output";
  return !ok;
}

TEST(ExpireOption, RelativeAndAbsolute) {
  // SET EX / PX / EXAT / PXAT.
  EXPECT_EQ(Abs(10, TimeUnit::kSeconds, false, false), kNow + 10000);
  EXPECT_EQ(Abs(10, TimeUnit::kMilliseconds, false, false), kNow + 10);
  EXPECT_EQ(Abs(1800000000, TimeUnit::kSeconds, true, false), 1800000000000);
  EXPECT_EQ(Abs(1800000000123, TimeUnit::kMilliseconds, true, false), 1800000000123);
  // An absolute time in the past is still valid (the key expires at once).
  EXPECT_EQ(Abs(1, TimeUnit::kMilliseconds, true, false), 1);
  EXPECT_EQ(Abs(1, TimeUnit::kSeconds, true, false), 1000);
}

TEST(ExpireOption, SetRejectsNonPositive) {
  for (TimeUnit unit : {TimeUnit::kSeconds, TimeUnit::kMilliseconds}) {
    for (bool absolute : {false, true}) {
      EXPECT_TRUE(Invalid(0, unit, absolute, false));
      EXPECT_TRUE(Invalid(-1, unit, absolute, false));
      EXPECT_TRUE(Invalid(INT64_MIN, unit, absolute, false));
    }
  }
}

TEST(ExpireOption, ExpireFamilyAcceptsNonPositive) {
  EXPECT_EQ(Abs(0, TimeUnit::kSeconds, false, true), kNow);
  EXPECT_EQ(Abs(-1, TimeUnit::kSeconds, false, true), kNow - 1000);
  EXPECT_EQ(Abs(-5, TimeUnit::kMilliseconds, false, true), kNow - 5);
  EXPECT_EQ(Abs(0, TimeUnit::kSeconds, true, true), 0);
  EXPECT_EQ(Abs(-100, TimeUnit::kSeconds, true, true), -100000);
  EXPECT_EQ(Abs(-100, TimeUnit::kMilliseconds, true, true), -100);
}

TEST(ExpireOption, SecondsOverflow) {
  constexpr int64_t kMaxSeconds = INT64_MAX / 1000;
  for (bool allow : {false, true}) {
    EXPECT_TRUE(Invalid(kMaxSeconds + 1, TimeUnit::kSeconds, true, allow));
    EXPECT_TRUE(Invalid(INT64_MAX, TimeUnit::kSeconds, true, allow));
    EXPECT_EQ(Abs(kMaxSeconds, TimeUnit::kSeconds, true, allow), kMaxSeconds * 1000);
  }
  EXPECT_TRUE(Invalid(INT64_MIN / 1000 - 1, TimeUnit::kSeconds, true, true));
  EXPECT_TRUE(Invalid(INT64_MIN, TimeUnit::kSeconds, false, true));
  EXPECT_EQ(Abs(INT64_MIN / 1000, TimeUnit::kSeconds, true, true), INT64_MIN / 1000 * 1000);
}

TEST(ExpireOption, RelativeOverflow) {
  for (bool allow : {false, true}) {
    // value + now must fit.
    EXPECT_TRUE(Invalid(INT64_MAX, TimeUnit::kMilliseconds, false, allow));
    EXPECT_TRUE(Invalid(INT64_MAX - kNow + 1, TimeUnit::kMilliseconds, false, allow));
    EXPECT_EQ(Abs(INT64_MAX - kNow, TimeUnit::kMilliseconds, false, allow), INT64_MAX);
    EXPECT_TRUE(Invalid(INT64_MAX / 1000, TimeUnit::kSeconds, false, allow));
    // Absolute values are not shifted by now, so the largest one is fine.
    EXPECT_EQ(Abs(INT64_MAX, TimeUnit::kMilliseconds, true, allow), INT64_MAX);
  }
}

// Regression: for a relative time ToAbsoluteMs rejects value < INT64_MIN + now_ms, but adding a
// positive now_ms to a negative value cannot overflow (the bound would be INT64_MIN - now_ms).
// Redis's expireGenericCommand only checks `when > LLONG_MAX - basetime`, so `PEXPIRE k
// -9223372036854775808` (or `EXPIRE k -9223372036854775`) deletes the key and replies 1 in Redis,
// while ordis replies "ERR invalid expire time in 'pexpire' command".
TEST(ExpireOption, HugeNegativeRelativeValuesAsRedis) {
  EXPECT_EQ(Abs(INT64_MIN, TimeUnit::kMilliseconds, false, true), INT64_MIN + kNow);
  EXPECT_EQ(Abs(INT64_MIN / 1000, TimeUnit::kSeconds, false, true), INT64_MIN / 1000 * 1000 + kNow);
}

// Whatever the inputs, a result is either rejected or exactly value*unit (+now): no wrap-around.
TEST(ExpireOption, NeverWrapsAround) {
  const int64_t values[] = {INT64_MIN,
                            INT64_MIN + 1,
                            INT64_MIN / 1000 - 1,
                            INT64_MIN / 1000,
                            -kNow - 1,
                            -kNow,
                            -1,
                            0,
                            1,
                            kNow,
                            INT64_MAX / 1000,
                            INT64_MAX / 1000 + 1,
                            INT64_MAX - kNow,
                            INT64_MAX - kNow + 1,
                            INT64_MAX};
  for (int64_t v : values) {
    for (TimeUnit unit : {TimeUnit::kSeconds, TimeUnit::kMilliseconds}) {
      for (bool absolute : {false, true}) {
        for (bool allow : {false, true}) {
          int64_t out = 0;
          if (!ToAbsoluteMs(v, unit, absolute, kNow, allow, &out)) continue;
          __int128 want = static_cast<__int128>(v) * (unit == TimeUnit::kSeconds ? 1000 : 1);
          if (!absolute) want += kNow;
          EXPECT_TRUE(static_cast<__int128>(out) == want) << v;
          if (!allow) {
            EXPECT_GT(out, 0) << v;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ordis::server
