// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LREM LTRIM LINSERT
// LPOS LMOVE RPOPLPUSH LMPOP, and the blocking ones: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP.
//
// A blocking command that finds nothing to pop asks to wait (BlockOn); it runs again when a write
// makes one of its keys a list (command/blocking.h). The log records what it did as the
// non-blocking command that does the same (LPOP, LMOVE ...), as Redis propagates it.
//
// A list is a ListValue (std::deque<std::string>): O(1) at both ends and by index. Redis reports
// its encoding as "quicklist" whatever the size, and so does OBJECT ENCODING here.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/blocking_args.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"

namespace ordis::server {
namespace {

enum class End { kLeft, kRight };

// Parses LEFT|RIGHT (case-insensitive).
bool ParseEnd(std::string_view s, End* end) {
  if (EqualsIgnoreCase(s, "left")) {
    *end = End::kLeft;
  } else if (EqualsIgnoreCase(s, "right")) {
    *end = End::kRight;
  } else {
    return false;
  }
  return true;
}

// The position of Redis list index `index` (negative counts from the tail, -1 the last) in a
// list of len elements; false iff it is out of range.
bool ResolveIndex(int64_t index, size_t len, size_t* pos) {
  int64_t n = static_cast<int64_t>(len);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return false;
  *pos = static_cast<size_t>(index);
  return true;
}

// Clamps Redis's [start, stop] range (LRANGE, LTRIM) to a list of len elements. Returns false iff
// the range is empty; otherwise [*first, *last] are valid positions.
bool ResolveRange(int64_t start, int64_t stop, size_t len, size_t* first, size_t* last) {
  int64_t n = static_cast<int64_t>(len);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  if (start > stop || start >= n) return false;
  if (stop >= n) stop = n - 1;
  *first = static_cast<size_t>(start);
  *last = static_cast<size_t>(stop);
  return true;
}

// The keyspace events of a push or pop at end.
std::string_view PushEvent(End end) { return end == End::kLeft ? "lpush" : "rpush"; }
std::string_view PopEvent(End end) { return end == End::kLeft ? "lpop" : "rpop"; }

void PushOne(ListValue& list, End end, std::string_view value) {
  if (end == End::kLeft) {
    list.emplace_front(value);
  } else {
    list.emplace_back(value);
  }
}

// Removes and returns the element at `end` of a non-empty list.
std::string PopOne(ListValue& list, End end) {
  std::string value;
  if (end == End::kLeft) {
    value = std::move(list.front());
    list.pop_front();
  } else {
    value = std::move(list.back());
    list.pop_back();
  }
  return value;
}

// LPUSH / RPUSH key element [element ...], and the X variants that only push to an existing list.
void Push(CommandContext& ctx, End end, bool only_existing) {
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kList, !only_existing, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  ListValue& list = obj->list();
  for (size_t i = 2; i < ctx.args.size(); ++i) PushOne(list, end, ctx.args[i]);
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kList, PushEvent(end), key);
  ctx.out.Integer(static_cast<int64_t>(list.size()));
}

// LPUSH key element [element ...]
void CmdLPush(CommandContext& ctx) { Push(ctx, End::kLeft, false); }
// RPUSH key element [element ...]
void CmdRPush(CommandContext& ctx) { Push(ctx, End::kRight, false); }
// LPUSHX key element [element ...]
void CmdLPushX(CommandContext& ctx) { Push(ctx, End::kLeft, true); }
// RPUSHX key element [element ...]
void CmdRPushX(CommandContext& ctx) { Push(ctx, End::kRight, true); }

// LPOP / RPOP key [count]. Without count: the element, or a null bulk. With count: an array of up
// to count elements; a null array if the key is missing, an empty array for count 0.
void Pop(CommandContext& ctx, End end, std::string_view command) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::WrongArity(command));
    return;
  }
  bool has_count = ctx.args.size() == 3;
  int64_t count = 0;
  if (has_count && (!ParseInt64(ctx.args[2], &count) || count < 0)) {
    ctx.out.Error(errors::kNotPositive);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kList, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    if (has_count) {
      ctx.out.NullArray();
    } else {
      ctx.out.NullBulk();
    }
    return;
  }
  ListValue& list = obj->list();
  if (!has_count) {
    ctx.out.Bulk(PopOne(list, end));
  } else {
    if (count == 0) {
      ctx.out.ArrayHeader(0);
      return;
    }
    size_t n = std::min(static_cast<size_t>(count), list.size());
    ctx.out.ArrayHeader(static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) ctx.out.Bulk(PopOne(list, end));
  }
  ctx.Notify(keyspace_events::kList, PopEvent(end), key);
  FinishCollectionWrite(ctx, key, obj);
}

