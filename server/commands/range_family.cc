// Commands that walk the ordered keyspace: KRANGE and KCOUNT (ordis's own), KEYS, SCAN, RANDOMKEY.
// Keys are ordered by memcmp; every walk seeks in the index rather than visiting the whole db.
#include <string>
#include <vector>

#include "base/glob.h"
#include "server/command/acl_bridge.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"
#include "server/types/lex_bound.h"

namespace ordis::server {

namespace {

using index::Direction;
using index::ScanStart;

// Where a walk over [min, max] begins in the given direction.
ScanStart StartOf(const LexBound& min, const LexBound& max, Direction dir) {
  const LexBound& from = dir == Direction::kForward ? min : max;
  switch (from.kind) {
    case LexBound::kInclusive:
      return ScanStart::At(from.key);
    case LexBound::kExclusive:
      return ScanStart::After(from.key);
    default:
      return ScanStart::Edge();
  }
}

// Visits live keys in [min, max] in direction order until visit returns false.
template <typename Visit>
void WalkRange(CommandContext& ctx, const LexBound& min, const LexBound& max, Direction dir,
               Visit visit) {
  if (min.kind == LexBound::kPlusInf || max.kind == LexBound::kMinusInf) return;
  ctx.keyspace().Scan(
      ctx.db(), StartOf(min, max, dir), dir, ctx.now_ms,
      [&](std::string_view key, Object* obj) {
        bool inside = dir == Direction::kForward ? max.AllowsAsMax(key) : min.AllowsAsMin(key);
        return inside && visit(key, obj);
      },
      ctx.expired);
}

// KRANGE min max [REV] [LIMIT offset count] [WITHVALUES]
// With REV the first bound is the upper one, as in ZRANGE ... BYLEX REV.
void CmdKRange(CommandContext& ctx) {
  bool rev = false, with_values = false;
  int64_t offset = 0, count = -1;
  ArgParser p(ctx.args, 3);
  while (p.HasNext() && p.ok()) {
    if (p.Accept("REV")) {
      rev = true;
    } else if (p.Accept("WITHVALUES")) {
      with_values = true;
    } else if (p.Accept("LIMIT")) {
      if (p.remaining() < 2) {
        p.Fail(errors::kSyntax);
        break;
      }
      offset = p.NextInt();
      count = p.NextInt();
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return;
  }
  LexBound min, max;
  if (!ParseLexBound(ctx.args[rev ? 2 : 1], &min) || !ParseLexBound(ctx.args[rev ? 1 : 2], &max)) {
    ctx.out.Error(errors::kInvalidLexRange);
    return;
  }
  std::vector<std::pair<std::string, Object*>> found;
  if (offset >= 0 && count != 0) {
    WalkRange(ctx, min, max, rev ? Direction::kReverse : Direction::kForward,
              [&](std::string_view key, Object* obj) {
                if (offset > 0) {
                  --offset;
                  return true;
                }
                found.emplace_back(std::string(key), obj);
                return count < 0 || static_cast<int64_t>(found.size()) < count;
              });
  }
  if (with_values) {
    // The values are of keys no argument names: the user must be allowed to read each one.
    const int command_id = ctx.client.last_command_id.load(std::memory_order_relaxed);
    for (const auto& [key, obj] : found) {
      if (!ClientMayRead(ctx.client, command_id, key)) {
        Bump(ctx.stats()[Stat::kAclDeniedKey]);
        ctx.out.Error(errors::kNoPermKey);
        return;
      }
    }
  }
  resp::Writer& out = ctx.out;
  bool pairs = with_values && out.protocol() == 3;
  out.ArrayHeader(static_cast<int64_t>(found.size() * (with_values && !pairs ? 2 : 1)));
  for (const auto& [key, obj] : found) {
    if (pairs) out.ArrayHeader(2);
    out.Bulk(key);
    if (with_values) {
      const Object* value =
          obj->type() == ObjType::kString ? ctx.keyspace().Resident(ctx.db(), key, obj) : nullptr;
      if (value != nullptr) {
        IntText scratch;
        out.Bulk(value->StringBytes(&scratch));
      } else {
        out.NullBulk();  // KRANGE lists every key; only strings have a plain value (or lost)
      }
    }
  }
}

// KCOUNT min max
void CmdKCount(CommandContext& ctx) {
  LexBound min, max;
  if (!ParseLexBound(ctx.args[1], &min) || !ParseLexBound(ctx.args[2], &max)) {
    ctx.out.Error(errors::kInvalidLexRange);
    return;
  }
  int64_t n = 0;
  WalkRange(ctx, min, max, Direction::kForward, [&](std::string_view, Object*) {
    ++n;
    return true;
  });
  ctx.out.Integer(n);
}

// KEYS pattern
void CmdKeys(CommandContext& ctx) {
  std::string_view pattern = ctx.args[1];
  std::string_view prefix = GlobLiteralPrefix(pattern);
  std::vector<std::string> found;
  // Every match starts with the literal prefix: seek to it and stop once past it.
  ctx.keyspace().Scan(
      ctx.db(), prefix.empty() ? ScanStart::Edge() : ScanStart::At(prefix), Direction::kForward,
      ctx.now_ms,
      [&](std::string_view key, Object*) {
        if (key.substr(0, prefix.size()) != prefix) return false;
        if (GlobMatch(pattern, key)) found.emplace_back(key);
        return true;
      },
      ctx.expired);
  ctx.out.ArrayHeader(static_cast<int64_t>(found.size()));
  for (const auto& k : found) ctx.out.Bulk(k);
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
// Walks keys in key order; COUNT bounds the keys examined per call, as in Redis.
void CmdScan(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!ParseScanCursor(ctx.args[1], &cursor)) {
    ctx.out.Error(errors::kInvalidCursor);
    return;
  }
  std::string_view pattern;
  std::string_view type;
  bool use_pattern = false, use_type = false;
  int64_t count = 10;
  ArgParser p(ctx.args, 2);
  while (p.HasNext() && p.ok()) {
    if (p.Accept("MATCH") && p.HasNext()) {
      pattern = p.Next();
      use_pattern = pattern != "*";
    } else if (p.Accept("COUNT") && p.HasNext()) {
      count = p.NextInt();
      if (p.ok() && count < 1) p.Fail(errors::kSyntax);
    } else if (p.Accept("TYPE") && p.HasNext()) {
      type = p.Next();
      use_type = true;
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return;
  }
  std::string resume_after;
  bool resume = false;
  if (cursor != 0) {
    auto saved = ctx.services.scan_cursors.Load(cursor);
    if (!saved) {
      ctx.out.Error(errors::kInvalidCursor);
      return;
    }
    resume_after = std::move(*saved);
    resume = true;
  }
  std::string_view prefix = use_pattern ? GlobLiteralPrefix(pattern) : std::string_view();
  ScanStart start = ScanStart::Edge();
  if (resume && resume_after >= prefix) {
    start = ScanStart::After(resume_after);
  } else if (!prefix.empty()) {
    start = ScanStart::At(prefix);
  }
  std::vector<std::string> found;
  std::string last;
  int64_t examined = 0;
  bool more = false;
  ctx.keyspace().Scan(
      ctx.db(), start, Direction::kForward, ctx.now_ms,
      [&](std::string_view key, Object* obj) {
        if (key.substr(0, prefix.size()) != prefix) return false;  // past every match
        if (examined == count) {
          more = true;
          return false;
        }
        ++examined;
        last.assign(key);
        if (use_pattern && !GlobMatch(pattern, key)) return true;
        if (use_type && !EqualsIgnoreCase(type, TypeName(obj->type()))) return true;
        found.emplace_back(key);
        return true;
      },
      ctx.expired);
  uint64_t next = more ? ctx.services.scan_cursors.Save(std::move(last)) : 0;
  ctx.out.ArrayHeader(2);
  ctx.out.Bulk(std::to_string(next));
  ctx.out.ArrayHeader(static_cast<int64_t>(found.size()));
  for (const auto& k : found) ctx.out.Bulk(k);
}

// RANDOMKEY
void CmdRandomKey(CommandContext& ctx) {
  std::string key;
  if (ctx.keyspace().RandomKey(ctx.db(), ctx.now_ms, &key)) {
    ctx.out.Bulk(key);
  } else {
    ctx.out.NullBulk();
  }
}

}  // namespace

void RegisterRangeFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"krange", -3, kReadonly, 0, 0, 0, CmdKRange, "generic",
       "Return the keys of the selected database in a lexicographical range (ordis)"},
      {"kcount", 3, kReadonly, 0, 0, 0, CmdKCount, "generic",
       "Count the keys of the selected database in a lexicographical range (ordis)"},
      {"keys", 2, kReadonly | kKeyspaceWide, 0, 0, 0, CmdKeys, "generic",
       "Find all keys matching the given pattern"},
      {"scan", -2, kReadonly | kKeyspaceWide, 0, 0, 0, CmdScan, "generic",
       "Incrementally iterate the keys space"},
      {"randomkey", 1, kReadonly | kExclusiveLock, 0, 0, 0, CmdRandomKey, "generic",
       "Return a random key from the keyspace"},
  });
  // clang-format on
}

}  // namespace ordis::server
