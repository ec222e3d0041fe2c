// notify-keyspace-events read and written back as redis-server 7.0.15's CONFIG SET / CONFIG GET.
#include "base/keyspace_events.h"

#include <gtest/gtest.h>

namespace ordis::keyspace_events {
namespace {

std::string RoundTrip(std::string_view letters) {
  uint32_t classes = 0;
  EXPECT_TRUE(Parse(letters, &classes)) << letters;
  return Text(classes);
}

TEST(KeyspaceEvents, TextAsRedisWritesIt) {
  EXPECT_EQ(RoundTrip(""), "");
  EXPECT_EQ(RoundTrip("KEA"), "AKE");
  EXPECT_EQ(RoundTrip("g$lshzxetd"), "A");
  // With A, Redis writes no n (it is lost on a CONFIG REWRITE there too).
  EXPECT_EQ(RoundTrip("Ag$lshzxeKEtmdn"), "AKEm");
  EXPECT_EQ(RoundTrip("nmEK"), "nKEm");
  EXPECT_EQ(RoundTrip("zzK"), "zK");
  EXPECT_EQ(RoundTrip("x"), "x");
  EXPECT_EQ(RoundTrip("Exeg"), "gxeE");
  EXPECT_EQ(RoundTrip("K$"), "$K");
}

TEST(KeyspaceEvents, UnknownLettersAreRefused) {
  uint32_t classes = 7;
  EXPECT_FALSE(Parse("KEQ", &classes));
  EXPECT_FALSE(Parse("a", &classes));
  EXPECT_FALSE(Parse(" ", &classes));
  EXPECT_EQ(classes, 7u);
}

TEST(KeyspaceEvents, Classes) {
  uint32_t classes = 0;
  ASSERT_TRUE(Parse("KA", &classes));
  EXPECT_TRUE(classes & kExpired);
  EXPECT_FALSE(classes & kNew);
  EXPECT_FALSE(classes & kKeyMiss);
  EXPECT_FALSE(classes & kKeyevent);
}

}  // namespace
}  // namespace ordis::keyspace_events