// LPOP key [count]
void CmdLPop(CommandContext& ctx) { Pop(ctx, End::kLeft, "lpop"); }
// RPOP key [count]
void CmdRPop(CommandContext& ctx) { Pop(ctx, End::kRight, "rpop"); }

// LLEN key
void CmdLLen(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kList, &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(obj == nullptr ? 0 : static_cast<int64_t>(obj->list().size()));
}

// LRANGE key start stop
void CmdLRange(CommandContext& ctx) {
  int64_t start, stop;
  if (!ParseInt64(ctx.args[2], &start) || !ParseInt64(ctx.args[3], &stop)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kList, &wrong_type);
  if (wrong_type) return;
  size_t first, last;
  if (obj == nullptr || !ResolveRange(start, stop, obj->list().size(), &first, &last)) {
    ctx.out.ArrayHeader(0);
    return;
  }
  const ListValue& list = obj->list();
  ctx.out.ArrayHeader(static_cast<int64_t>(last - first + 1));
  for (size_t i = first; i <= last; ++i) ctx.out.Bulk(list[i]);
}

// LINDEX key index. As Redis, a missing key answers nil before the index is parsed.
void CmdLIndex(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kList, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  int64_t index;
  if (!ParseInt64(ctx.args[2], &index)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  size_t pos;
  if (!ResolveIndex(index, obj->list().size(), &pos)) {
    ctx.out.NullBulk();
    return;
  }
  ctx.out.Bulk(obj->list()[pos]);
}

// LSET key index element
void CmdLSet(CommandContext& ctx) {
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kList, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Error(errors::kNoSuchKey);
    return;
  }
  int64_t index;
  if (!ParseInt64(ctx.args[2], &index)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  size_t pos;
  if (!ResolveIndex(index, obj->list().size(), &pos)) {
    ctx.out.Error(errors::kIndexOutOfRange);
    return;
  }
  obj->list()[pos].assign(ctx.args[3]);
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kList, "lset", key);
  ctx.out.Ok();
}

// Removes up to `limit` elements equal to value (0: all of them), scanning from the head, or from
// the tail when from_tail. Returns how many it removed. One pass, order of the rest preserved.
size_t OpRemove(ListValue& list, std::string_view value, size_t limit, bool from_tail) {
  size_t removed = 0;
  auto compact = [&](auto begin, auto end) {
    auto out = begin;
    for (auto it = begin; it != end; ++it) {
      if ((limit == 0 || removed < limit) && *it == value) {
        ++removed;
        continue;
      }
      if (out != it) *out = std::move(*it);
      ++out;
    }
    return out;
  };
  if (from_tail) {
    auto out = compact(list.rbegin(), list.rend());
    list.erase(list.begin(), out.base());
  } else {
    auto out = compact(list.begin(), list.end());
    list.erase(out, list.end());
  }
  return removed;
}

