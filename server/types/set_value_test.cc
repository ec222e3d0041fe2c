// SetValue against a std::set model: random operations, random picks, swap-with-last erasure,
// binary members, copies and moves.
#include "server/types/set_value.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ordis::server {
namespace {

using namespace std::literals;

std::set<std::string> Members(const SetValue& s) { return {s.begin(), s.end()}; }

// "m<i>". (Not M(i), which trips GCC 12's -Wrestrict false positive.)
std::string M(uint64_t i) {
  std::string name(1, 'm');
  name += std::to_string(i);
  return name;
}

// The whole observable state equals the model's: size, iteration (each member once), lookups,
// positional access.
void ExpectSame(const SetValue& s, const std::set<std::string>& model) {
  ASSERT_EQ(s.size(), model.size());
  EXPECT_EQ(s.empty(), model.empty());
  std::vector<std::string> seen(s.begin(), s.end());
  ASSERT_EQ(seen.size(), model.size());
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), model);  // no duplicates
  for (size_t pos = 0; pos < s.size(); ++pos) EXPECT_EQ(s[pos], seen[pos]);
  for (const std::string& m : model) EXPECT_TRUE(s.contains(m)) << m;
}

TEST(SetValue, StartsEmpty) {
  SetValue s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.begin(), s.end());
  EXPECT_FALSE(s.contains(""));
  EXPECT_FALSE(s.erase("a"));
}

TEST(SetValue, InsertReportsNewMembersOnly) {
  SetValue s;
  EXPECT_TRUE(s.insert("a"));
  EXPECT_TRUE(s.insert("b"));
  EXPECT_FALSE(s.insert("a"));
  EXPECT_TRUE(s.insert(""));  // the empty string is a member like any other
  EXPECT_FALSE(s.insert(""));
  ExpectSame(s, {"", "a", "b"});
  EXPECT_EQ(s[0], "a");  // insert appends
  EXPECT_EQ(s[2], "");
}

TEST(SetValue, RandomOperationsMatchModel) {
  std::mt19937_64 rng(42);
  SetValue s;
  std::set<std::string> model;
  // A small universe so inserts collide with members and erases hit often.
  auto random_member = [&] { return M(rng() % 300); };
  for (int step = 0; step < 20000; ++step) {
    switch (rng() % 6) {
      case 0:
      case 1: {
        std::string m = random_member();
        ASSERT_EQ(s.insert(m), model.insert(m).second) << m;
        break;
      }
      case 2: {
        std::string m = random_member();
        ASSERT_EQ(s.erase(m), model.erase(m) == 1) << m;
        break;
      }
      case 3: {
        if (model.empty()) break;
        std::string m = s.PopRandom(rng);
        ASSERT_EQ(model.erase(m), 1u) << m;
        break;
      }
      case 4: {
        if (model.empty()) break;
        ASSERT_EQ(model.count(s.RandomMember(rng)), 1u);
        break;
      }
      case 5: {
        std::string m = random_member();
        ASSERT_EQ(s.contains(m), model.count(m) == 1) << m;
        break;
      }
    }
    if (step % 1000 == 0) {
      ExpectSame(s, model);
      if (rng() % 4 == 0) {
        s.clear();
        model.clear();
      }
    }
  }
  ExpectSame(s, model);
}

TEST(SetValue, RandomMemberCoversAllMembersUniformly) {
  std::mt19937_64 rng(7);
  SetValue s;
  constexpr int kMembers = 50, kPicks = 50000;
  for (int i = 0; i < kMembers; ++i) s.insert(M(i));
  s.erase("m10");  // picks must also be uniform after swap-with-last erasure
  s.erase("m49");
  std::map<std::string, int> hits;
  for (int i = 0; i < kPicks; ++i) ++hits[s.RandomMember(rng)];
  ASSERT_EQ(hits.size(), s.size());
  const double expected = static_cast<double>(kPicks) / static_cast<double>(s.size());
  for (const auto& [m, n] : hits) {
    EXPECT_TRUE(s.contains(m));
    // ~1042 expected, sigma ~32: 25% is about 8 sigma.
    EXPECT_GT(n, expected * 0.75) << m;
    EXPECT_LT(n, expected * 1.25) << m;
  }
}

TEST(SetValue, PopRandomDrainsEveryMemberOnce) {
  std::mt19937_64 rng(3);
  SetValue s;
  std::set<std::string> model;
  for (int i = 0; i < 1000; ++i) {
    s.insert(M(i));
    model.insert(M(i));
  }
  std::set<std::string> popped;
  while (!s.empty()) {
    std::string m = s.PopRandom(rng);
    EXPECT_FALSE(s.contains(m));
    EXPECT_TRUE(popped.insert(m).second) << m;
  }
  EXPECT_EQ(popped, model);
  EXPECT_EQ(s.begin(), s.end());
}

