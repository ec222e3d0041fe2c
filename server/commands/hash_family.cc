// Hash commands: HSET HSETNX HMSET HGET HMGET HDEL HLEN HSTRLEN HEXISTS HKEYS HVALS HGETALL HINCRBY
// HINCRBYFLOAT HRANDFIELD HSCAN.
//
// A hash is a HashValue (absl::flat_hash_map<std::string, std::string>). Its iteration order is
// unspecified, as Redis's is for a hashtable-encoded hash (COMMAND INFO flags HKEYS, HVALS and
// HGETALL nondeterministic_output_order). OBJECT ENCODING reports "listpack" or "hashtable" by the
// hash-max-listpack-* limits (keys_family.cc).
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/glob.h"
#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/collection_scan.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/random_members.h"

namespace ordis::server {
namespace {

using Entry = HashValue::value_type;

// HashValue hashes with absl's StringHash, whose heterogeneous lookup takes absl::string_view
// (not std::string_view in this abseil build).
absl::string_view Field(std::string_view s) { return {s.data(), s.size()}; }

// HSET key field value [field value ...] (replies the number of new fields), and
// HMSET key field value [field value ...] (replies OK).
void SetFields(CommandContext& ctx, bool reply_ok, std::string_view command) {
  if (ctx.args.size() % 2 == 1) {
    ctx.out.Error(errors::WrongArity(command));
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kHash, true, &wrong_type);
  if (wrong_type) return;
  HashValue& hash = obj->hash();
  int64_t created = 0;
  for (size_t i = 2; i < ctx.args.size(); i += 2) {
    auto [it, inserted] = hash.try_emplace(Field(ctx.args[i]));
    if (inserted) ++created;
    it->second.assign(ctx.args[i + 1]);
  }
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kHash, "hset", key);
  if (reply_ok) {
    ctx.out.Ok();
  } else {
    ctx.out.Integer(created);
  }
}

// HSET key field value [field value ...]
void CmdHSet(CommandContext& ctx) { SetFields(ctx, false, "hset"); }
// HMSET key field value [field value ...]
void CmdHMSet(CommandContext& ctx) { SetFields(ctx, true, "hmset"); }

// HSETNX key field value
void CmdHSetNx(CommandContext& ctx) {
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kHash, true, &wrong_type);
  if (wrong_type) return;
  auto [it, inserted] = obj->hash().try_emplace(Field(ctx.args[2]));
  if (!inserted) {
    ctx.out.Integer(0);  // the field exists, so the key did already: nothing to clean up
    return;
  }
  it->second.assign(ctx.args[3]);
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kHash, "hset", key);
  ctx.out.Integer(1);
}

// The value of field in the hash at key for a read command, or nullptr if the key or field is
// missing. Sets *wrong_type (after replying WRONGTYPE) if the key holds another type.
const std::string* FindField(CommandContext& ctx, std::string_view field, bool* wrong_type) {
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kHash, wrong_type);
  if (obj == nullptr) return nullptr;
  const HashValue& hash = obj->hash();
  auto it = hash.find(Field(field));
  return it == hash.end() ? nullptr : &it->second;
}

// HGET key field
void CmdHGet(CommandContext& ctx) {
  bool wrong_type;
  const std::string* value = FindField(ctx, ctx.args[2], &wrong_type);
  if (wrong_type) return;
  if (value == nullptr) {
    ctx.out.NullBulk();
  } else {
    ctx.out.Bulk(*value);
  }
}

// HSTRLEN key field
void CmdHStrLen(CommandContext& ctx) {
  bool wrong_type;
  const std::string* value = FindField(ctx, ctx.args[2], &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(value == nullptr ? 0 : static_cast<int64_t>(value->size()));
}

// HEXISTS key field
void CmdHExists(CommandContext& ctx) {
  bool wrong_type;
  const std::string* value = FindField(ctx, ctx.args[2], &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(value == nullptr ? 0 : 1);
}

// HMGET key field [field ...]
void CmdHMGet(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kHash, &wrong_type);
  if (wrong_type) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    const std::string* value = nullptr;
    if (obj != nullptr) {
      auto it = obj->hash().find(Field(ctx.args[i]));
      if (it != obj->hash().end()) value = &it->second;
    }
    if (value == nullptr) {
      ctx.out.NullBulk();
    } else {
      ctx.out.Bulk(*value);
    }
  }
}

// HDEL key field [field ...]
void CmdHDel(CommandContext& ctx) {
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kHash, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  int64_t deleted = 0;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    deleted += static_cast<int64_t>(obj->hash().erase(Field(ctx.args[i])));
  }
  if (deleted > 0) {
    ctx.Notify(keyspace_events::kHash, "hdel", key);
    FinishCollectionWrite(ctx, key, obj);
  }
  ctx.out.Integer(deleted);
}

