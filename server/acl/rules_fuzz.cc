// libFuzzer target for what clients and files feed the ACL: ACL SETUSER rules, config "user" lines
// and ACL files. Each input line is split as Redis splits a config line; the first word picks what
// the rest goes to. Besides not crashing, two properties are checked: a refused SETUSER changes
// nothing, and a user's ACL LIST description, applied to a new user, gives the same permissions.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/split_args.h"
#include "server/acl/acl_test_support.h"
#include "server/acl/users.h"

namespace {

using ordis::acl::Users;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "property violated: %s\n", what);
    std::abort();
  }
}

// SETUSER name rules..., then the round trip through the description.
void SetUser(Users& users, const std::vector<std::string>& words) {
  if (words.size() < 2) return;
  const std::string& name = words[1];
  const std::vector<std::string> before = users.List();
  std::vector<std::string> rules(words.begin() + 2, words.end());
  const std::string error = users.SetUser(name, rules);
  if (!error.empty()) {
    Check(users.List() == before, "a refused SETUSER changed the users");
    return;
  }
  std::shared_ptr<const ordis::acl::User> user = users.Find(name);
  Check(user != nullptr, "SETUSER succeeded but the user is missing");
  std::vector<std::string> described;
  Check(ordis::SplitArgs(user->Describe(), &described), "a description does not split");
  Users fresh(ordis::acl::TestCatalog());
  Check(fresh.SetUser(name, described).empty(), "a description is refused as rules");
  Check(fresh.Find(name)->SamePermissions(*user), "a description changes the permissions");
  Check(fresh.Find(name)->Describe() == user->Describe(), "a description is not a fixed point");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Users users(ordis::acl::TestCatalog());
  std::vector<std::string> words;
  size_t start = 0;
  while (start < input.size()) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    std::string_view line = input.substr(start, end - start);
    start = end + 1;
    if (!ordis::SplitArgs(line, &words) || words.empty()) continue;
    if (words[0] == "user") {
      users.ParseUserDirective(words);  // config-file form, applied by LoadConfiguredUsers
    } else {
      SetUser(users, words);
    }
  }
  users.LoadConfiguredUsers();
  // The whole input as an ACL file.
  char path[] = "/tmp/acl_rules_fuzz_XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) {
    [[maybe_unused]] ssize_t n = write(fd, input.data(), input.size());
    close(fd);
    const std::vector<std::string> before = users.List();
    if (!users.LoadFile(path).empty())
      Check(users.List() == before, "a refused LOAD changed users");
    unlink(path);
  }
  return 0;
}
