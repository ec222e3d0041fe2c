#include "server/scripting/script_cache.h"

#include <gtest/gtest.h>

#include "server/scripting/script.h"

namespace ordis::server::scripting {
namespace {

TEST(ScriptCache, NamesScriptsBySha1AndFlushes) {
  ScriptCache cache;
  EXPECT_EQ(cache.Add("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  EXPECT_EQ(cache.Add("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.bytes(), 40u + 8u);
  std::string body;
  EXPECT_TRUE(cache.Find(NormalizeSha("E0E1F9FABFC9D4800C877A703B823AC0578FF8DB"), &body));
  EXPECT_EQ(body, "return 1");
  EXPECT_EQ(NormalizeSha("abc"), "");
  const uint64_t generation = cache.generation();
  cache.Flush();
  EXPECT_FALSE(cache.Contains("e0e1f9fabfc9d4800c877a703b823ac0578ff8db"));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.generation(), generation + 1);
}

}  // namespace
}  // namespace ordis::server::scripting