TEST(SetValue, PopRandomPicksEveryPosition) {
  // The first pop from a fresh 3-member set must be able to take each of them, including the
  // last (no hole to fill) and the first (the last member moves).
  std::map<std::string, int> first;
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    SetValue s;
    s.insert("a");
    s.insert("b");
    s.insert("c");
    std::string m = s.PopRandom(rng);
    ++first[m];
    std::set<std::string> rest = {"a", "b", "c"};
    rest.erase(m);
    ExpectSame(s, rest);
  }
  EXPECT_EQ(first.size(), 3u);
}

TEST(SetValue, EraseLastMiddleAndOnly) {
  SetValue s;
  for (std::string_view m : {"a", "b", "c", "d"}) s.insert(m);

  EXPECT_TRUE(s.erase("d"));  // the last position: nothing moves
  ExpectSame(s, {"a", "b", "c"});
  EXPECT_EQ(s[0], "a");
  EXPECT_EQ(s[1], "b");
  EXPECT_EQ(s[2], "c");

  EXPECT_TRUE(s.erase("a"));  // the first position: "c" moves in and stays findable
  ExpectSame(s, {"b", "c"});
  EXPECT_EQ(s[0], "c");
  EXPECT_TRUE(s.insert("e"));
  EXPECT_TRUE(s.insert("f"));

  EXPECT_TRUE(s.erase("b"));  // a middle position: "f" moves in
  ExpectSame(s, {"c", "e", "f"});
  EXPECT_EQ(s[1], "f");
  EXPECT_FALSE(s.erase("b"));
  EXPECT_FALSE(s.insert("f"));  // the moved member is still indexed

  SetValue only;
  only.insert("x");
  EXPECT_TRUE(only.erase("x"));
  EXPECT_TRUE(only.empty());
  EXPECT_FALSE(only.contains("x"));
  EXPECT_TRUE(only.insert("x"));
  ExpectSame(only, {"x"});
}

TEST(SetValue, BinaryMembers) {
  const std::vector<std::string> binary = {""s,     "\0"s, "\0\0"s,           "a\0b"s,
                                           "a\0c"s, "a"s,  "\xff\xfe\0\x01"s, "\r\n"s};
  SetValue s;
  for (const std::string& m : binary) EXPECT_TRUE(s.insert(m)) << m.size();
  for (const std::string& m : binary) EXPECT_FALSE(s.insert(m)) << m.size();
  ExpectSame(s, {binary.begin(), binary.end()});
  EXPECT_FALSE(s.contains("a\0"sv));  // a prefix up to the 0x00 byte is not the member
  EXPECT_TRUE(s.erase("a\0b"s));
  EXPECT_TRUE(s.contains("a\0c"sv));
  EXPECT_TRUE(s.contains("a"));
  EXPECT_TRUE(s.erase("\0"s));
  EXPECT_TRUE(s.contains("\0\0"sv));
  EXPECT_TRUE(s.contains(""));
  std::mt19937_64 rng(5);
  std::set<std::string> popped;
  while (!s.empty()) popped.insert(s.PopRandom(rng));
  EXPECT_EQ(popped,
            (std::set<std::string>{""s, "\0\0"s, "a\0c"s, "a"s, "\xff\xfe\0\x01"s, "\r\n"s}));
}

TEST(SetValue, CopyIsIndependentAndIndexed) {
  SetValue s;
  for (int i = 0; i < 100; ++i) s.insert(M(i));
  SetValue copy(s);
  EXPECT_EQ(Members(copy), Members(s));
  // The copy's index looks through its own vector: erasing from the original leaves it whole.
  s.erase("m0");
  s.clear();
  ASSERT_EQ(copy.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(copy.contains(M(i)));
  EXPECT_TRUE(copy.erase("m0"));
  EXPECT_TRUE(copy.contains("m99"));  // m99 moved into position 0

  SetValue assigned;
  assigned.insert("old");
  assigned = copy;
  EXPECT_EQ(Members(assigned), Members(copy));
  EXPECT_FALSE(assigned.contains("old"));
  const SetValue& same = assigned;
  assigned = same;  // self-assignment keeps the members
  EXPECT_EQ(Members(assigned), Members(copy));
}

TEST(SetValue, MoveKeepsTheIndexAndLeavesAnEmptyUsableSet) {
  SetValue s;
  for (int i = 0; i < 100; ++i) s.insert(M(i));
  std::set<std::string> model = Members(s);

  SetValue moved(std::move(s));
  ExpectSame(moved, model);
  EXPECT_TRUE(moved.erase("m5"));
  model.erase("m5");
  ExpectSame(moved, model);
  ExpectSame(s, {});  // NOLINT(bugprone-use-after-move): the documented moved-from state
  EXPECT_TRUE(s.insert("fresh"));
  ExpectSame(s, {"fresh"});

  SetValue target;
  target.insert("old");
  target = std::move(moved);
  ExpectSame(target, model);
  EXPECT_TRUE(target.insert("m5"));
  model.insert("m5");
  ExpectSame(target, model);
}

TEST(SetValue, TableBytesGrowsWithTheMembers) {
  SetValue s;
  const size_t empty = s.TableBytes();
  for (int i = 0; i < 1000; ++i) s.insert(M(i));
  EXPECT_GE(s.TableBytes(), empty + 1000 * sizeof(std::string));
}

}  // namespace
}  // namespace ordis::server
