// EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL EXPIRETIME PEXPIRETIME PERSIST, in-process. Every
// expectation was first checked against redis-server 7.0.15. No sleeps: TTLs are read right after
// they are set, or set as absolute times far in the future or in the past.
#include <string>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class ExpireFamilyTest : public FamilyTest {};

constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";

// --- EXPIRE ---

TEST_F(ExpireFamilyTest, ExpireSetsTtl) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  Reply pttl = Run({"pttl", "k"});
  ASSERT_EQ(pttl.type, Reply::Type::kInteger) << pttl;
  EXPECT_GT(pttl.integer, 99000);
  EXPECT_LE(pttl.integer, 100000);
}

TEST_F(ExpireFamilyTest, ExpireMissingKey) {
  EXPECT_EQ(Run({"expire", "missing", "100"}), Int(0));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
}

TEST_F(ExpireFamilyTest, ExpireReplacesTtl) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "200"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(200));
}

TEST_F(ExpireFamilyTest, ExpireNonPositiveDeletes) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "0"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "-5"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(ExpireFamilyTest, ExpireOtherTypes) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"expire", "l", "100"}), Int(1));
  EXPECT_EQ(Run({"ttl", "l"}), Int(100));
  EXPECT_EQ(Run({"persist", "l"}), Int(1));
  EXPECT_EQ(Run({"type", "l"}), Status("list"));
}

TEST_F(ExpireFamilyTest, ExpireNx) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100", "nx"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "200", "NX"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
}

TEST_F(ExpireFamilyTest, ExpireXx) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100", "xx"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "100", "XX", "XX"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"expire", "k", "100"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "200", "xx"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(200));
}

TEST_F(ExpireFamilyTest, ExpireGt) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "200"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100", "gt"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(200));
  EXPECT_EQ(Run({"expire", "k", "300", "GT"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(300));
}

TEST_F(ExpireFamilyTest, ExpireLt) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "300"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "400", "lt"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(300));
  EXPECT_EQ(Run({"expire", "k", "50", "LT"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(50));
}

TEST_F(ExpireFamilyTest, NoTtlCountsAsInfiniteForGtAndLt) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100", "gt"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"expire", "k", "100", "lt"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
}

TEST_F(ExpireFamilyTest, ExpireIncompatibleOptions) {
  const Reply nx_and = Err("ERR NX and XX, GT or LT options at the same time are not compatible");
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100", "nx", "xx"}), nx_and);
  EXPECT_EQ(Run({"expire", "k", "100", "nx", "gt"}), nx_and);
  EXPECT_EQ(Run({"expire", "k", "100", "NX", "GT"}), nx_and);
  EXPECT_EQ(Run({"expire", "k", "100", "gt", "lt"}),
            Err("ERR GT and LT options at the same time are not compatible"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(ExpireFamilyTest, ExpireUnsupportedOption) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "100", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"expire", "k", "100", "foo", "bar"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"expire", "k", "abc", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"expire", "missing", "100", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(ExpireFamilyTest, ExpireNotAnInteger) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"expire", "k", "1.5"}), Err(kNotInteger));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(ExpireFamilyTest, ExpireInvalidExpireTime) {
  const Reply invalid = Err("ERR invalid expire time in 'expire' command");
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"expire", "k", "9223372036854775807"}), invalid);
  EXPECT_EQ(Run({"expire", "k", "9223372036854774"}), invalid);
  EXPECT_EQ(Run({"expire", "k", "-9223372036854775808"}), invalid);
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
}

TEST_F(ExpireFamilyTest, ExpireWrongArity) {
  EXPECT_EQ(Run({"expire", "k"}), Err("ERR wrong number of arguments for 'expire' command"));
}

// --- PEXPIRE ---

TEST_F(ExpireFamilyTest, PExpire) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpire", "k", "100000"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"pexpire", "k", "200000", "gt"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(200));
  EXPECT_EQ(Run({"pexpire", "missing", "100000"}), Int(0));
}