// LREM key count element
void CmdLRem(CommandContext& ctx) {
  int64_t count;
  if (!ParseInt64(ctx.args[2], &count)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kList, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  // count < 0 removes from the tail (negated in unsigned arithmetic: INT64_MIN fits).
  size_t limit = count >= 0 ? static_cast<size_t>(count) : 0 - static_cast<size_t>(count);
  size_t removed = OpRemove(obj->list(), ctx.args[3], limit, count < 0);
  if (removed > 0) {
    ctx.Notify(keyspace_events::kList, "lrem", key);
    FinishCollectionWrite(ctx, key, obj);
  }
  ctx.out.Integer(static_cast<int64_t>(removed));
}

// LTRIM key start stop
void CmdLTrim(CommandContext& ctx) {
  int64_t start, stop;
  if (!ParseInt64(ctx.args[2], &start) || !ParseInt64(ctx.args[3], &stop)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kList, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Ok();
    return;
  }
  ListValue& list = obj->list();
  size_t first, last;
  if (!ResolveRange(start, stop, list.size(), &first, &last)) {
    list.clear();
  } else {
    list.erase(list.begin() + static_cast<ptrdiff_t>(last) + 1, list.end());
    list.erase(list.begin(), list.begin() + static_cast<ptrdiff_t>(first));
  }
  // Redis signals, and raises the event, even when nothing was trimmed.
  ctx.Notify(keyspace_events::kList, "ltrim", key);
  FinishCollectionWrite(ctx, key, obj);
  ctx.out.Ok();
}

// LINSERT key BEFORE|AFTER pivot element
void CmdLInsert(CommandContext& ctx) {
  bool after;
  if (EqualsIgnoreCase(ctx.args[2], "after")) {
    after = true;
  } else if (EqualsIgnoreCase(ctx.args[2], "before")) {
    after = false;
  } else {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kList, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  ListValue& list = obj->list();
  auto it = std::find(list.begin(), list.end(), ctx.args[3]);
  if (it == list.end()) {
    ctx.out.Integer(-1);
    return;
  }
  if (after) ++it;
  list.emplace(it, ctx.args[4]);
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kList, "linsert", key);
  ctx.out.Integer(static_cast<int64_t>(list.size()));
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void CmdLPos(CommandContext& ctx) {
  int64_t rank = 1, count = -1, maxlen = 0;  // count -1: no COUNT option (reply a single index)
  ArgParser p(ctx.args, 3);
  while (p.HasNext() && p.ok()) {
    bool has_value = p.remaining() >= 2;
    if (has_value && p.Accept("RANK")) {
      rank = p.NextInt();
      if (p.ok() && rank == 0) {
        p.Fail(errors::kRankZero);
      }
    } else if (has_value && p.Accept("COUNT")) {
      count = p.NextInt(errors::kCountNegative);
      if (p.ok() && count < 0) p.Fail(errors::kCountNegative);
    } else if (has_value && p.Accept("MAXLEN")) {
      maxlen = p.NextInt(errors::kMaxlenNegative);
      if (p.ok() && maxlen < 0) p.Fail(errors::kMaxlenNegative);
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kList, &wrong_type);
  if (wrong_type) return;
  bool want_array = count != -1;
  if (obj == nullptr) {
    if (want_array) {
      ctx.out.ArrayHeader(0);
    } else {
      ctx.out.NullBulk();
    }
    return;
  }
  const ListValue& list = obj->list();
  bool from_tail = rank < 0;
  // Redis negates a negative rank in a long, so RANK INT64_MIN wraps to itself; the comparisons
  // below use the same wrapping arithmetic to answer as Redis does for it.
  if (from_tail) rank = static_cast<int64_t>(0 - static_cast<uint64_t>(rank));
  int64_t len = static_cast<int64_t>(list.size());
  int64_t matches = 0;
  std::vector<int64_t> found;
  for (int64_t scanned = 0; scanned < len && (maxlen == 0 || scanned < maxlen); ++scanned) {
    int64_t pos = from_tail ? len - 1 - scanned : scanned;
    if (list[static_cast<size_t>(pos)] != ctx.args[2]) continue;
    ++matches;
    if (matches < rank) continue;
    found.push_back(pos);
    if (!want_array) break;
    int64_t taken =
        static_cast<int64_t>(static_cast<uint64_t>(matches) - static_cast<uint64_t>(rank) + 1);
    if (count != 0 && taken >= count) break;
  }
  if (want_array) {
    ctx.out.ArrayHeader(static_cast<int64_t>(found.size()));
    for (int64_t pos : found) ctx.out.Integer(pos);
  } else if (found.empty()) {
    ctx.out.NullBulk();
  } else {
    ctx.out.Integer(found.front());
  }
}

// Pops from `from` of source and pushes to `to` of destination (which may be the same key: the
// list then rotates). Replies the element moved, or nil if source is missing.
void Move(CommandContext& ctx, std::string_view source, std::string_view destination, End from,
          End to) {
  bool wrong_type;
  Object* src = FindCollectionForWrite(ctx, source, ObjType::kList, false, &wrong_type);
  if (wrong_type) return;
  if (src == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  // The destination's type is checked before anything is popped, as Redis does.
  Object* dst = FindCollectionForWrite(ctx, destination, ObjType::kList, true, &wrong_type);
  if (wrong_type) return;
  std::string value = PopOne(src->list(), from);
  PushOne(dst->list(), to, value);
  ctx.out.Bulk(value);
  // Redis's order of events: the push, then the pop (and the source's deletion).
  ctx.Notify(keyspace_events::kList, PushEvent(to), destination);
  ctx.Notify(keyspace_events::kList, PopEvent(from), source);
  FinishCollectionWrite(ctx, source, src);
  if (destination != source) ctx.keyspace().SignalModified(ctx.db(), destination);
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
void CmdLMove(CommandContext& ctx) {
  End from, to;
  if (!ParseEnd(ctx.args[3], &from) || !ParseEnd(ctx.args[4], &to)) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  Move(ctx, ctx.args[1], ctx.args[2], from, to);
}

// RPOPLPUSH source destination
void CmdRPopLPush(CommandContext& ctx) {
  Move(ctx, ctx.args[1], ctx.args[2], End::kRight, End::kLeft);
}

// Pops up to count elements from `end` of the list at key, replying [key, [element ...]] (LMPOP's
// shape) or, single, [key, element] (BLPOP's); logged as LPOP/RPOP key [count].
void PopFromList(CommandContext& ctx, std::string_view key, Object* obj, End end, int64_t count,
                 bool single) {
  ListValue& list = obj->list();
  const size_t n = std::min(static_cast<size_t>(count), list.size());
  ctx.out.ArrayHeader(2);
  ctx.out.Bulk(key);
  if (!single) ctx.out.ArrayHeader(static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) ctx.out.Bulk(PopOne(list, end));
  ctx.Notify(keyspace_events::kList, PopEvent(end), key);
  FinishCollectionWrite(ctx, key, obj);
  if (ctx.propagate != nullptr) {
    *ctx.propagate = {end == End::kLeft ? "lpop" : "rpop", std::string(key)};
    if (!single) ctx.propagate->push_back(std::to_string(n));
  }
}

// BLPOP / BRPOP key [key ...] timeout
void BlockingPop(CommandContext& ctx, End end) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(ctx, ctx.args.back(), TimeoutUnit::kSeconds, &timeout_ms)) return;
  std::span<const std::string_view> keys = ctx.args.subspan(1, ctx.args.size() - 2);
  size_t index;
  bool wrong_type;
  Object* obj = FirstCollectionForWrite(ctx, keys, ObjType::kList, &index, &wrong_type);
  if (wrong_type) return;
  if (obj != nullptr) {
    PopFromList(ctx, keys[index], obj, end, 1, /*single=*/true);
    return;
  }
  if (BlockOn(ctx, keys, timeout_ms, ObjType::kList)) return;
  ctx.out.NullArray();
}

// BLPOP key [key ...] timeout
void CmdBLPop(CommandContext& ctx) { BlockingPop(ctx, End::kLeft); }
// BRPOP key [key ...] timeout
void CmdBRPop(CommandContext& ctx) { BlockingPop(ctx, End::kRight); }

// LMPOP / BLMPOP's arguments after the timeout: numkeys key [key ...] LEFT|RIGHT [COUNT count].
void MultiPop(CommandContext& ctx, std::span<const std::string_view> args,
              std::optional<int64_t> timeout_ms) {
  MPopArgs parsed;
  if (!ParseMPopArgs(ctx, args, "left", "right", &parsed)) return;
  const End end = parsed.second ? End::kRight : End::kLeft;
  size_t index;
  bool wrong_type;
  Object* obj = FirstCollectionForWrite(ctx, parsed.keys, ObjType::kList, &index, &wrong_type);
  if (wrong_type) return;
  if (obj != nullptr) {
    PopFromList(ctx, parsed.keys[index], obj, end, parsed.count, /*single=*/false);
    return;
  }
  if (timeout_ms && BlockOn(ctx, parsed.keys, *timeout_ms, ObjType::kList)) return;
  ctx.out.NullArray();
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
void CmdLMPop(CommandContext& ctx) { MultiPop(ctx, ctx.args.subspan(1), std::nullopt); }

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
void CmdBLMPop(CommandContext& ctx) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(ctx, ctx.args[1], TimeoutUnit::kSeconds, &timeout_ms)) return;
  MultiPop(ctx, ctx.args.subspan(2), timeout_ms);
}

// BLMOVE / BRPOPLPUSH: LMOVE once source holds a list. Where it may not block, a missing source
// replies a null bulk, as LMOVE (a timeout replies a null array).
void BlockingMove(CommandContext& ctx, End from, End to, std::string_view timeout) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(ctx, timeout, TimeoutUnit::kSeconds, &timeout_ms)) return;
  const std::string_view source = ctx.args[1];
  bool wrong_type;
  Object* src = FindCollectionForWrite(ctx, source, ObjType::kList, false, &wrong_type);
  if (wrong_type) return;
  if (src == nullptr) {
    if (BlockOn(ctx, ctx.args.subspan(1, 1), timeout_ms, ObjType::kList)) return;
    ctx.out.NullBulk();
    return;
  }
  Move(ctx, source, ctx.args[2], from, to);
  if (ctx.propagate != nullptr) {
    *ctx.propagate = {"lmove", std::string(source), std::string(ctx.args[2]),
                      from == End::kLeft ? "left" : "right", to == End::kLeft ? "left" : "right"};
  }
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
void CmdBLMove(CommandContext& ctx) {
  End from, to;
  if (!ParseEnd(ctx.args[3], &from) || !ParseEnd(ctx.args[4], &to)) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  BlockingMove(ctx, from, to, ctx.args[5]);
}

// BRPOPLPUSH source destination timeout
void CmdBRPopLPush(CommandContext& ctx) { BlockingMove(ctx, End::kRight, End::kLeft, ctx.args[3]); }

}  // namespace

void RegisterListFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"lpush", -3, kWrite | kDenyOom | kFast, 1, 1, 1, CmdLPush, "list", "Prepend one or multiple elements to a list"},
      {"rpush", -3, kWrite | kDenyOom | kFast, 1, 1, 1, CmdRPush, "list", "Append one or multiple elements to a list"},
      {"lpushx", -3, kWrite | kDenyOom | kFast, 1, 1, 1, CmdLPushX, "list", "Prepend an element to a list, only if the list exists"},
      {"rpushx", -3, kWrite | kDenyOom | kFast, 1, 1, 1, CmdRPushX, "list", "Append an element to a list, only if the list exists"},
      {"lpop", -2, kWrite | kFast, 1, 1, 1, CmdLPop, "list", "Remove and get the first elements in a list"},
      {"rpop", -2, kWrite | kFast, 1, 1, 1, CmdRPop, "list", "Remove and get the last elements in a list"},
      {"llen", 2, kReadonly | kFast, 1, 1, 1, CmdLLen, "list", "Get the length of a list"},
      {"lrange", 4, kReadonly, 1, 1, 1, CmdLRange, "list", "Get a range of elements from a list"},
      {"lindex", 3, kReadonly, 1, 1, 1, CmdLIndex, "list", "Get an element from a list by its index"},
      {"lset", 4, kWrite | kDenyOom, 1, 1, 1, CmdLSet, "list", "Set the value of an element in a list by its index"},
      {"lrem", 4, kWrite, 1, 1, 1, CmdLRem, "list", "Remove elements from a list"},
      {"ltrim", 4, kWrite, 1, 1, 1, CmdLTrim, "list", "Trim a list to the specified range"},
      {"linsert", 5, kWrite | kDenyOom, 1, 1, 1, CmdLInsert, "list", "Insert an element before or after another element in a list"},
      {"lpos", -3, kReadonly, 1, 1, 1, CmdLPos, "list", "Return the index of matching elements on a list"},
      {"lmove", 5, kWrite | kDenyOom, 1, 2, 1, CmdLMove, "list", "Pop an element from a list, push it to another list and return it"},
      {"rpoplpush", 3, kWrite | kDenyOom, 1, 2, 1, CmdRPopLPush, "list", "Remove the last element in a list, prepend it to another list and return it"},
      {"lmpop", -4, kWrite, 0, 0, 0, CmdLMPop, "list", "Pop elements from a list", {}, 1},
      {"blpop", -3, kWrite | kNoScript | kBlocking, 1, -2, 1, CmdBLPop, "list", "Remove and get the first element in a list, or block until one is available"},
      {"brpop", -3, kWrite | kNoScript | kBlocking, 1, -2, 1, CmdBRPop, "list", "Remove and get the last element in a list, or block until one is available"},
      {"blmove", 6, kWrite | kDenyOom | kNoScript | kBlocking, 1, 2, 1, CmdBLMove, "list", "Pop an element from a list, push it to another list and return it; or block until one is available"},
      {"brpoplpush", 4, kWrite | kDenyOom | kNoScript | kBlocking, 1, 2, 1, CmdBRPopLPush, "list", "Pop an element from a list, push it to another list and return it; or block until one is available"},
      {"blmpop", -5, kWrite | kBlocking, 0, 0, 0, CmdBLMPop, "list", "Pop elements from a list, or block until one is available", {}, 2},
  });
  // clang-format on
}

}  // namespace ordis::server
