// Many threads check permissions through their UserRefs while one thread rewrites the user:
// every check sees one whole version. Run under ThreadSanitizer by scripts/test.sh's filter.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "server/acl/acl_test_support.h"
#include "server/acl/users.h"

namespace ordis::acl {
namespace {

TEST(AclConcurrent, ChecksWhileSetUserAndAuth) {
  Users users(TestCatalog());
  ASSERT_EQ(users.SetUser("u", std::vector<std::string>{"on", ">pw", "allkeys", "+get"}), "");
  const int get = users.catalog().Find("get")->id;
  const int set = users.catalog().Find("set")->id;
#ifdef ORDIS_TEST_SANITIZED
  constexpr int kRounds = 300;
#else
  constexpr int kRounds = 3000;
#endif
  std::atomic<bool> done{false};
  std::atomic<long> allowed{0}, denied{0};
  std::atomic<int> started{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; t++) {
    readers.emplace_back([&] {
      UserRef ref = users.Ref("u");
      KeyRef key{"k", kKeyRead};
      started.fetch_add(1);
      do {
        const User* u = ref.Current();
        ASSERT_NE(u, nullptr);
        Request r{get, std::nullopt, std::span(&key, 1), {}};
        // Versions alternate "+get -set" and "-get +set": never both or neither.
        bool g = u->Check(r).ok();
        r.command_id = set;
        bool s = u->Check(r).ok();
        ASSERT_NE(g, s);
        (g ? allowed : denied).fetch_add(1, std::memory_order_relaxed);
        users.Authenticate("u", "pw");
      } while (!done.load(std::memory_order_relaxed));
    });
  }
  // The rewrites must overlap the checks: a slow thread start (sanitizers) once let every
  // rewrite finish before any reader ran.
  while (started.load() < 3) std::this_thread::yield();
  for (int i = 0; i < kRounds; i++) {
    std::vector<std::string> rules = (i % 2 == 0) ? std::vector<std::string>{"-get", "+set"}
                                                  : std::vector<std::string>{"+get", "-set"};
    ASSERT_EQ(users.SetUser("u", rules), "");
    users.List();
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GE(allowed.load() + denied.load(), 3);
}

}  // namespace
}  // namespace ordis::acl