TEST_F(ExpireFamilyTest, PExpireErrors) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpire", "k", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"pexpire", "k", "100", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"pexpire", "k", "9223372036854775807"}),
            Err("ERR invalid expire time in 'pexpire' command"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(ExpireFamilyTest, PExpireZeroDeletes) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpire", "k", "0"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

// --- EXPIREAT / PEXPIREAT ---

TEST_F(ExpireFamilyTest, ExpireAt) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expireat", "k", "4102444800"}), Int(1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(4102444800));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(4102444800000));
  EXPECT_EQ(Run({"expireat", "missing", "4102444800"}), Int(0));
}

TEST_F(ExpireFamilyTest, ExpireAtGtLt) {
  EXPECT_EQ(Run({"set", "k", "v", "exat", "4102444800"}), Ok());
  EXPECT_EQ(Run({"expireat", "k", "4102444801", "lt"}), Int(0));
  EXPECT_EQ(Run({"expireat", "k", "4102444801", "gt"}), Int(1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(4102444801));
}

TEST_F(ExpireFamilyTest, ExpireAtInThePastDeletes) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expireat", "k", "1"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"expireat", "missing", "1"}), Int(0));
}

TEST_F(ExpireFamilyTest, ExpireAtRange) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"expireat", "k", "9223372036854775807"}),
            Err("ERR invalid expire time in 'expireat' command"));
  EXPECT_EQ(Run({"expireat", "k", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"expireat", "k", "9223372036854775"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(9223372036854775000));
}

TEST_F(ExpireFamilyTest, PExpireAt) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpireat", "k", "4102444800123"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(4102444800123));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(4102444800));
  EXPECT_EQ(Run({"pexpireat", "k", "4102444800456", "nx"}), Int(0));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(4102444800123));
  EXPECT_EQ(Run({"pexpireat", "missing", "4102444800123"}), Int(0));
}

TEST_F(ExpireFamilyTest, PExpireAtInt64Max) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpireat", "k", "9223372036854775807"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(9223372036854775807));
}

TEST_F(ExpireFamilyTest, PExpireAtInThePastDeletes) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpireat", "k", "-1"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(ExpireFamilyTest, PExpireAtNotAnInteger) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"pexpireat", "k", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

// --- TTL / PTTL / EXPIRETIME / PEXPIRETIME ---

TEST_F(ExpireFamilyTest, TtlQueriesOfMissingKey) {
  EXPECT_EQ(Run({"ttl", "missing"}), Int(-2));
  EXPECT_EQ(Run({"pttl", "missing"}), Int(-2));
  EXPECT_EQ(Run({"expiretime", "missing"}), Int(-2));
  EXPECT_EQ(Run({"pexpiretime", "missing"}), Int(-2));
}

TEST_F(ExpireFamilyTest, TtlQueriesOfKeyWithoutTtl) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"pttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(-1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(-1));
}

TEST_F(ExpireFamilyTest, TtlQueriesWrongArity) {
  EXPECT_EQ(Run({"ttl"}), Err("ERR wrong number of arguments for 'ttl' command"));
  EXPECT_EQ(Run({"pttl", "k", "k"}), Err("ERR wrong number of arguments for 'pttl' command"));
  EXPECT_EQ(Run({"expiretime"}), Err("ERR wrong number of arguments for 'expiretime' command"));
}

// --- PERSIST ---

TEST_F(ExpireFamilyTest, Persist) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"persist", "k"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"persist", "k"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
}

TEST_F(ExpireFamilyTest, PersistMissingKey) { EXPECT_EQ(Run({"persist", "missing"}), Int(0)); }

TEST_F(ExpireFamilyTest, PersistThenExpireNx) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"persist", "k"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "100", "nx"}), Int(1));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
}

TEST_F(ExpireFamilyTest, PersistWrongArity) {
  EXPECT_EQ(Run({"persist"}), Err("ERR wrong number of arguments for 'persist' command"));
}

}  // namespace
}  // namespace ordis::server::test
