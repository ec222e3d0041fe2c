// HyperLogLog commands: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST. The values are strings in
// Redis 7.0's byte format (server/types/hyperloglog.h), changed in place: a dense value a few
// bytes at a time, a sparse one edited in a scratch copy and written back, so that a command
// that fails on a corrupt value has changed nothing.
#include <optional>
#include <string>

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/string_access.h"
#include "server/types/hyperloglog.h"

namespace ordis::server {
namespace {

using keyspace_events::kString;

constexpr std::string_view kNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr std::string_view kCorruptHll = "INVALIDOBJ Corrupted HLL object detected";
constexpr size_t kDefaultSparseLimit = 3000;

// hll-sparse-max-bytes, read (a string under the configuration's lock) at most once per command
// and only when a sparse value grows.
class SparseLimitReader {
 public:
  explicit SparseLimitReader(CommandContext& ctx) : ctx_(ctx) {}
  size_t operator()() const {
    if (!value_) {
      int64_t v = 0;
      const bool ok = ParseInt64(ctx_.config().Value("hll-sparse-max-bytes"), &v) && v >= 0;
      value_ = ok ? static_cast<size_t>(v) : kDefaultSparseLimit;
    }
    return *value_;
  }

 private:
  CommandContext& ctx_;
  mutable std::optional<size_t> value_;
};

// Where sparse values are edited: its capacity stays with the thread.
std::string& Scratch() {
  thread_local std::string scratch;
  return scratch;
}

std::string_view Bytes(const Object* obj, IntText* scratch) { return obj->StringBytes(scratch); }

// The bytes of obj, an HLL: false after replying WRONGTYPE or that it is not an HLL.
bool HllBytes(CommandContext& ctx, const Object* obj, IntText* scratch, std::string_view* value) {
  if (obj->type() != ObjType::kString) {
    ctx.out.Error(errors::kWrongType);
    return false;
  }
  *value = Bytes(obj, scratch);
  if (hll::IsHll(*value)) return true;
  ctx.out.Error(kNotHll);
  return false;
}

// The HLL at key found by a read, now to change in place (a cold value is promoted), made raw as
// Redis's dbUnshareStringValue makes it: an embstr from SET or RESTORE shows "raw" afterwards.
// Commands read first and write only when they must, so that a PFADD of counted elements or a
// PFCOUNT of a cached count is not a change to the log or to rdb_changes_since_last_save (Redis
// neither propagates nor counts them).
Object* HllForWrite(CommandContext& ctx, std::string_view key) {
  Object* obj = ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms);
  if (obj != nullptr) obj->WriteString(0, {});
  return obj;
}

bool IsRaw(const Object* obj) { return obj->encoding() == ObjEncoding::kRaw; }

void Patch(Object* obj, const hll::BytePatch& patch) {
  obj->WriteString(patch.offset, patch.bytes());
}
void Patch(std::string* value, const hll::BytePatch& patch) {
  value->replace(patch.offset, patch.size, patch.bytes());
}

// Replaces the value of obj (a raw string at key, from FindForWrite) with value.
void Replace(CommandContext& ctx, std::string_view key, Object* obj, std::string_view value) {
  if (value.size() >= obj->StringSize()) {
    obj->WriteString(0, value);
  } else if (!obj->TryAssignString(value, StringRule::kRaw)) {
    StoreString(ctx, key, value, obj->expire_at_ms(), obj, StringRule::kRaw);
  }
}

// The registers of every HLL at keys, max-merged into max: false after replying when one is not
// a valid HLL. A missing key is an empty HLL. dense: whether one of them is dense.
bool MergeKeys(CommandContext& ctx, std::span<const std::string_view> keys, uint8_t* max,
               bool* dense) {
  for (std::string_view key : keys) {
    const Object* obj = LookupRead(ctx, key);
    if (obj == nullptr) continue;
    IntText scratch;
    std::string_view value;
    if (!HllBytes(ctx, obj, &scratch, &value)) return false;
    if (hll::EncodingOf(value) == hll::Encoding::kDense) *dense = true;
    if (!hll::MergeMax(value, max)) {
      ctx.out.Error(kCorruptHll);
      return false;
    }
  }
  return true;
}

// PFADD of a key the read found nothing at: a new HLL.
void PfAddNew(CommandContext& ctx, std::string_view key,
              std::span<const std::string_view> elements) {
  // Deletes an expired key first, as Redis's lookupKeyWrite does ("expired", then "new").
  ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms);
  std::string value = hll::NewHll();
  const SparseLimitReader limit(ctx);
  for (std::string_view e : elements) hll::Add(&value, e, limit);  // a new value is valid
  Patch(&value, hll::StaleCachePatch(value));
  StoreString(ctx, key, value, kNoExpire, nullptr, StringRule::kRaw);
  ctx.Notify(kString, "pfadd", key);
  ctx.out.Integer(1);
}

