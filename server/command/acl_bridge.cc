#include "server/command/acl_bridge.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

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
      {"sort", kSet | kSortedSet | kList | kDangerous},
      {"sort_ro", kSet | kSortedSet | kList},
      {"restore", kDangerous},
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

// Commands whose one key spec in Redis 7.0 differs from the default (a write's keys are read
// and written: RW ACCESS UPDATE; a read's are read: RO ACCESS). Write-only: OW / RM / RW with
// INSERT, DELETE or UPDATE but no ACCESS, the command neither returns nor depends on what the
// key held. No access (0): RO without ACCESS, the command looks at the key's existence, type or
// size only, and any pattern matching its name allows it (%R~ or %W~ alike).
constexpr uint8_t kKeyNone = 0;
const absl::flat_hash_map<std::string_view, uint8_t>& KeyAccessExceptions() {
  static const absl::flat_hash_map<std::string_view, uint8_t> kExceptions = {
      // Write-only.
      {"append", kKeyWrite},
      {"del", kKeyWrite},
      {"unlink", kKeyWrite},
      {"expire", kKeyWrite},
      {"expireat", kKeyWrite},
      {"pexpire", kKeyWrite},
      {"pexpireat", kKeyWrite},
      {"persist", kKeyWrite},
      {"set", kKeyWrite},  // without GET (AclKeyAccess's args overload)
      {"setex", kKeyWrite},
      {"psetex", kKeyWrite},
      {"setnx", kKeyWrite},
      {"setrange", kKeyWrite},
      {"mset", kKeyWrite},
      {"msetnx", kKeyWrite},
      {"hset", kKeyWrite},
      {"hmset", kKeyWrite},
      {"hsetnx", kKeyWrite},
      {"hdel", kKeyWrite},
      {"lpush", kKeyWrite},
      {"rpush", kKeyWrite},
      {"lpushx", kKeyWrite},
      {"rpushx", kKeyWrite},
      {"linsert", kKeyWrite},
      {"lrem", kKeyWrite},
      {"lset", kKeyWrite},
      {"ltrim", kKeyWrite},
      {"sadd", kKeyWrite},
      {"srem", kKeyWrite},
      {"zadd", kKeyWrite},
      {"zrem", kKeyWrite},
      {"zremrangebylex", kKeyWrite},
      {"zremrangebyrank", kKeyWrite},
      {"zremrangebyscore", kKeyWrite},
      // Neither read nor written.
      {"exists", kKeyNone},
      {"touch", kKeyNone},
      {"type", kKeyNone},
      {"strlen", kKeyNone},
      {"hexists", kKeyNone},
      {"hlen", kKeyNone},
      {"hstrlen", kKeyNone},
      {"llen", kKeyNone},
      {"scard", kKeyNone},
      {"sismember", kKeyNone},
      {"zcard", kKeyNone},
      {"watch", kKeyNone},
      {"memory|usage", kKeyNone},
      {"object|encoding", kKeyNone},
      {"object|freq", kKeyNone},
      {"object|idletime", kKeyNone},
      {"object|refcount", kKeyNone},
  };
  return kExceptions;
}

// Commands with two key specs in Redis 7.0: the first key's access, then the other keys'.
struct SplitAccess {
  uint8_t first;
  uint8_t rest;
};
const SplitAccess* TwoKeySpecs(std::string_view name) {
  static constexpr SplitAccess kSourceThenDestination{kKeyRead, kKeyWrite};  // COPY: RO / OW
  // The source is moved (RW ACCESS DELETE), the destination written (OW UPDATE / RW INSERT).
  static constexpr SplitAccess kMoveSource{kKeyRead | kKeyWrite, kKeyWrite};
  // The destination is overwritten (OW UPDATE), the sources read (RO ACCESS).
  static constexpr SplitAccess kStore{kKeyWrite, kKeyRead};
  static const absl::flat_hash_map<std::string_view, const SplitAccess*> kTwoSpecs = {
      {"copy", &kSourceThenDestination}, {"rename", &kMoveSource},    {"renamenx", &kMoveSource},
      {"lmove", &kMoveSource},           {"rpoplpush", &kMoveSource}, {"smove", &kMoveSource},
      {"sinterstore", &kStore},          {"sunionstore", &kStore},    {"sdiffstore", &kStore},
      {"zunionstore", &kStore},          {"zinterstore", &kStore},    {"zdiffstore", &kStore},
      {"zrangestore", &kStore},
  };
  auto it = kTwoSpecs.find(name);
  return it == kTwoSpecs.end() ? nullptr : it->second;
}

// SET's key spec has VARIABLE_FLAGS: with a GET argument (after the value) it returns the old
// value, RW ACCESS UPDATE; without, OW UPDATE (Redis's setGetKeys).
bool SetWithGet(std::span<const std::string_view> args) {
  for (size_t i = 3; i < args.size(); ++i) {
    if (args[i].size() == 3 && (args[i][0] | 0x20) == 'g' && (args[i][1] | 0x20) == 'e' &&
        (args[i][2] | 0x20) == 't') {
      return true;
    }
  }
  return false;
}

}  // namespace

uint32_t AclCategories(const CommandSpec& spec) {
  if (!spec.subcommands.empty() && spec.handler == nullptr) {
    // A container that only dispatches (CONFIG, CLIENT, OBJECT ...): Redis gives it no flags
    // and no categories of its own, so it is @slow only.
    return kSlow | ExplicitCategories(spec.name);
  }
  // Redis names categories per command, not per group: PUBSUB HELP is @slow only.
  const bool group_category = spec.name != "pubsub|help";
  uint32_t categories =
      (group_category ? GroupCategory(spec.group) : 0) | ExplicitCategories(spec.name);
  if (spec.flags & cmd::kWrite) categories |= kWrite;
  if (spec.flags & cmd::kReadonly) categories |= kRead;
  if (spec.flags & cmd::kAdmin) categories |= kAdmin | kDangerous;
  if (spec.flags & cmd::kBlocking) categories |= kBlocking;
  categories |= (spec.flags & cmd::kFast) ? kFast : kSlow;
  return categories;
}

uint8_t AclKeyAccess(const CommandSpec& spec) {
  const auto& exceptions = KeyAccessExceptions();
  if (auto it = exceptions.find(spec.name); it != exceptions.end()) return it->second;
  return static_cast<uint8_t>((spec.flags & cmd::kWrite) ? kKeyRead | kKeyWrite : kKeyRead);
}

uint8_t AclKeyAccess(const CommandSpec& spec, std::span<const std::string_view> args) {
  if (spec.name == "set" && SetWithGet(args)) return kKeyRead | kKeyWrite;
  return AclKeyAccess(spec);
}

void ForEachKeyAccess(const CommandSpec& spec, std::span<const std::string_view> args,
                      absl::FunctionRef<void(size_t position, uint8_t access)> visit) {
  const uint8_t access = AclKeyAccess(spec, args);
  const SplitAccess* split = TwoKeySpecs(spec.name);
  bool first = true;
  ForEachKeyPosition(spec, args, [&](size_t i) {
    visit(i, split == nullptr ? access : first ? split->first : split->rest);
    first = false;
    return true;
  });
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