// HLEN key
void CmdHLen(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kHash, &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(obj == nullptr ? 0 : static_cast<int64_t>(obj->hash().size()));
}

enum class Part { kFields, kValues, kBoth };

// HKEYS, HVALS (arrays) and HGETALL (a map on RESP3, a flat array on RESP2).
void ReplyAll(CommandContext& ctx, Part part) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kHash, &wrong_type);
  if (wrong_type) return;
  int64_t n = obj == nullptr ? 0 : static_cast<int64_t>(obj->hash().size());
  if (part == Part::kBoth) {
    ctx.out.MapHeader(n);
  } else {
    ctx.out.ArrayHeader(n);
  }
  if (obj == nullptr) return;
  for (const auto& [field, value] : obj->hash()) {
    if (part != Part::kValues) ctx.out.Bulk(field);
    if (part != Part::kFields) ctx.out.Bulk(value);
  }
}

// HKEYS key
void CmdHKeys(CommandContext& ctx) { ReplyAll(ctx, Part::kFields); }
// HVALS key
void CmdHVals(CommandContext& ctx) { ReplyAll(ctx, Part::kValues); }
// HGETALL key
void CmdHGetAll(CommandContext& ctx) { ReplyAll(ctx, Part::kBoth); }

// HINCRBY key field increment
void CmdHIncrBy(CommandContext& ctx) {
  int64_t delta;
  if (!ParseInt64(ctx.args[3], &delta)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  // Created if missing, as Redis does; no error below can leave it empty (a new field starts at 0).
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kHash, true, &wrong_type);
  if (wrong_type) return;
  auto [it, inserted] = obj->hash().try_emplace(Field(ctx.args[2]));
  int64_t current = 0;
  if (!inserted && !ParseInt64(it->second, &current)) {
    ctx.out.Error(errors::kHashValueNotInteger);
    return;
  }
  int64_t result;
  if (!CheckedAdd(current, delta, &result)) {
    ctx.out.Error(errors::kOverflow);
    return;
  }
  it->second.clear();
  AppendInt64(&it->second, result);
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kHash, "hincrby", key);
  ctx.out.Integer(result);
}

// HINCRBYFLOAT key field increment. Long double arithmetic and printing as INCRBYFLOAT.
void CmdHIncrByFloat(CommandContext& ctx) {
  long double delta;
  if (!ParseLongDouble(ctx.args[3], &delta)) {
    ctx.out.Error(errors::kNotFloat);
    return;
  }
  if (std::isnan(delta) || std::isinf(delta)) {
    ctx.out.Error(errors::kValueNaNOrInfinity);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kHash, true, &wrong_type);
  if (wrong_type) return;
  HashValue& hash = obj->hash();
  long double current = 0;
  auto it = hash.find(Field(ctx.args[2]));
  if (it != hash.end() && !ParseLongDouble(it->second, &current)) {
    ctx.out.Error(errors::kHashValueNotFloat);
    return;
  }
  long double result = current + delta;
  if (std::isnan(result) || std::isinf(result)) {
    // Only reachable with an existing field ("inf" is a valid stored value), so the key existed.
    ctx.out.Error(errors::kIncrFloatNaN);
    return;
  }
  std::string text = FormatLongDouble(result);
  if (it == hash.end()) {
    hash.emplace(ctx.args[2], text);
  } else {
    it->second = text;
  }
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kHash, "hincrbyfloat", key);
  ctx.out.Bulk(text);
}

// The entries of hash, for random access.
std::vector<const Entry*> Entries(const HashValue& hash) {
  std::vector<const Entry*> out;
  out.reserve(hash.size());
  for (const Entry& e : hash) out.push_back(&e);
  return out;
}

// One HRANDFIELD result: the field, or with values the field and its value (a pair array on RESP3,
// two flat elements on RESP2).
void ReplyEntry(CommandContext& ctx, const Entry& e, bool with_values) {
  if (with_values && ctx.out.protocol() == 3) ctx.out.ArrayHeader(2);
  ctx.out.Bulk(e.first);
  if (with_values) ctx.out.Bulk(e.second);
}

