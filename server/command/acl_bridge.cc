#include "server/command/acl_bridge.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/command/key_specs.h"

namespace ordis::server {
namespace {

using namespace acl;  // the category bits

uint32_t GroupCategory(std::string_view group) {
  static const absl::flat_hash_map<std::string_view, uint32_t> kByGroup = {
      {"string", kString},
      {"list", kList},
      {"hash", kHash},
      {"set", kSet},
      {"sorted-set", kSortedSet},  // COMMAND DOCS spells it so
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
      {"lastsave", kAdmin | kDangerous},
      {"wait", kConnection},
      {"role", kAdmin | kDangerous},
      {"readonly", kConnection},
      {"readwrite", kConnection},
      {"asking", kConnection},
      {"sort", kSet | kSortedSet | kList | kDangerous},
      {"sort_ro", kSet | kSortedSet | kList | kDangerous},
      {"restore", kDangerous},
      {"restore-asking", kKeyspace | kDangerous},
      {"migrate", kDangerous},
      {"object|encoding", kKeyspace},
      {"object|freq", kKeyspace},
      {"object|idletime", kKeyspace},
      {"object|refcount", kKeyspace},
      // COMMAND is in the server group but Redis files it under @connection, subcommands too.
      {"command", kConnection},
      {"command|count", kConnection},
      {"command|docs", kConnection},
      {"command|getkeys", kConnection},
      {"command|getkeysandflags", kConnection},
      {"command|help", kConnection},
      {"command|info", kConnection},
      {"command|list", kConnection},
  };
  auto it = kExplicit.find(name);
  return it == kExplicit.end() ? 0 : it->second;
}

// The ACL permissions a key-spec flag set needs, as Redis 7.0 checks a key: ACCESS reads; INSERT,
// DELETE and UPDATE write; a key with neither (RO alone: EXISTS, TYPE, LLEN) needs only a pattern
// that matches its name, %R~ or %W~ alike.
uint8_t AccessOf(uint16_t flags) {
  uint8_t access = 0;
  if (flags & keyspec::kAccess) access |= kKeyRead;
  if (flags & (keyspec::kInsert | keyspec::kDelete | keyspec::kUpdate)) access |= kKeyWrite;
  return access;
}

}  // namespace

uint32_t AclCategories(const CommandSpec& spec) {
  if (!spec.subcommands.empty() && spec.handler == nullptr) {
    // A container that only dispatches (CONFIG, CLIENT, OBJECT ...): Redis gives it no flags
    // and no categories of its own, so it is @slow only.
    return kSlow | ExplicitCategories(spec.name);
  }
  // Redis names categories per command, not per group: these take none from theirs.
  const bool group_category = spec.name != "pubsub|help" && spec.name != "wait" &&
                              spec.name != "sort" && spec.name != "sort_ro";
  uint32_t categories =
      (group_category ? GroupCategory(spec.group) : 0) | ExplicitCategories(spec.name);
  if (spec.flags & cmd::kWrite) categories |= kWrite;
  // As Redis: the read-only scripts (EVAL_RO ...) are no @read commands.
  if ((spec.flags & cmd::kReadonly) && !(categories & kScripting)) categories |= kRead;
  if (spec.flags & cmd::kAdmin) categories |= kAdmin | kDangerous;
  if (spec.flags & cmd::kBlocking) categories |= kBlocking;
  categories |= (spec.flags & cmd::kFast) ? kFast : kSlow;
  return categories;
}

uint8_t AclKeyAccess(const CommandSpec& spec) {
  const std::string_view name = spec.name;
  return AclKeyAccess(spec, std::span<const std::string_view>(&name, 1));
}

uint8_t AclKeyAccess(const CommandSpec& spec, std::span<const std::string_view> args) {
  return AccessOf(AllKeyFlags(spec, args));
}

void ForEachKeyAccess(const CommandSpec& spec, std::span<const std::string_view> args,
                      absl::FunctionRef<void(size_t position, uint8_t access)> visit) {
  ForEachKeyWithFlags(spec, args, [&](size_t i, uint16_t flags) { visit(i, AccessOf(flags)); });
}

void ForEachChannel(const CommandSpec& spec, std::span<const std::string_view> args,
                    absl::FunctionRef<void(size_t position, bool is_pattern)> visit) {
  if (!(spec.flags & cmd::kPubSub)) return;
  const std::string_view name = spec.name;
  if (name == "publish" || name == "spublish") {
    visit(1, false);
  } else if (name == "subscribe" || name == "ssubscribe" || name == "psubscribe") {
    for (size_t i = 1; i < args.size(); ++i) visit(i, name == "psubscribe");
  }
}

Verdict CheckCommand(const User& user, const CommandSpec& spec,
                     std::span<const std::string_view> args, std::vector<KeyRef>* keys,
                     std::vector<ChannelRef>* channels) {
  keys->clear();
  channels->clear();
  if (user.Unrestricted(spec.id)) return {};
  ForEachKeyAccess(spec, args, [&](size_t i, uint8_t access) {
    keys->push_back({args[i], access});
  });
  ForEachChannel(spec, args, [&](size_t i, bool is_pattern) {
    channels->push_back({args[i], is_pattern});
  });
  Request request;
  request.command_id = spec.id;
  // The argument +cmd|arg rules look at: after the subcommand's name for a subcommand.
  const size_t first_arg = spec.name.find('|') == std::string_view::npos ? 1 : 2;
  if (args.size() > first_arg) request.first_arg = args[first_arg];
  request.keys = *keys;
  request.channels = *channels;
  return user.Check(request);
}

bool ClientMayRead(ClientState& client, int command_id, std::string_view key) {
  if (!client.user) return true;
  const User* user = client.user.Current();
  if (user == nullptr) return false;
  return user->Unrestricted(command_id) || user->CheckKey(key, kKeyRead);
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