// After PFADD changed the HLL at key.
void PfAddDone(CommandContext& ctx, std::string_view key, bool updated) {
  if (updated) {
    ctx.keyspace().SignalModified(ctx.db(), key);
    ctx.Notify(kString, "pfadd", key);
  }
  ctx.out.Integer(updated ? 1 : 0);
}

// PFADD key [element ...]
void CmdPfAdd(CommandContext& ctx) {
  const std::string_view key = ctx.args[1];
  const auto elements = ctx.args.subspan(2);
  Object* found = ctx.keyspace().Find(ctx.db(), key, ctx.now_ms, ctx.expired);
  if (found == nullptr) {
    PfAddNew(ctx, key, elements);
    return;
  }
  RecordAccess(ctx, found);
  IntText scratch;
  std::string_view value;
  if (!HllBytes(ctx, found, &scratch, &value)) return;
  if (hll::EncodingOf(value) == hll::Encoding::kDense) {
    // The elements before the first that raises a register raise none after it either.
    size_t first = 0;
    while (first < elements.size()) {
      const hll::Observation o = hll::Observe(elements[first]);
      if (o.rank > hll::DenseRegister(value, o.index)) break;
      ++first;
    }
    if (first == elements.size() && IsRaw(found)) {
      ctx.out.Integer(0);
      return;
    }
    Object* obj = HllForWrite(ctx, key);
    if (obj == nullptr) {  // a cold value whose record could not be read back: gone
      PfAddNew(ctx, key, elements);
      return;
    }
    value = Bytes(obj, &scratch);
    for (size_t i = first; i < elements.size(); ++i) {
      const hll::Observation o = hll::Observe(elements[i]);
      if (o.rank <= hll::DenseRegister(value, o.index)) continue;
      Patch(obj, hll::DenseRegisterPatch(value, o.index, o.rank));
      value = Bytes(obj, &scratch);
    }
    const bool updated = first < elements.size();
    if (updated && hll::CacheValid(value)) Patch(obj, hll::StaleCachePatch(value));
    PfAddDone(ctx, key, updated);
    return;
  }
  std::string& edited = Scratch();
  edited.assign(value);
  const SparseLimitReader limit(ctx);
  bool updated = false;
  for (std::string_view e : elements) {
    const hll::Update u = hll::Add(&edited, e, limit);
    if (u == hll::Update::kCorrupt) {
      ctx.out.Error(kCorruptHll);
      return;
    }
    updated |= u == hll::Update::kChanged;
  }
  if (!updated && IsRaw(found)) {
    ctx.out.Integer(0);
    return;
  }
  Object* obj = HllForWrite(ctx, key);
  if (obj == nullptr) {
    PfAddNew(ctx, key, elements);
    return;
  }
  if (updated) Replace(ctx, key, obj, edited);
  PfAddDone(ctx, key, updated);
}

