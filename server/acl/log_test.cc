#include "server/acl/log.h"

#include <gtest/gtest.h>

namespace ordis::acl {
namespace {

TEST(AclLog, GroupsSameDenialWithinSixtySeconds) {
  AclLog log;
  log.Add(DenyReason::kKey, LogContext::kTopLevel, "k", "alice", "id=1", 1000);
  log.Add(DenyReason::kKey, LogContext::kTopLevel, "k", "alice", "id=2", 30000);
  auto e = log.Entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].count, 2u);
  EXPECT_EQ(e[0].client_info, "id=2");
  EXPECT_EQ(e[0].time_ms, 30000);
  // Any field different, or more than 60 s apart: a new entry.
  log.Add(DenyReason::kKey, LogContext::kMulti, "k", "alice", "", 30000);
  log.Add(DenyReason::kCommand, LogContext::kTopLevel, "k", "alice", "", 30000);
  log.Add(DenyReason::kKey, LogContext::kTopLevel, "k2", "alice", "", 30000);
  log.Add(DenyReason::kKey, LogContext::kTopLevel, "k", "bob", "", 30000);
  log.Add(DenyReason::kKey, LogContext::kTopLevel, "k", "alice", "", 90001);
  EXPECT_EQ(log.size(), 6u);
  // A match moves to the front.
  log.Add(DenyReason::kCommand, LogContext::kTopLevel, "k", "alice", "", 31000);
  e = log.Entries();
  EXPECT_EQ(e[0].reason, DenyReason::kCommand);
  EXPECT_EQ(e[0].count, 2u);
}

TEST(AclLog, OnlyTheTenNewestAreSearchedForAMatch) {
  AclLog log;
  log.Add(DenyReason::kAuth, LogContext::kTopLevel, "auth", "x", "", 0);
  for (int i = 0; i < 10; i++) {
    log.Add(DenyReason::kKey, LogContext::kTopLevel, "k" + std::to_string(i), "u", "", 0);
  }
  log.Add(DenyReason::kAuth, LogContext::kTopLevel, "auth", "x", "", 0);
  EXPECT_EQ(log.size(), 12u);
}

TEST(AclLog, BoundedCountAndReset) {
  AclLog log(3);
  for (int i = 0; i < 5; i++) {
    log.Add(DenyReason::kChannel, LogContext::kLua, "c" + std::to_string(i), "u", "", i);
  }
  auto e = log.Entries(100);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].object, "c4");
  EXPECT_EQ(e[2].object, "c2");
  EXPECT_EQ(log.Entries(1).size(), 1u);
  EXPECT_EQ(log.Entries(-5).size(), 0u);
  EXPECT_EQ(DenyReasonName(e[0].reason), "channel");
  EXPECT_EQ(LogContextName(e[0].context), "lua");
  log.SetMaxLen(1);
  log.Add(DenyReason::kAuth, LogContext::kTopLevel, "AUTH", "u", "", 10);
  EXPECT_EQ(log.size(), 1u);
  log.Reset();
  EXPECT_EQ(log.size(), 0u);
}

}  // namespace
}  // namespace ordis::acl
