// Random rule sequences applied both to User and to a small model written from Redis's
// documented semantics; then random requests must get the same allow/deny from both, and the
// user's ACL LIST description, applied to a fresh user, must give the same permissions.
#include <gtest/gtest.h>
#include <strings.h>

#include <map>
#include <random>
#include <set>

#include "base/glob.h"
#include "base/split_args.h"
#include "server/acl/acl_test_support.h"
#include "server/acl/users.h"

namespace ordis::acl {
namespace {

struct ModelSelector {
  std::set<int> commands;
  std::map<int, std::set<std::string>> first_args;  // lower case
  bool all_keys = false, all_channels = false;
  std::vector<std::pair<std::string, uint8_t>> keys;
  std::vector<std::string> channels;
};

struct Model {
  const Catalog* catalog;
  std::vector<ModelSelector> selectors{1};

  void Allow(ModelSelector& s, int id, bool allow) {
    std::vector<int> ids{id};
    for (int sub : catalog->Subcommands(id)) ids.push_back(sub);
    for (int i : ids) allow ? (void)s.commands.insert(i) : (void)s.commands.erase(i);
    s.first_args.erase(id);
  }
  // Returns false when Redis refuses the rule.
  bool ApplySelector(ModelSelector& s, const std::string& r) {
    if (r == "allkeys" || r == "~*") {
      s.all_keys = true, s.keys.clear();
    } else if (r == "resetkeys") {
      s.all_keys = false, s.keys.clear();
    } else if (r == "allchannels" || r == "&*") {
      s.all_channels = true, s.channels.clear();
    } else if (r == "resetchannels") {
      s.all_channels = false, s.channels.clear();
    } else if (r == "+@all" || r == "-@all") {
      s.commands.clear();
      s.first_args.clear();
      if (r[0] == '+') {
        for (int i = 0; i < catalog->size(); i++) s.commands.insert(i);
      }
    } else if (r[0] == '~' || r[0] == '%') {
      if (s.all_keys) return false;
      uint8_t access = r[0] == '~' ? 3 : (r[1] == 'R' ? 1 : 2);
      std::string p = r.substr(r.find('~') + 1);
      bool found = false;
      for (auto& [pat, a] : s.keys) {
        if (pat == p) a |= access, found = true;
      }
      if (!found) s.keys.push_back({p, access});
    } else if (r[0] == '&') {
      if (s.all_channels) return false;
      std::string p = r.substr(1);
      if (std::find(s.channels.begin(), s.channels.end(), p) == s.channels.end()) {
        s.channels.push_back(p);
      }
    } else if (r[1] == '@') {
      for (int id : catalog->InCategory(CategoryByName(r.substr(2)))) Allow(s, id, r[0] == '+');
    } else if (r[0] == '+' && r.find('|') != std::string::npos &&
               catalog->Find(r.substr(1)) == nullptr) {
      std::string arg = r.substr(r.find('|') + 1);
      for (char& c : arg) c = static_cast<char>(tolower(c));
      s.first_args[catalog->Find(r.substr(1, r.find('|') - 1))->id].insert(arg);
    } else {
      const CommandInfo* c = catalog->Find(r.substr(1));
      if (c == nullptr || (r[0] != '+' && r[0] != '-')) return false;
      Allow(s, c->id, r[0] == '+');
    }
    return true;
  }
  bool Apply(const std::string& r) {
    if (r == "clearselectors") {
      selectors.resize(1);
      return true;
    }
    if (r[0] == '(') {
      std::vector<std::string> words;
      SplitArgs(r.substr(1, r.size() - 2), &words);
      ModelSelector s;
      for (const auto& w : words) {
        if (!ApplySelector(s, w)) return false;
      }
      selectors.push_back(s);
      return true;
    }
    return ApplySelector(selectors[0], r);
  }
  bool Check(int id, std::optional<std::string> first, const std::vector<KeyRef>& keys,
             const std::vector<ChannelRef>& channels) const {
    for (const ModelSelector& s : selectors) {
      bool ok = s.commands.count(id) || catalog->at(id).no_auth;
      if (!ok && first && s.first_args.count(id)) {
        for (const auto& a : s.first_args.at(id))
          ok = ok || strcasecmp(a.c_str(), first->c_str()) == 0;
      }
      for (const KeyRef& k : keys) {
        bool kok = s.all_keys;
        for (const auto& [p, a] : s.keys)
          kok = kok || ((a & k.access) == k.access && GlobMatch(p, k.name));
        ok = ok && kok;
      }
      for (const ChannelRef& c : channels) {
        bool cok = s.all_channels;
        for (const auto& p : s.channels)
          cok = cok || (c.pattern ? p == c.name : GlobMatch(p, c.name));
        ok = ok && cok;
      }
      if (ok) return true;
    }
    return false;
  }
};

std::string RandomRule(std::mt19937& rng, const Catalog& catalog, bool in_selector) {
  static const char* kFixed[] = {
      "allkeys",   "resetkeys", "allchannels", "resetchannels", "+@all",        "-@all",
      "+select|0", "+select|1", "+get|x",      "+client|kill",  "-client|kill", "+config|get",
      "~a*",       "~b?",       "%R~r*",       "%W~w*",         "%R~a*",        "&n.*",
      "&x",        "&*",        "~*"};
  std::uniform_int_distribution<int> pick(0, 99);
  int p = pick(rng);
  if (p < 30) return kFixed[pick(rng) % std::size(kFixed)];
  if (p < 60) {
    const auto& c = catalog.at(pick(rng) % catalog.size());
    return (pick(rng) % 2 ? "+" : "-") + c.name;
  }
  if (p < 85)
    return std::string(pick(rng) % 2 ? "+@" : "-@") +
           std::string(CategoryName(pick(rng) % kCategoryCount));
  if (in_selector) return p < 92 ? "clearselectors" : "+get";  // user-level: refused inside
  if (p < 92) return "clearselectors";
  std::string sel = "(";
  int n = 1 + pick(rng) % 4;
  for (int i = 0; i < n; i++) sel += (i ? " " : "") + RandomRule(rng, catalog, true);
  return sel + ")";
}

TEST(AclModel, RandomRulesMatchModelAndDescribeRoundTrips) {
  auto catalog = TestCatalog();
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> pick(0, 99);
  const char* kNames[] = {"a1", "ab", "b1", "bb", "r1", "w1", "ww", "x", "n.1", "n.*", "*"};
  for (int round = 0; round < 1000; round++) {
    User user("u", catalog);
    Model model{catalog.get()};
    int rules = 1 + pick(rng) % 12;
    std::string history;
    for (int i = 0; i < rules; i++) {
      std::string r = RandomRule(rng, *catalog, false);
      User u2 = user;
      Model m2 = model;
      bool user_ok = u2.Apply(r) == RuleError::kOk;
      bool model_ok = m2.Apply(r);
      history += " " + r;
      ASSERT_EQ(user_ok, model_ok) << r;
      if (user_ok) user = u2, model = m2;  // all or nothing, as SETUSER
    }
    // Describe, parsed again, gives the same permissions and the same description.
    std::vector<std::string> words = {""};
    for (char c : user.Describe()) c == ' ' ? words.push_back("") : (void)(words.back() += c);
    std::vector<std::string> merged;
    ASSERT_TRUE(MergeSelectorArgs(words, &merged, nullptr));
    User again("u", catalog);
    for (const auto& w : merged) ASSERT_EQ(again.Apply(w), RuleError::kOk) << w;
    ASSERT_TRUE(user.SamePermissions(again)) << user.Describe() << "\n" << again.Describe();
    ASSERT_EQ(user.Describe(), again.Describe());

    for (int q = 0; q < 50; q++) {
      int id = pick(rng) % catalog->size();
      std::optional<std::string> first;
      if (pick(rng) % 2) first = (pick(rng) % 2) ? "0" : "X";
      std::vector<KeyRef> keys;
      for (int k = pick(rng) % 3; k > 0; k--) {
        keys.push_back(
            {kNames[pick(rng) % std::size(kNames)], static_cast<uint8_t>(pick(rng) % 4)});
      }
      std::vector<ChannelRef> channels;
      if (pick(rng) % 3 == 0)
        channels.push_back({kNames[pick(rng) % std::size(kNames)], pick(rng) % 2 == 0});
      Request r{id, first, keys, channels};
      bool expected = model.Check(id, first, keys, channels);
      ASSERT_EQ(user.Check(r).ok(), expected)
          << user.Describe() << " cmd " << catalog->at(id).name << " rules" << history << " keys "
          << keys.size() << " channels " << channels.size();
      ASSERT_EQ(again.Check(r).ok(), expected) << again.Describe();
    }
  }
}

}  // namespace
}  // namespace ordis::acl
