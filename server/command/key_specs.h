// Redis 7.0's key specs: for each command, where its keys are and how it uses them, the one table
// COMMAND INFO, COMMAND GETKEYS / GETKEYSANDFLAGS and the ACL's key access (acl_bridge) read.
// Keyed by command name, so a family's commands are covered whenever they are registered.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "server/command/command.h"

namespace ordis::server {

namespace keyspec {
// Redis 7.0's key-spec flags, in the order COMMAND INFO lists them.
enum Flag : uint16_t {
  kRO = 1 << 0,      // read only
  kRW = 1 << 1,      // read and written
  kOW = 1 << 2,      // overwritten: the old value is neither read nor returned
  kRM = 1 << 3,      // removed
  kAccess = 1 << 4,  // the value (not only its existence, type or size) is read or returned
  kUpdate = 1 << 5,
  kInsert = 1 << 6,
  kDelete = 1 << 7,
  kNotKey = 1 << 8,          // in a key's position but not a key (SPUBLISH's channel)
  kIncomplete = 1 << 9,      // the spec may miss keys (MIGRATE's KEYS list)
  kVariableFlags = 1 << 10,  // the arguments decide the flags (SET ... GET)
};
}  // namespace keyspec

struct KeySpec {
  // Where the search for the keys begins.
  struct BeginSearch {
    enum Type : uint8_t { kIndex, kKeyword, kUnknown } type;
    int pos;  // kIndex: the first key's position; kKeyword: startfrom (< 0: counts from the end)
    std::string_view keyword;  // kKeyword, upper case
  };
  // Which arguments from there are keys.
  struct FindKeys {
    enum Type : uint8_t { kRange, kKeynum, kUnknown } type;
    int a, b, c;  // kRange: lastkey, keystep, limit; kKeynum: keynumidx, firstkey, keystep
  };
  uint16_t flags;
  BeginSearch begin;
  FindKeys find;
};

struct CommandKeySpecs {
  std::vector<KeySpec> specs;
  // Redis's no_mandatory_keys: a call may name no key at all (EVAL script 0).
  bool no_mandatory_keys = false;
  // For a spec with kVariableFlags: the flags a call's arguments give its keys.
  uint16_t (*variable_flags)(std::span<const std::string_view> args) = nullptr;
};

// The key specs of the command or subcommand named name ("xgroup|create"); nullptr when it has
// none (PING, KRANGE).
const CommandKeySpecs* KeySpecsOf(std::string_view name);

// The names of flags' bits, in COMMAND INFO's order ("RW", "access", "delete").
std::vector<std::string_view> KeySpecFlagNames(uint16_t flags);

// The union of the flags of spec's key specs (not_key ones aside) for a call with args: all it may
// do to its keys. A command missing from the table: a write's RW ACCESS UPDATE, a read's RO ACCESS.
uint16_t AllKeyFlags(const CommandSpec& spec, std::span<const std::string_view> args);

// Whether spec has key arguments at all, as COMMAND GETKEYS asks (Redis's doesCommandHaveKeys):
// a key spec that is not kNotKey, or key positions of ordis's own.
bool HasKeys(const CommandSpec& spec);

// Calls visit(position, flags) for each key argument of args (ForEachKeyPosition's reading), with
// the flags of the key spec it belongs to, resolved for this call (kVariableFlags gone).
void ForEachKeyWithFlags(const CommandSpec& spec, std::span<const std::string_view> args,
                         absl::FunctionRef<void(size_t position, uint16_t flags)> visit);

// The keys of args as Redis 7.0's COMMAND GETKEYS finds them: through the key specs, unless a
// spec's flags vary (SET, BITFIELD) or it cannot place its keys (SORT's unknown ones, MIGRATE's
// incomplete KEYS), where ordis's own reading answers with ForEachKeyWithFlags's flags. False when
// the call names no key that way (ZUNION 0 a, PFMERGE d: "Invalid arguments"); out then holds
// nothing.
bool GetKeysAsRedis(const CommandSpec& spec, std::span<const std::string_view> args,
                    std::vector<std::pair<size_t, uint16_t>>* out);

}  // namespace ordis::server
