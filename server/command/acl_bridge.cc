#include "server/command/acl_bridge.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace ordis::server {
namespace {

using namespace acl;  // the category bits

uint32_t GroupCategory(std::string_view group) {
  static const absl::flat_hash_map<std::string_view, uint32_t> kByGroup = {
      {"string", kString},
      {"list", kList},
      {"hash", kHash},
      {"set", kSet},
      {"sorted_set", kSortedSet},
      {"generic", kKeyspace},
      {"connection", kConnection},
      {"transactions", kTransaction},
      {"bitmap", kBitmap},
      {"hyperloglog", kHyperLogLog},
      {"geo", kGeo},
      {"stream", kStream},
      {"pubsub", kPubSub},
      {"scripting", kScripting},
  };
  auto it = kByGroup.find(group);
  return it == kByGroup.end() ? 0 : it->second;
}

// Categories Redis's command files list beyond what the flags and the group give.
uint32_t ExplicitCategories(std::string_view name) {
  static const absl::flat_hash_map<std::string_view, uint32_t> kExplicit = {
      {"keys", kDangerous},
      {"flushall", kKeyspace | kDangerous},
      {"flushdb", kKeyspace | kDangerous},
      {"swapdb", kKeyspace | kDangerous},
      {"dbsize", kKeyspace},
      {"info", kDangerous},
      {"sort", kSet | kSortedSet | kList | kDangerous},
      {"sort_ro", kSet | kSortedSet | kList},
      {"restore", kDangerous},
      {"migrate", kDangerous},
      {"object|encoding", kKeyspace},
      {"object|freq", kKeyspace},
      {"object|idletime", kKeyspace},
      {"object|refcount", kKeyspace},
  };
  auto it = kExplicit.find(name);
  return it == kExplicit.end() ? 0 : it->second;
}

// Writes whose keys Redis's key specs mark without ACCESS: they neither return nor depend on what
// the key held before (OW UPDATE, RM DELETE, RW INSERT).
bool WriteOnlyKeys(std::string_view name) {
  static const absl::flat_hash_set<std::string_view> kWriteOnly = {
      "set",      "mset",      "msetnx",  "setex",   "psetex",   "setnx",  "append",
      "del",      "unlink",    "lpush",   "rpush",   "lpushx",   "rpushx", "linsert",
      "sadd",     "hset",      "hsetnx",  "hmset",   "zadd",     "expire", "pexpire",
      "expireat", "pexpireat", "persist", "flushdb", "flushall",
  };
  return kWriteOnly.contains(name);
}

}  // namespace

uint32_t AclCategories(const CommandSpec& spec) {
  uint32_t categories = GroupCategory(spec.group) | ExplicitCategories(spec.name);
  if (spec.flags & cmd::kWrite) categories |= kWrite;
  if (spec.flags & cmd::kReadonly) categories |= kRead;
  if (spec.flags & cmd::kAdmin) categories |= kAdmin | kDangerous;
  categories |= (spec.flags & cmd::kFast) ? kFast : kSlow;
  return categories;
}

uint8_t AclKeyAccess(const CommandSpec& spec) {
  if (spec.flags & cmd::kWrite) {
    return WriteOnlyKeys(spec.name) ? kKeyWrite : static_cast<uint8_t>(kKeyRead | kKeyWrite);
  }
  return kKeyRead;
}

Verdict CheckCommand(const User& user, const CommandSpec& spec,
                     std::span<const std::string_view> args, std::vector<KeyRef>* keys) {
  keys->clear();
  if (user.Unrestricted(spec.id)) return {};
  const uint8_t access = AclKeyAccess(spec);
  ForEachKeyPosition(spec, args.size(), [&](size_t i) {
    keys->push_back({args[i], access});
    return true;
  });
  Request request;
  request.command_id = spec.id;
  // The argument +cmd|arg rules look at: after the subcommand's name for a subcommand.
  const size_t first_arg = spec.name.find('|') == std::string_view::npos ? 1 : 2;
  if (args.size() > first_arg) request.first_arg = args[first_arg];
  request.keys = *keys;
  return user.Check(request);
}

std::shared_ptr<const Catalog> BuildAclCatalog(const CommandTable& table) {
  std::vector<CommandInfo> commands;
  for (const CommandSpec& spec : table.all()) {
    commands.push_back({std::string(spec.name), AclCategories(spec), spec.id, -1,
                        (spec.flags & cmd::kNoAuth) != 0});
    for (const CommandSpec& sub : spec.subcommands) {
      commands.push_back({std::string(sub.name), AclCategories(sub), sub.id, spec.id,
                          (sub.flags & cmd::kNoAuth) != 0});
    }
  }
  return std::make_shared<const Catalog>(std::move(commands));
}

}  // namespace ordis::server
