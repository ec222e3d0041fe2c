// One ACL user as Redis 7.0 models it: on/off, passwords (SHA-256 only) or nopass, and selectors.
// The root selector holds the rules given outside parentheses; each "(...)" rule adds one more.
// A command runs when the root or any one additional selector allows all of it: the command (or
// its first argument, +select|0), every key with the access the command needs, every channel.
//
// A User is a value: ACL SETUSER copies the current one, applies the rules and publishes the
// copy (users.h). Once published it is never changed, so any number of threads may read it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/acl/catalog.h"

namespace ordis::acl {

// How a command uses a key, from its key-spec flags: ACCESS -> kKeyRead; INSERT, DELETE or
// UPDATE -> kKeyWrite. A key with neither (EXISTS-like specs) passes any pattern that matches.
enum KeyAccess : uint8_t { kKeyRead = 1, kKeyWrite = 2 };

struct KeyRef {
  std::string_view name;
  uint8_t access = 0;  // KeyAccess bits
};

struct ChannelRef {
  std::string_view name;
  // PSUBSCRIBE's argument: a pattern passes only an ACL pattern equal to it (a literal compare),
  // so a user allowed "news.*" cannot subscribe to "*".
  bool pattern = false;
};

// What the command layer knows of one call. Views must outlive the Check call only.
struct Request {
  int command_id = -1;  // Catalog id; the subcommand's id for a container call
  // The argument after the command name (after the subcommand name for a subcommand), matched
  // against +cmd|arg rules; nullopt when the call has none.
  std::optional<std::string_view> first_arg;
  std::span<const KeyRef> keys;
  std::span<const ChannelRef> channels;  // publish and subscribe channels only
};

struct Verdict {
  // In Redis's order of relevance: with several selectors denying, the reported reason is the
  // highest, and for equal reasons the latest key or channel.
  enum Kind : uint8_t { kOk = 0, kDeniedCommand = 1, kDeniedKey = 2, kDeniedChannel = 3 };
  Kind kind = kOk;
  int index = 0;  // into Request::keys or Request::channels for kDeniedKey / kDeniedChannel
  bool ok() const { return kind == kOk; }
};

// Why a rule was refused; RuleErrorText gives Redis's wording.
enum class RuleError : uint8_t {
  kOk,
  kSyntax,
  kUnknownCommand,
  kKeyAfterAllKeys,
  kChannelAfterAllChannels,
  kNoSuchPassword,
  kBadHash,
  kFirstArgOfSubcommand,
};
std::string_view RuleErrorText(RuleError e);

struct KeyPattern {
  std::string pattern;
  uint8_t access = 0;  // KeyAccess bits, never 0
  bool operator==(const KeyPattern&) const = default;
};

// ACL GETUSER's per-selector fields, as the strings Redis replies.
struct SelectorInfo {
  std::string commands;  // "-@all +get"
  std::string keys;      // "~a* %R~b*", "~*" or ""
  std::string channels;  // "&c*", "&*" or ""
};

// ACL GETUSER: flags, passwords (hex digests), the root selector, the other selectors.
struct UserInfo {
  std::vector<std::string> flags;
  std::vector<std::string> passwords;
  SelectorInfo root;
  std::vector<SelectorInfo> selectors;
};

class Selector {
 public:
  explicit Selector(const Catalog* catalog);

  RuleError Apply(std::string_view rule);
  Verdict Check(const Request& request) const;
  bool CheckKey(std::string_view key, uint8_t access) const;
  bool CheckChannel(std::string_view channel, bool pattern) const;
  bool Allows(int command_id) const { return Test(allowed_, command_id); }
  bool unrestricted() const { return all_keys_ && all_channels_; }

  std::string Describe() const;  // keys, channels, then the command rules
  std::string DescribeCommands() const;
  SelectorInfo Info() const;

  // Same permissions, compared field by field (the test's round trip).
  bool SamePermissions(const Selector& other) const;

 private:
  friend class User;
  static bool Test(const std::vector<uint64_t>& bits, int id) {
    return (bits[id >> 6] >> (id & 63)) & 1;
  }
  RuleError ApplyCommandRule(std::string_view rule);
  void ChangeBits(std::vector<uint64_t>* bits, int id, bool allow) const;
  void CategoryBits(std::vector<uint64_t>* bits, uint32_t category, bool allow) const;
  void ChangePermission(int id, bool allow);
  std::string KeysText() const;
  std::string ChannelsText() const;

  const Catalog* catalog_;
  std::vector<uint64_t> allowed_;  // bit per catalog id
  // +@all's "future commands" mark: set by +@all, cleared only by -@all; ACL LIST starts from
  // "+@all" when it is set (Redis's reserved command bit).
  bool future_commands_ = false;
  bool all_keys_ = false;
  bool all_channels_ = false;
  std::vector<KeyPattern> keys_;
  std::vector<std::string> channels_;
  std::map<int, std::vector<std::string>> first_args_;  // +select|0, by command id
};

class User {
 public:
  // A user as ACL SETUSER creates it: off, no password, no commands, keys or channels
  // (all channels when acl-pubsub-default is allchannels).
  User(std::string name, std::shared_ptr<const Catalog> catalog, bool all_channels = false);
  // The "default" user Redis starts with: on nopass ~* &* +@all.
  static User Default(std::shared_ptr<const Catalog> catalog);

  // Applies one ACL SETUSER rule. On error the user may be half changed: callers apply rules to
  // a copy (Users::SetUser does).
  RuleError Apply(std::string_view rule);

  // The permission check, on every command: with a selector that has allkeys, allchannels and
  // the command, one bit test; never allocates or locks.
  Verdict Check(const Request& request) const {
    if (Selector::Test(unrestricted_, request.command_id)) return {};
    return CheckSlow(request);
  }
  // True iff a selector with allkeys and allchannels allows the command: Check would pass without
  // looking at keys or channels, so the caller need not list them.
  bool Unrestricted(int command_id) const { return Selector::Test(unrestricted_, command_id); }
  // Whether any selector may touch key with access / the channel (SORT BY, SUBSCRIBE checks).
  bool CheckKey(std::string_view key, uint8_t access) const;
  bool CheckChannel(std::string_view channel, bool pattern) const;

  // True iff the user may log in with password (never for an off user). Constant time in the
  // digests compared.
  bool PasswordMatches(std::string_view password) const;

  const std::string& name() const { return name_; }
  bool enabled() const { return enabled_; }
  bool nopass() const { return nopass_; }
  const std::vector<std::string>& password_hashes() const { return passwords_; }

  // The ACL LIST / ACL file description after "user <name> ".
  std::string Describe() const;
  UserInfo Info() const;
  bool SamePermissions(const User& other) const;

 private:
  enum Sanitize : uint8_t { kSanitizeUnset, kSanitize, kSkipSanitize };
  Verdict CheckSlow(const Request& request) const;
  void Refresh();

  std::string name_;
  std::shared_ptr<const Catalog> catalog_;
  bool default_all_channels_ = false;
  bool enabled_ = false;
  bool nopass_ = false;
  Sanitize sanitize_ = kSanitizeUnset;
  std::vector<std::string> passwords_;  // hex SHA-256, in the order added
  std::vector<Selector> selectors_;     // [0] is the root
  // Commands some selector with allkeys and allchannels allows: the fast path of Check.
  std::vector<uint64_t> unrestricted_;
};

}  // namespace ordis::acl