// HRANDFIELD key [count [WITHVALUES]]
void CmdHRandField(CommandContext& ctx) {
  bool has_count, with_values;
  int64_t count;
  if (!ParseRandomPairArgs(ctx, "withvalues", &has_count, &count, &with_values)) return;
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kHash, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ReplyNoRandomMembers(ctx, has_count);
    return;
  }
  const HashValue& hash = obj->hash();
  auto& rng = CommandRng();
  std::uniform_int_distribution<size_t> pick(0, hash.size() - 1);  // a stored hash is not empty
  if (!has_count) {
    auto it = hash.begin();
    std::advance(it, static_cast<ptrdiff_t>(pick(rng)));
    ctx.out.Bulk(it->first);
    return;
  }
  std::vector<const Entry*> entries = Entries(hash);
  // A negative count allows repeats; a positive one asks for distinct fields.
  uint64_t n = count < 0 ? 0 - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
  bool distinct = count > 0;
  if (!distinct && n > kMaxRandomReplyElements) {
    ctx.out.Error(errors::kOutOfRange);
    return;
  }
  auto header = [&](uint64_t elements) {
    bool flat_pairs = with_values && ctx.out.protocol() != 3;
    ctx.out.ArrayHeader(static_cast<int64_t>(flat_pairs ? elements * 2 : elements));
  };
  if (n == 0) {
    ctx.out.ArrayHeader(0);
    return;
  }
  if (!distinct || n == 1) {
    header(n);
    for (uint64_t i = 0; i < n; ++i) ReplyEntry(ctx, *entries[pick(rng)], with_values);
    return;
  }
  if (n >= entries.size()) {
    header(entries.size());
    for (const Entry* e : entries) ReplyEntry(ctx, *e, with_values);
    return;
  }
  // n distinct fields in random order: a partial Fisher-Yates shuffle.
  header(n);
  for (size_t i = 0; i < n; ++i) {
    std::uniform_int_distribution<size_t> rest(i, entries.size() - 1);
    std::swap(entries[i], entries[rest(rng)]);
    ReplyEntry(ctx, *entries[i], with_values);
  }
}

// HSCAN key cursor [MATCH pattern] [COUNT count]: one reply (BeginCollectionScan).
void CmdHScan(CommandContext& ctx) {
  std::string_view pattern;
  Object* obj = BeginCollectionScan(ctx, ObjType::kHash, &pattern);
  if (obj == nullptr) return;
  const bool use_pattern = !pattern.empty();
  const HashValue& hash = obj->hash();
  std::vector<const Entry*> matched;
  matched.reserve(use_pattern ? 0 : hash.size());
  for (const Entry& e : hash) {
    if (!use_pattern || GlobMatch(pattern, e.first)) matched.push_back(&e);
  }
  ctx.out.ArrayHeader(2);
  ctx.out.Bulk("0");
  ctx.out.ArrayHeader(static_cast<int64_t>(matched.size() * 2));
  for (const Entry* e : matched) {
    ctx.out.Bulk(e->first);
    ctx.out.Bulk(e->second);
  }
}

}  // namespace

void RegisterHashFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kW = kWrite | kDenyOom;
  // One row per command.
  // clang-format off
  table->Register({
      {"hset", -4, kW | kFast, 1, 1, 1, CmdHSet, "hash", "Set the string value of a hash field"},
      {"hsetnx", 4, kW | kFast, 1, 1, 1, CmdHSetNx, "hash", "Set the value of a hash field, only if the field does not exist"},
      {"hmset", -4, kW | kFast, 1, 1, 1, CmdHMSet, "hash", "Set multiple hash fields to multiple values"},
      {"hget", 3, kReadonly | kFast, 1, 1, 1, CmdHGet, "hash", "Get the value of a hash field"},
      {"hmget", -3, kReadonly | kFast, 1, 1, 1, CmdHMGet, "hash", "Get the values of all the given hash fields"},
      {"hdel", -3, kWrite | kFast, 1, 1, 1, CmdHDel, "hash", "Delete one or more hash fields"},
      {"hlen", 2, kReadonly | kFast, 1, 1, 1, CmdHLen, "hash", "Get the number of fields in a hash"},
      {"hstrlen", 3, kReadonly | kFast, 1, 1, 1, CmdHStrLen, "hash", "Get the length of the value of a hash field"},
      {"hexists", 3, kReadonly | kFast, 1, 1, 1, CmdHExists, "hash", "Determine if a hash field exists"},
      {"hkeys", 2, kReadonly, 1, 1, 1, CmdHKeys, "hash", "Get all the fields in a hash"},
      {"hvals", 2, kReadonly, 1, 1, 1, CmdHVals, "hash", "Get all the values in a hash"},
      {"hgetall", 2, kReadonly, 1, 1, 1, CmdHGetAll, "hash", "Get all the fields and values in a hash"},
      {"hincrby", 4, kW | kFast, 1, 1, 1, CmdHIncrBy, "hash", "Increment the integer value of a hash field by the given number"},
      {"hincrbyfloat", 4, kW | kFast, 1, 1, 1, CmdHIncrByFloat, "hash", "Increment the float value of a hash field by the given amount"},
      {"hrandfield", -2, kReadonly, 1, 1, 1, CmdHRandField, "hash", "Get one or multiple random fields from a hash"},
      {"hscan", -3, kReadonly, 1, 1, 1, CmdHScan, "hash", "Incrementally iterate hash fields and associated values"},
  });
  // clang-format on
}

}  // namespace ordis::server
