// Stream commands: XADD XRANGE XREVRANGE XLEN XDEL XTRIM XREAD XREADGROUP XSETID XINFO, with Redis
// 7.0's replies and errors (t_stream.c). Consumer-group commands are in stream_group_family.cc.
//
// The append-only log records what replays the effect (ctx.propagate), as Redis propagates it:
// XADD with the ID it generated and an approximate trim as the exact one it amounted to
// (MAXLEN = <length after> / MINID = <first ID after>, LIMIT dropped); XREADGROUP without BLOCK
// (it reads the same entries again from the same state; delivery times become the replay's); the
// other commands as they are.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/stream_access.h"

namespace ordis::server {

bool ParseStreamUint(std::string_view s, uint64_t* out) {
  int64_t v;
  if (ParseInt64(s, &v)) {
    if (v < 0) return false;
    *out = static_cast<uint64_t>(v);
    return true;
  }
  if (s.empty()) return false;
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  *out = std::strtoull(text.c_str(), &end, 10);
  return errno != EINVAL && errno != ERANGE && *end == '\0';
}

bool ParseStreamId(std::string_view arg, uint64_t missing_seq, bool strict, bool* seq_given,
                   StreamId* id) {
  if (arg.size() > 127) return false;
  // Redis copies the argument into a C string: it ends at a NUL byte.
  arg = arg.substr(0, arg.find('\0'));
  if (strict && (arg == "-" || arg == "+")) return false;
  if (seq_given != nullptr) *seq_given = true;
  if (arg == "-") {
    *id = {};
    return true;
  }
  if (arg == "+") {
    *id = StreamId::Max();
    return true;
  }
  const size_t dash = arg.find('-');
  if (!ParseStreamUint(arg.substr(0, dash), &id->ms)) return false;
  if (dash == std::string_view::npos) {
    id->seq = missing_seq;
    return true;
  }
  std::string_view seq = arg.substr(dash + 1);
  if (seq_given != nullptr && seq == "*") {
    id->seq = 0;
    *seq_given = false;
    return true;
  }
  return ParseStreamUint(seq, &id->seq);
}

bool ParseIntervalId(std::string_view arg, uint64_t missing_seq, StreamId* id, bool* exclusive) {
  *exclusive = arg.size() > 1 && arg[0] == '(';
  if (*exclusive) return ParseStreamId(arg.substr(1), missing_seq, true, nullptr, id);
  return ParseStreamId(arg, missing_seq, false, nullptr, id);
}

namespace {

using Trim = StreamValue::Trim;

// The stream at key for a write (created when create), or nullptr: missing (nothing replied), or
// another type (WRONGTYPE replied, *wrong_type set).
Object* StreamForWrite(CommandContext& ctx, std::string_view key, bool create, bool* wrong_type) {
  return FindCollectionForWrite(ctx, key, ObjType::kStream, create, wrong_type);
}

// --- XADD / XTRIM arguments (streamParseAddOrTrimArgsOrReply) ---

struct AddTrimArgs {
  bool has_trim = false;
  Trim trim;
  size_t threshold_at = 0;  // the MAXLEN count's or MINID ID's position
  bool nomkstream = false;
  bool id_given = false;
  bool seq_given = true;
  StreamId id;
};

// Returns the position of XADD's ID (of the end for XTRIM), or 0 after replying an error.
size_t ParseAddTrim(CommandContext& ctx, bool xadd, AddTrimArgs* a) {
  const auto& args = ctx.args;
  bool limit_given = false;
  // MAXLEN's and LIMIT's count: an integer, not negative.
  auto parse_count = [&](std::string_view arg, std::string_view negative, int64_t* n) {
    if (!ParseInt64(arg, n)) {
      ctx.out.Error(errors::kNotInteger);
      return false;
    }
    if (*n < 0) {
      ctx.out.Error(negative);
      return false;
    }
    return true;
  };
  size_t i = 2;
  for (; i < args.size(); ++i) {
    const size_t more = args.size() - 1 - i;
    std::string_view opt = args[i];
    if (xadd && opt == "*") break;
    const bool maxlen = EqualsIgnoreCase(opt, "maxlen");
    if ((maxlen || EqualsIgnoreCase(opt, "minid")) && more > 0) {
      if (a->has_trim) {
        ctx.out.Error(errors::kMaxLenAndMinId);
        return 0;
      }
      a->trim.approx = false;
      std::string_view next = args[i + 1];
      if (more >= 2 && next == "~") {
        a->trim.approx = true;
        ++i;
      } else if (more >= 2 && next == "=") {
        ++i;
      }
      if (maxlen) {
        int64_t n;
        if (!parse_count(args[i + 1], errors::kStreamMaxLenNegative, &n)) return 0;
        a->trim.by = StreamValue::TrimBy::kMaxLen;
        a->trim.maxlen = static_cast<uint64_t>(n);
      } else {
        if (!ParseStrictStreamId(args[i + 1], &a->trim.minid)) {
          ctx.out.Error(errors::kInvalidStreamId);
          return 0;
        }
        a->trim.by = StreamValue::TrimBy::kMinId;
      }
      ++i;
      a->has_trim = true;
      a->threshold_at = i;
    } else if (EqualsIgnoreCase(opt, "limit") && more > 0) {
      int64_t n;
      if (!parse_count(args[i + 1], errors::kStreamLimitNegative, &n)) return 0;
      a->trim.limit = n;
      limit_given = true;
      ++i;
    } else if (xadd && EqualsIgnoreCase(opt, "nomkstream")) {
      a->nomkstream = true;
    } else if (xadd) {
      // An option we do not know, or the ID.
      if (!ParseStreamId(opt, 0, true, &a->seq_given, &a->id)) {
        ctx.out.Error(errors::kInvalidStreamId);
        return 0;
      }
      a->id_given = true;
      break;
    } else {
      ctx.out.Error(errors::kSyntax);
      return 0;
    }
  }
  if (a->trim.limit != 0 && !a->has_trim) {
    ctx.out.Error(errors::kLimitWithoutStrategy);
    return 0;
  }
  if (!xadd && !a->has_trim) {
    ctx.out.Error(errors::kXTrimWithoutStrategy);
    return 0;
  }
  if (limit_given) {
    if (!a->trim.approx) {
      ctx.out.Error(errors::kLimitWithoutApprox);
      return 0;
    }
  } else if (a->trim.approx) {
    // Redis's default work limit for ~: 100 blocks' worth.
    const int64_t entries = ctx.config().stream_node_max_entries();
    a->trim.limit = entries > 0 && entries <= 10000 ? 100 * entries : 10000;
  } else {
    a->trim.limit = 0;
  }
  return i;
}

// The trim as the log records it: exact, to where the approximate one left the stream.
void AppendExactTrim(const AddTrimArgs& a, const StreamValue& s, std::vector<std::string>* out) {
  if (a.trim.by == StreamValue::TrimBy::kMaxLen) {
    out->push_back("MAXLEN");
    out->push_back("=");
    out->push_back(std::to_string(a.trim.approx ? s.size() : a.trim.maxlen));
  } else {
    out->push_back("MINID");
    out->push_back("=");
    // An approximate trim that emptied the stream is every ID's trim (the first ID of an empty
    // stream is 0-0, which would trim nothing on replay), as Redis logs it.
    const StreamId to = !a.trim.approx ? a.trim.minid : s.empty() ? StreamId::Max() : s.first_id();
    out->push_back(to.ToString());
  }
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [...]
void CmdXAdd(CommandContext& ctx) {
  AddTrimArgs a;
  const size_t id_at = ParseAddTrim(ctx, true, &a);
  if (id_at == 0) return;
  const size_t fields_at = id_at + 1;
  if (ctx.args.size() < fields_at + 2 || (ctx.args.size() - fields_at) % 2 == 1) {
    ctx.out.Error(errors::WrongArity("xadd"));
    return;
  }
  if (a.id_given && a.seq_given && a.id.IsZero()) {
    ctx.out.Error(errors::kXAddIdZero);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = StreamForWrite(ctx, key, !a.nomkstream, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  StreamValue& s = obj->stream();
  const StreamId last = s.last_id();
  if (last == StreamId::Max()) {
    ctx.out.Error(errors::kStreamExhausted);
    return;
  }
  StreamId id;
  if (!a.id_given) {
    if (static_cast<uint64_t>(ctx.now_ms) > last.ms) {
      id = {static_cast<uint64_t>(ctx.now_ms), 0};
    } else {
      id = last;
      id.Increment();
    }
  } else if (a.seq_given) {
    id = a.id;
  } else if (a.id.ms == last.ms) {
    if (last.seq == UINT64_MAX) {
      ctx.out.Error(errors::kStreamElementsTooLarge);  // Redis 7.0.15's answer to the overflow
      return;
    }
    id = {last.ms, last.seq + 1};
  } else {
    id = a.id;
  }
  if (id <= last) {
    ctx.out.Error(errors::kXAddIdTooSmall);
    return;
  }
  size_t total = 0;
  for (size_t i = fields_at; i < ctx.args.size(); ++i) total += ctx.args[i].size();
  if (total > (size_t{1} << 30)) {
    ctx.out.Error(errors::kStreamElementsTooLarge);
    return;
  }
  s.Append(id, ctx.args.subspan(fields_at), NodeLimits(ctx.config()));
  ReplyStreamId(ctx.out, id);
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kStream, "xadd", key);
  if (a.has_trim && s.TrimEntries(a.trim) > 0) ctx.Notify(keyspace_events::kStream, "xtrim", key);
  if (ctx.propagate != nullptr) {
    std::vector<std::string>& p = *ctx.propagate;
    p = {"XADD", std::string(key)};
    if (a.nomkstream) p.push_back("NOMKSTREAM");
    if (a.has_trim) AppendExactTrim(a, s, &p);
    p.push_back(id.ToString());
    for (size_t i = fields_at; i < ctx.args.size(); ++i) p.emplace_back(ctx.args[i]);
  }
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
void CmdXTrim(CommandContext& ctx) {
  AddTrimArgs a;
  if (ParseAddTrim(ctx, false, &a) == 0) return;
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = StreamForWrite(ctx, key, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  StreamValue& s = obj->stream();
  const int64_t removed = s.TrimEntries(a.trim);
  if (removed > 0) {
    ctx.Notify(keyspace_events::kStream, "xtrim", key);
    ctx.keyspace().SignalModified(ctx.db(), key);
  }
  // Logged as the exact trim it amounted to, a trim that removed nothing too (the write lookup
  // counts as a change): verbatim, an approximate one replayed under other node limits trims.
  if (ctx.propagate != nullptr) {
    *ctx.propagate = {"XTRIM", std::string(key)};
    AppendExactTrim(a, s, ctx.propagate);
  }
  ctx.out.Integer(removed);
}

// XRANGE key start end [COUNT count], XREVRANGE key end start [COUNT count]
void Range(CommandContext& ctx, bool reverse) {
  std::string_view start_arg = reverse ? ctx.args[3] : ctx.args[2];
  std::string_view end_arg = reverse ? ctx.args[2] : ctx.args[3];
  StreamId start, end;
  bool exclusive;
  if (!ParseIntervalId(start_arg, 0, &start, &exclusive)) {
    ctx.out.Error(errors::kInvalidStreamId);
    return;
  }
  if (exclusive && !start.Increment()) {
    ctx.out.Error(errors::kInvalidStartId);
    return;
  }
  if (!ParseIntervalId(end_arg, UINT64_MAX, &end, &exclusive)) {
    ctx.out.Error(errors::kInvalidStreamId);
    return;
  }
  if (exclusive && !end.Decrement()) {
    ctx.out.Error(errors::kInvalidEndId);
    return;
  }
  int64_t count = -1;
  for (size_t j = 4; j < ctx.args.size(); ++j) {
    if (EqualsIgnoreCase(ctx.args[j], "count") && j + 1 < ctx.args.size()) {
      if (!ParseInt64(ctx.args[j + 1], &count)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 0;
      ++j;
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  // After the key's lookup, as Redis: a missing key is an empty array, a wrong type an error.
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kStream, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.ArrayHeader(0);
    return;
  }
  if (count == 0) {
    ctx.out.NullArray();
    return;
  }
  resp::OutBuffer body;
  resp::Writer w(&body);
  w.set_protocol(ctx.out.protocol());
  int64_t n = 0;
  obj->stream().Range(start, end, reverse, [&](StreamId id, StreamFields fields) {
    ReplyStreamEntry(w, id, fields);
    return ++n != count;
  });
  ctx.out.ArrayHeader(n);
  body.MoveTo(ctx.out.out());
}

void CmdXRange(CommandContext& ctx) { Range(ctx, false); }
void CmdXRevRange(CommandContext& ctx) { Range(ctx, true); }

// XLEN key
void CmdXLen(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kStream, &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(obj == nullptr ? 0 : static_cast<int64_t>(obj->stream().size()));
}

// XDEL key id [id ...]
void CmdXDel(CommandContext& ctx) {
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = StreamForWrite(ctx, key, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  std::vector<StreamId> ids(ctx.args.size() - 2);
  for (size_t j = 2; j < ctx.args.size(); ++j) {
    if (!ParseStrictStreamId(ctx.args[j], &ids[j - 2])) {
      ctx.out.Error(errors::kInvalidStreamId);
      return;
    }
  }
  int64_t deleted = 0;
  for (StreamId id : ids) deleted += obj->stream().Delete(id) ? 1 : 0;
  if (deleted > 0) {
    ctx.keyspace().SignalModified(ctx.db(), key);
    ctx.Notify(keyspace_events::kStream, "xdel", key);
  }
  ctx.out.Integer(deleted);
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
void CmdXSetId(CommandContext& ctx) {
  StreamId id, max_deleted;
  int64_t entries_added = -1;
  if (!ParseStrictStreamId(ctx.args[2], &id)) {
    ctx.out.Error(errors::kInvalidStreamId);
    return;
  }
  for (size_t i = 3; i < ctx.args.size(); i += 2) {
    const bool more = i + 1 < ctx.args.size();
    if (EqualsIgnoreCase(ctx.args[i], "entriesadded") && more) {
      if (!ParseInt64(ctx.args[i + 1], &entries_added)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      if (entries_added < 0) {
        ctx.out.Error(errors::kEntriesAddedNegative);
        return;
      }
    } else if (EqualsIgnoreCase(ctx.args[i], "maxdeletedid") && more) {
      if (!ParseStrictStreamId(ctx.args[i + 1], &max_deleted)) {
        ctx.out.Error(errors::kInvalidStreamId);
        return;
      }
      if (id < max_deleted) {
        ctx.out.Error(errors::kXSetIdBelowGivenMaxDeleted);
        return;
      }
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = StreamForWrite(ctx, key, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Error(errors::kNoSuchKey);
    return;
  }
  StreamValue& s = obj->stream();
  if (!s.empty()) {
    if (id < s.LastLiveId()) {
      ctx.out.Error(errors::kXSetIdBelowTop);
      return;
    }
    if (entries_added != -1 && s.size() > static_cast<uint64_t>(entries_added)) {
      ctx.out.Error(errors::kXSetIdEntriesAddedBelowLength);
      return;
    }
  }
  s.set_last_id(id);
  if (entries_added != -1) s.set_entries_added(static_cast<uint64_t>(entries_added));
  if (!max_deleted.IsZero()) s.set_max_deleted_id(max_deleted);
  ctx.out.Ok();
  ctx.keyspace().SignalModified(ctx.db(), key);
  ctx.Notify(keyspace_events::kStream, "xsetid", key);
}

// --- XREAD / XREADGROUP ---

// A group's entries-read: nil when it is not known.
void ReplyEntriesRead(resp::Writer& out, const StreamGroup& g) {
  if (g.entries_read != StreamGroup::kInvalidEntriesRead) {
    out.Integer(g.entries_read);
  } else {
    out.NullBulk();
  }
}

// A group's lag (streamReplyWithCGLag): null when it cannot be known.
void ReplyLag(resp::Writer& out, const StreamValue& s, const StreamGroup& g) {
  if (s.entries_added() == 0) {
    out.Integer(0);
    return;
  }
  if (g.entries_read != StreamGroup::kInvalidEntriesRead && !s.RangeHasTombstones(&g.last_id)) {
    out.Integer(static_cast<int64_t>(s.entries_added()) - g.entries_read);
    return;
  }
  const int64_t read = s.EstimateDistance(g.last_id);
  if (read == StreamGroup::kInvalidEntriesRead) {
    out.NullBulk();
  } else {
    out.Integer(static_cast<int64_t>(s.entries_added()) - read);
  }
}

// Replies with the entries after `after` (count 0: all) and, for a group, records them as
// delivered to consumer (unless noack) and moves the group's last ID (streamReplyWithRange).
void ServeNew(resp::Writer& out, StreamValue& s, StreamId after, int64_t count, StreamGroup* group,
              StreamConsumer* consumer, bool noack, int64_t now_ms) {
  resp::OutBuffer body;
  resp::Writer w(&body);
  w.set_protocol(out.protocol());
  int64_t n = 0;
  StreamId start = after;
  if (!start.Increment()) {
    out.ArrayHeader(0);
    return;
  }
  // Group bookkeeping needs the IDs after the visit (the visit's views die with a change).
  std::vector<StreamId> delivered;
  s.Range(start, StreamId::Max(), false, [&](StreamId id, StreamFields fields) {
    ReplyStreamEntry(w, id, fields);
    if (group != nullptr) delivered.push_back(id);
    return ++n != count;
  });
  for (StreamId id : delivered) {
    if (id > group->last_id) {
      if (group->entries_read != StreamGroup::kInvalidEntriesRead && !s.RangeHasTombstones(&id)) {
        ++group->entries_read;
      } else if (s.entries_added() != 0) {
        group->entries_read = s.EstimateDistance(id);
      }
      group->last_id = id;
    }
    if (noack) continue;
    auto [it, inserted] = group->pel.try_emplace(id, StreamNack{consumer, now_ms, 1});
    if (!inserted) {
      // Already pending (XGROUP SETID moved the group back): it moves to this consumer.
      it->second.consumer->pending.erase(id);
      it->second = StreamNack{consumer, now_ms, 1};
    }
    consumer->pending.insert(id);
  }
  out.ArrayHeader(n);
  body.MoveTo(out.out());
}

// A consumer's own pending entries from `after` on (count 0: all), each delivered again; entries
// no longer in the stream come as [id, nil] (streamReplyWithRangeFromConsumerPEL).
void ServeHistory(resp::Writer& out, const StreamValue& s, StreamGroup& group,
                  StreamConsumer& consumer, StreamId after, int64_t count, int64_t now_ms) {
  resp::OutBuffer body;
  resp::Writer w(&body);
  w.set_protocol(out.protocol());
  int64_t n = 0;
  StreamId start = after;
  if (start.Increment()) {
    for (auto it = consumer.pending.lower_bound(start);
         it != consumer.pending.end() && (count == 0 || n < count); ++it) {
      if (ReplyEntryIfPresent(w, s, *it)) {
        StreamNack& nack = group.pel.at(*it);
        nack.delivery_time = now_ms;
        ++nack.delivery_count;
      } else {
        w.ArrayHeader(2);
        ReplyStreamId(w, *it);
        w.NullArray();
      }
      ++n;
    }
  }
  out.ArrayHeader(n);
  body.MoveTo(out.out());
}

constexpr int64_t kBlockedDefaultCount = 1000;  // Redis's XREAD_BLOCKED_DEFAULT_COUNT

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...]
//   id [id ...]
void ReadStreams(CommandContext& ctx, bool xreadgroup) {
  const auto& args = ctx.args;
  int64_t timeout = -1;  // no BLOCK
  int64_t count = 0;
  size_t streams_at = 0, streams = 0;
  bool noack = false, count_given = false;
  std::string_view group_name, consumer_name;
  bool has_group = false;
  for (size_t i = 1; i < args.size(); ++i) {
    const size_t more = args.size() - i - 1;
    std::string_view o = args[i];
    if (EqualsIgnoreCase(o, "block") && more > 0) {
      if (ctx.from_script) {  // Redis's own error, rather than answering as a timeout
        ctx.out.Error(std::string(xreadgroup ? "ERR xreadgroup" : "ERR xread") +
                      " command is not allowed with BLOCK option from scripts");
        return;
      }
      ++i;
      if (!ParseInt64(args[i], &timeout)) {
        ctx.out.Error(errors::kTimeoutNotInteger);
        return;
      }
      if (timeout < 0) {
        ctx.out.Error(errors::kTimeoutNegative);
        return;
      }
    } else if (EqualsIgnoreCase(o, "count") && more > 0) {
      ++i;
      if (!ParseInt64(args[i], &count)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 0;
      count_given = true;
    } else if (EqualsIgnoreCase(o, "streams") && more > 0) {
      streams_at = i + 1;
      streams = args.size() - streams_at;
      if (streams % 2 != 0) {
        ctx.out.Error(errors::kUnbalancedStreams);  // Redis 7.0's one text, XREADGROUP's too
        return;
      }
      streams /= 2;
      break;
    } else if (EqualsIgnoreCase(o, "group") && more >= 2) {
      if (!xreadgroup) {
        ctx.out.Error(errors::kGroupOnlyXReadGroup);
        return;
      }
      group_name = args[i + 1];
      consumer_name = args[i + 2];
      has_group = true;
      i += 2;
    } else if (EqualsIgnoreCase(o, "noack")) {
      if (!xreadgroup) {
        ctx.out.Error(errors::kNoAckOnlyXReadGroup);
        return;
      }
      noack = true;
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  if (streams_at == 0) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  if (xreadgroup && !has_group) {
    ctx.out.Error(errors::kMissingGroup);
    return;
  }
  // XREADGROUP changes the groups it reads: its keys are found for writing.
  auto lookup = [&](std::string_view key) -> Object* {
    if (!xreadgroup) return LookupRead(ctx, key);
    return CountRead(ctx, key, ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms));
  };
  std::vector<StreamId> ids(streams);
  std::vector<bool> dollar(streams, false), greater(streams, false);
  for (size_t k = 0; k < streams; ++k) {
    std::string_view key = args[streams_at + k];
    std::string_view id_arg = args[streams_at + streams + k];
    Object* obj = lookup(key);
    if (obj != nullptr && obj->type() != ObjType::kStream) {
      ctx.out.Error(errors::kWrongType);
      return;
    }
    if (has_group && (obj == nullptr ||
                      obj->stream().groups().find(group_name) == obj->stream().groups().end())) {
      // Run again for a waiter (its key is there: a deleted one ends it before): the group went.
      if (ctx.block != nullptr && ctx.block->rerun) {
        ctx.out.Error(errors::kGroupDestroyedWhileBlocked);
        return;
      }
      ctx.out.Error(errors::NoSuchKeyOrGroup(key, group_name, " in XREADGROUP with GROUP option"));
      return;
    }
    if (id_arg == "$") {
      if (xreadgroup) {
        ctx.out.Error(errors::kDollarInXReadGroup);
        return;
      }
      ids[k] = obj != nullptr ? obj->stream().last_id() : StreamId{};
      dollar[k] = true;
      continue;
    }
    if (id_arg == ">") {
      if (!xreadgroup) {
        ctx.out.Error(errors::kGreaterOnlyXReadGroup);
        return;
      }
      ids[k] = StreamId::Max();
      greater[k] = true;
      continue;
    }
    if (!ParseStrictStreamId(id_arg, &ids[k])) {
      ctx.out.Error(errors::kInvalidStreamId);
      return;
    }
  }

  resp::OutBuffer body;
  resp::Writer w(&body);
  w.set_protocol(ctx.out.protocol());
  int64_t served = 0;
  bool changed = false;
  for (size_t k = 0; k < streams; ++k) {
    std::string_view key = args[streams_at + k];
    Object* obj = lookup(key);
    if (obj == nullptr) continue;
    StreamValue& s = obj->stream();
    StreamId gt = ids[k];
    bool serve = false, history = false;
    StreamGroup* group = nullptr;
    StreamConsumer* consumer = nullptr;
    if (has_group) {
      group = &s.groups().find(group_name)->second;
      if (!greater[k]) {
        serve = history = true;
      } else if (!s.empty() && s.LastLiveId() > group->last_id) {
        serve = true;
        gt = group->last_id;
      }
    } else if (!s.empty() && s.LastLiveId() > gt) {
      serve = true;
    }
    if (!serve) continue;
    if (group != nullptr) {
      // The consumer is made (and seen) only when it is served, as Redis 7.0.15 does.
      bool created = false;
      consumer = group->CreateConsumer(consumer_name, ctx.now_ms, &created);
      if (created) ctx.Notify(keyspace_events::kStream, "xgroup-createconsumer", key);
      consumer->seen_time = ctx.now_ms;
      changed = true;
    }
    ++served;
    if (w.protocol() == 2) w.ArrayHeader(2);
    w.Bulk(key);
    if (history) {
      ServeHistory(w, s, *group, *consumer, gt, count, ctx.now_ms);
    } else {
      ServeNew(w, s, gt, count, group, consumer, noack, ctx.now_ms);
    }
  }
  if (changed) {
    ctx.keyspace().CountChange();  // Redis does not signal WATCH for a group's bookkeeping
    if (ctx.propagate != nullptr) {
      // The command again without BLOCK: from the same state it delivers the same entries.
      std::vector<std::string>& p = *ctx.propagate;
      p.clear();
      for (size_t i = 0; i < args.size(); ++i) {
        if (i < streams_at && EqualsIgnoreCase(args[i], "block")) {
          ++i;
          continue;
        }
        p.emplace_back(args[i]);
      }
    }
  }
  if (served > 0) {
    if (w.protocol() == 2) {
      ctx.out.ArrayHeader(served);
    } else {
      ctx.out.MapHeader(served);
    }
    body.MoveTo(ctx.out.out());
    return;
  }
  if (timeout == -1 || ctx.block == nullptr) {
    ctx.out.NullArray();
    return;
  }
  // Nothing to serve: wait for the keys. The command runs again as it would serve newer entries:
  // $ resolved to the last ID it saw, a COUNT when there was none.
  BlockRequest& b = *ctx.block;
  b.blocked = true;
  b.keys.assign(args.begin() + static_cast<ptrdiff_t>(streams_at),
                args.begin() + static_cast<ptrdiff_t>(streams_at + streams));
  b.timeout_ms = timeout;
  b.type = ObjType::kStream;
  b.unblock_on_delete = xreadgroup;
  b.args.clear();
  for (size_t i = 0; i < args.size(); ++i) {
    if (i == streams_at - 1 && !count_given) {
      b.args.push_back("COUNT");
      b.args.push_back(std::to_string(kBlockedDefaultCount));
    }
    if (i >= streams_at + streams && dollar[i - streams_at - streams]) {
      b.args.push_back(ids[i - streams_at - streams].ToString());
    } else {
      b.args.emplace_back(args[i]);
    }
  }
}

void CmdXRead(CommandContext& ctx) { ReadStreams(ctx, false); }
void CmdXReadGroup(CommandContext& ctx) { ReadStreams(ctx, true); }

// --- XINFO ---

// The stream at args[2] for XINFO, or nullptr after replying (no such key, WRONGTYPE).
const StreamValue* InfoStream(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[2], ObjType::kStream, &wrong_type);
  if (wrong_type) return nullptr;
  if (obj == nullptr) {
    ctx.out.Error(errors::kNoSuchKey);
    return nullptr;
  }
  return &obj->stream();
}

// XINFO STREAM key [FULL [COUNT count]]
void CmdXInfoStream(CommandContext& ctx) {
  const StreamValue* s = InfoStream(ctx);
  if (s == nullptr) return;
  const auto& args = ctx.args;
  bool full = false;
  int64_t count = 10;
  if (args.size() > 3) {
    if (!EqualsIgnoreCase(args[3], "full")) {
      ctx.out.Error(errors::SubcommandSyntax("xinfo", args[1]));
      return;
    }
    full = true;
    if (args.size() > 4) {
      if (args.size() != 6 || !EqualsIgnoreCase(args[4], "count")) {
        ctx.out.Error(errors::SubcommandSyntax("xinfo", args[1]));
        return;
      }
      if (!ParseInt64(args[5], &count)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 0;
    }
  }
  resp::Writer& out = ctx.out;
  out.MapHeader(full ? 9 : 10);
  out.Bulk("length");
  out.Integer(static_cast<int64_t>(s->size()));
  out.Bulk("radix-tree-keys");
  out.Integer(static_cast<int64_t>(s->block_count()));
  out.Bulk("radix-tree-nodes");
  out.Integer(static_cast<int64_t>(s->RadixTreeNodes()));
  out.Bulk("last-generated-id");
  ReplyStreamId(out, s->last_id());
  out.Bulk("max-deleted-entry-id");
  ReplyStreamId(out, s->max_deleted_id());
  out.Bulk("entries-added");
  out.Integer(static_cast<int64_t>(s->entries_added()));
  out.Bulk("recorded-first-entry-id");
  ReplyStreamId(out, s->first_id());
  if (!full) {
    out.Bulk("groups");
    out.Integer(static_cast<int64_t>(s->groups().size()));
    for (bool reverse : {false, true}) {
      out.Bulk(reverse ? "last-entry" : "first-entry");
      bool emitted = false;
      s->Range({}, StreamId::Max(), reverse, [&](StreamId id, StreamFields fields) {
        ReplyStreamEntry(out, id, fields);
        emitted = true;
        return false;
      });
      if (!emitted) out.NullBulk();
    }
    return;
  }
  out.Bulk("entries");
  {
    resp::OutBuffer body;
    resp::Writer w(&body);
    w.set_protocol(out.protocol());
    int64_t n = 0;
    s->Range({}, StreamId::Max(), false, [&](StreamId id, StreamFields fields) {
      ReplyStreamEntry(w, id, fields);
      return ++n != count;
    });
    out.ArrayHeader(n);
    body.MoveTo(out.out());
  }
  out.Bulk("groups");
  out.ArrayHeader(static_cast<int64_t>(s->groups().size()));
  auto limited = [&](size_t n) {
    return static_cast<int64_t>(count == 0 ? n : std::min<size_t>(n, static_cast<size_t>(count)));
  };
  for (const auto& [name, g] : s->groups()) {
    out.MapHeader(7);
    out.Bulk("name");
    out.Bulk(name);
    out.Bulk("last-delivered-id");
    ReplyStreamId(out, g.last_id);
    out.Bulk("entries-read");
    ReplyEntriesRead(out, g);
    out.Bulk("lag");
    ReplyLag(out, *s, g);
    out.Bulk("pel-count");
    out.Integer(static_cast<int64_t>(g.pel.size()));
    out.Bulk("pending");
    int64_t left = limited(g.pel.size());
    out.ArrayHeader(left);
    for (auto it = g.pel.begin(); left > 0; ++it, --left) {
      out.ArrayHeader(4);
      ReplyStreamId(out, it->first);
      out.Bulk(it->second.consumer->name);
      out.Integer(it->second.delivery_time);
      out.Integer(static_cast<int64_t>(it->second.delivery_count));
    }
    out.Bulk("consumers");
    out.ArrayHeader(static_cast<int64_t>(g.consumers.size()));
    for (const auto& [cname, c] : g.consumers) {
      out.MapHeader(4);
      out.Bulk("name");
      out.Bulk(cname);
      out.Bulk("seen-time");
      out.Integer(c.seen_time);
      out.Bulk("pel-count");
      out.Integer(static_cast<int64_t>(c.pending.size()));
      out.Bulk("pending");
      int64_t mine = limited(c.pending.size());
      out.ArrayHeader(mine);
      for (auto it = c.pending.begin(); mine > 0; ++it, --mine) {
        const StreamNack& nack = g.pel.at(*it);
        out.ArrayHeader(3);
        ReplyStreamId(out, *it);
        out.Integer(nack.delivery_time);
        out.Integer(static_cast<int64_t>(nack.delivery_count));
      }
    }
  }
}

// XINFO GROUPS key
void CmdXInfoGroups(CommandContext& ctx) {
  const StreamValue* s = InfoStream(ctx);
  if (s == nullptr) return;
  resp::Writer& out = ctx.out;
  out.ArrayHeader(static_cast<int64_t>(s->groups().size()));
  for (const auto& [name, g] : s->groups()) {
    out.MapHeader(6);
    out.Bulk("name");
    out.Bulk(name);
    out.Bulk("consumers");
    out.Integer(static_cast<int64_t>(g.consumers.size()));
    out.Bulk("pending");
    out.Integer(static_cast<int64_t>(g.pel.size()));
    out.Bulk("last-delivered-id");
    ReplyStreamId(out, g.last_id);
    out.Bulk("entries-read");
    ReplyEntriesRead(out, g);
    out.Bulk("lag");
    ReplyLag(out, *s, g);
  }
}

// XINFO CONSUMERS key group
void CmdXInfoConsumers(CommandContext& ctx) {
  const StreamValue* s = InfoStream(ctx);
  if (s == nullptr) return;
  auto it = s->groups().find(ctx.args[3]);
  if (it == s->groups().end()) {
    ctx.out.Error(errors::NoSuchGroupForKey(ctx.args[3], ctx.args[2]));
    return;
  }
  resp::Writer& out = ctx.out;
  out.ArrayHeader(static_cast<int64_t>(it->second.consumers.size()));
  for (const auto& [name, c] : it->second.consumers) {
    out.MapHeader(3);
    out.Bulk("name");
    out.Bulk(name);
    out.Bulk("pending");
    out.Integer(static_cast<int64_t>(c.pending.size()));
    out.Bulk("idle");
    const int64_t idle = ctx.now_ms - c.seen_time;
    out.Integer(idle > 0 ? idle : 0);
  }
}

// XINFO HELP
void CmdXInfoHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CONSUMERS <key> <groupname>",
      "    Show consumers of <groupname>.",
      "GROUPS <key>",
      "    Show the stream consumer groups.",
      "STREAM <key> [FULL [COUNT <count>]",
      "    Show information about the stream.",
      "HELP",
      "    Prints this help."};
  ReplyHelp(ctx.out, kHelp);
}

}  // namespace

void RegisterStreamFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"xadd", -5, kWrite | kDenyOom | kFast, 1, 1, 1, CmdXAdd, "stream", "Appends a new entry to a stream"},
      {"xtrim", -4, kWrite, 1, 1, 1, CmdXTrim, "stream", "Deletes messages from the beginning of a stream."},
      {"xrange", -4, kReadonly, 1, 1, 1, CmdXRange, "stream", "Return a range of elements in a stream, with IDs matching the specified IDs interval"},
      {"xrevrange", -4, kReadonly, 1, 1, 1, CmdXRevRange, "stream", "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE"},
      {"xlen", 2, kReadonly | kFast, 1, 1, 1, CmdXLen, "stream", "Return the number of entries in a stream"},
      {"xdel", -3, kWrite | kFast, 1, 1, 1, CmdXDel, "stream", "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist."},
      {"xsetid", -3, kWrite | kDenyOom | kFast, 1, 1, 1, CmdXSetId, "stream", "An internal command for replicating stream values"},
      {"xread", -4, kReadonly | kBlocking, 0, 0, 0, CmdXRead, "stream", "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
       {}, 0, "streams", 1},
      {"xreadgroup", -7, kWrite | kBlocking, 0, 0, 0, CmdXReadGroup, "stream", "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
       {}, 0, "streams", 4},
      {"xinfo", -2, 0, 0, 0, 0, nullptr, "stream", "A container for stream introspection commands",
       {
           {"xinfo|consumers", 4, kReadonly, 2, 2, 1, CmdXInfoConsumers, "stream", "List the consumers in a consumer group"},
           {"xinfo|groups", 3, kReadonly, 2, 2, 1, CmdXInfoGroups, "stream", "List the consumer groups of a stream"},
           {"xinfo|stream", -3, kReadonly, 2, 2, 1, CmdXInfoStream, "stream", "Get information about a stream"},
           {"xinfo|help", 2, kLoading | kStale, 0, 0, 0, CmdXInfoHelp, "stream", "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