// PFCOUNT key [key ...]: of one key, its count, cached in the value (which is why it runs under
// the exclusive lock); of several, the count of their union, changing none of them.
void CmdPfCount(CommandContext& ctx) {
  if (ctx.args.size() > 2) {
    uint8_t max[hll::kRegisters] = {};
    bool dense = false;
    if (!MergeKeys(ctx, ctx.args.subspan(1), max, &dense)) return;
    ctx.out.Integer(static_cast<int64_t>(hll::CountRegisters(max)));
    return;
  }
  const std::string_view key = ctx.args[1];
  const Object* found = LookupRead(ctx, key);
  if (found == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  IntText scratch;
  std::string_view value;
  if (!HllBytes(ctx, found, &scratch, &value)) return;
  if (hll::CacheValid(value) && IsRaw(found)) {
    ctx.out.Integer(static_cast<int64_t>(hll::CachedCardinality(value)));
    return;
  }
  Object* obj = HllForWrite(ctx, key);
  if (obj == nullptr) {  // a cold value whose record could not be read back: gone
    ctx.out.Integer(0);
    return;
  }
  value = Bytes(obj, &scratch);
  if (hll::CacheValid(value)) {
    ctx.out.Integer(static_cast<int64_t>(hll::CachedCardinality(value)));
    return;
  }
  uint64_t card = 0;
  if (!hll::Count(value, &card)) {
    ctx.out.Error(kCorruptHll);
    return;
  }
  Patch(obj, hll::CachePatch(card));
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.out.Integer(static_cast<int64_t>(card));  // 2^63, an overflowed estimate, as Redis: negative
}

// PFMERGE destkey [sourcekey ...]: the destination's registers count among the sources'.
void CmdPfMerge(CommandContext& ctx) {
  uint8_t max[hll::kRegisters] = {};
  bool dense = false;
  if (!MergeKeys(ctx, ctx.args.subspan(1), max, &dense)) return;
  const std::string_view key = ctx.args[1];
  Object* dest = ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms);
  std::string& value = Scratch();
  if (dest != nullptr) {
    IntText scratch;
    value.assign(Bytes(dest, &scratch));  // an HLL: MergeKeys checked it
  } else {
    value = hll::NewHll();
  }
  const SparseLimitReader limit(ctx);
  // A valid value (MergeKeys read it): turning dense cannot fail, nor can raising registers.
  if (dense) hll::ToDense(&value);
  for (size_t i = 0; i < hll::kRegisters; ++i) {
    if (max[i] != 0) hll::Raise(&value, i, max[i], limit);
  }
  Patch(&value, hll::StaleCachePatch(value));
  if (dest != nullptr) {
    Replace(ctx, key, dest, value);
    ctx.keyspace().SignalModified(ctx.db(), key);
  } else {
    StoreString(ctx, key, value, kNoExpire, nullptr, StringRule::kRaw);
  }
  // Redis raises PFADD's event: a merge adds elements.
  ctx.Notify(kString, "pfadd", key);
  ctx.out.Ok();
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key
void CmdPfDebug(CommandContext& ctx) {
  const std::string_view sub = ctx.args[1];
  const std::string_view key = ctx.args[2];
  Object* found = ctx.keyspace().Find(ctx.db(), key, ctx.now_ms, ctx.expired);
  if (found == nullptr) {
    ctx.out.Error("ERR The specified key does not exist");
    return;
  }
  RecordAccess(ctx, found);
  IntText scratch;
  std::string_view value;
  if (!HllBytes(ctx, found, &scratch, &value)) return;
  const bool sparse = hll::EncodingOf(value) == hll::Encoding::kSparse;
  const bool to_dense =
      sparse && (EqualsIgnoreCase(sub, "getreg") || EqualsIgnoreCase(sub, "todense"));
  std::string& edited = Scratch();
  if (to_dense) {
    edited.assign(value);
    if (!hll::ToDense(&edited)) {
      ctx.out.Error(kCorruptHll);
      return;
    }
  }
  if (to_dense || !IsRaw(found)) {
    Object* obj = HllForWrite(ctx, key);
    if (obj == nullptr) {  // a cold value whose record could not be read back: gone
      ctx.out.Error("ERR The specified key does not exist");
      return;
    }
    if (to_dense) {
      Replace(ctx, key, obj, edited);
      // Logged and counted as unsaved, not signalled to WATCH: Redis only bumps its dirty count.
      ctx.keyspace().CountChange();
    }
    value = Bytes(obj, &scratch);
  }
  if (EqualsIgnoreCase(sub, "getreg")) {
    ctx.out.ArrayHeader(hll::kRegisters);
    for (size_t i = 0; i < hll::kRegisters; ++i) ctx.out.Integer(hll::DenseRegister(value, i));
  } else if (EqualsIgnoreCase(sub, "decode")) {
    if (!sparse) {
      ctx.out.Error("ERR HLL encoding is not sparse");
      return;
    }
    ctx.out.Bulk(hll::DecodeSparse(value));
  } else if (EqualsIgnoreCase(sub, "encoding")) {
    ctx.out.SimpleString(sparse ? "sparse" : "dense");
  } else if (EqualsIgnoreCase(sub, "todense")) {
    ctx.out.Integer(to_dense ? 1 : 0);
  } else {
    ctx.out.Error("ERR Unknown PFDEBUG subcommand '" + std::string(sub) + "'");
  }
}

// PFSELFTEST
void CmdPfSelfTest(CommandContext& ctx) {
  const std::string failure = hll::SelfTest(SparseLimitReader(ctx)());
  if (failure.empty()) {
    ctx.out.Ok();
  } else {
    ctx.out.Error("ERR " + failure);
  }
}

}  // namespace

void RegisterHyperLogLogFamily(CommandTable* table) {
  using namespace cmd;
  // PFCOUNT is a read to Redis (readonly, may_replicate) that writes the cache of one key.
  constexpr uint32_t kCountFlags = kReadonly | kMayReplicate | kExclusiveLock;
  // clang-format off
  table->Register({
      {"pfadd", -2, kWrite | kDenyOom | kFast, 1, 1, 1, CmdPfAdd, "hyperloglog", "Adds the specified elements to the specified HyperLogLog."},
      {"pfcount", -2, kCountFlags, 1, -1, 1, CmdPfCount, "hyperloglog", "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s)."},
      {"pfmerge", -2, kWrite | kDenyOom, 1, -1, 1, CmdPfMerge, "hyperloglog", "Merge N different HyperLogLogs into a single one."},
      {"pfdebug", 3, kWrite | kDenyOom | kAdmin, 2, 2, 1, CmdPfDebug, "hyperloglog", "Internal commands for debugging HyperLogLog values"},
      {"pfselftest", 1, kAdmin, 0, 0, 0, CmdPfSelfTest, "hyperloglog", "An internal command for testing HyperLogLog values"},
  });
  // clang-format on
}

}  // namespace ordis::server
