// What the ACL needs to know of the command table: each command's categories and how it uses its
// keys, from its flags, its group and Redis's explicit ACL categories, and the catalog built from
// them once at start-up.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "server/acl/catalog.h"
#include "server/acl/user.h"
#include "server/command/client_state.h"
#include "server/command/command_table.h"

namespace ordis::server {

// Redis 7.0's ACL categories of spec: @read/@write/@admin/@fast/@slow from its flags (admin
// implies @dangerous), the data-type category from its group, and the categories Redis's command
// files name explicitly (KEYS and FLUSHALL are @dangerous, DBSIZE is @keyspace ...). A container
// without a handler of its own (CONFIG) is @slow only, as in Redis.
uint32_t AclCategories(const CommandSpec& spec);

// How spec uses its keys (acl::KeyAccess bits), from its Redis 7.0 key specs (key_specs.h): a key
// spec's ACCESS reads, its INSERT, DELETE or UPDATE write, and a spec with neither (EXISTS, TYPE,
// LLEN) needs no permission beyond a pattern matching the key. For commands with several key
// specs this is their union; ForEachKeyAccess gives each key its own spec's (COPY reads its source
// and writes its destination, RENAME/LMOVE/SMOVE move the source, *STORE write the destination
// and read the sources).
uint8_t AclKeyAccess(const CommandSpec& spec);
// The same for one call: SET k v GET reads its key too, BITFIELD k GET ... only reads it.
uint8_t AclKeyAccess(const CommandSpec& spec, std::span<const std::string_view> args);

// Calls visit(position, access) for each key argument of args with how this call uses it: the
// one place both the ACL check and the cold tier's prefetch (which values a batch needs) read.
void ForEachKeyAccess(const CommandSpec& spec, std::span<const std::string_view> args,
                      absl::FunctionRef<void(size_t position, uint8_t access)> visit);

// Calls visit(position, is_pattern) for each channel argument of args the ACL checks, as Redis
// 7.0 reads them: every argument of SUBSCRIBE, SSUBSCRIBE and PSUBSCRIBE (patterns), the channel
// of PUBLISH and SPUBLISH. Unsubscribing is never checked.
void ForEachChannel(const CommandSpec& spec, std::span<const std::string_view> args,
                    absl::FunctionRef<void(size_t position, bool is_pattern)> visit);

// Whether user may run spec with args (each key with its access, each channel); keys and
// channels are scratch space, and hold the keys and channels checked afterwards (Verdict::index
// points into one of them).
acl::Verdict CheckCommand(const acl::User& user, const CommandSpec& spec,
                          std::span<const std::string_view> args, std::vector<acl::KeyRef>* keys,
                          std::vector<acl::ChannelRef>* channels);

// Whether client's user may read key while running command_id: for keys a handler reaches that its
// arguments do not name (KRANGE WITHVALUES's values).
bool ClientMayRead(ClientState& client, int command_id, std::string_view key);

// The catalog of every command and subcommand, ids as CommandSpec::id.
std::shared_ptr<const acl::Catalog> BuildAclCatalog(const CommandTable& table);

}  // namespace ordis::server
