// Consumer-group commands: XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER HELP) XACK
// XPENDING XCLAIM XAUTOCLAIM, with Redis 7.0's replies and errors (t_stream.c). XREADGROUP is in
// stream_family.cc with XREAD.
//
// Group bookkeeping that Redis does not signal to WATCH (XACK, XCLAIM, XGROUP CREATE on an existing
// stream ...) is counted as a change (Keyspace::CountChange) so the log records it. XCLAIM and
// XAUTOCLAIM are logged as one XCLAIM of the entries they claimed or dropped from the PEL, with
// min-idle-time 0 and the delivery time they set (TIME), so a replay later than the original claims
// the same entries (Redis propagates one XCLAIM per entry, to the same effect).
#include <string>
#include <vector>

#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/stream_access.h"

namespace ordis::server {
namespace {

// A stream key looked up as Redis's lookupKeyRead counts it, for a command that may change its
// groups. nullptr when missing; *wrong_type set (and WRONGTYPE replied) for another type.
Object* StreamForGroupWrite(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  *wrong_type = false;
  Object* obj = CountRead(ctx, key, ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms));
  if (obj != nullptr && obj->type() != ObjType::kStream) {
    *wrong_type = true;
    ctx.out.Error(errors::kWrongType);
    return nullptr;
  }
  return obj;
}

StreamGroup* FindGroup(Object* obj, std::string_view name) {
  if (obj == nullptr) return nullptr;
  auto& groups = obj->stream().groups();
  auto it = groups.find(name);
  return it == groups.end() ? nullptr : &it->second;
}

// --- XGROUP ---

// ENTRIESREAD n from args[from] on, MKSTREAM too when create. False after replying.
bool ParseGroupOptions(CommandContext& ctx, bool create, bool* mkstream, int64_t* entries_read) {
  for (size_t i = 5; i < ctx.args.size();) {
    if (create && EqualsIgnoreCase(ctx.args[i], "mkstream")) {
      *mkstream = true;
      ++i;
    } else if (EqualsIgnoreCase(ctx.args[i], "entriesread") && i + 1 < ctx.args.size()) {
      if (!ParseInt64(ctx.args[i + 1], entries_read)) {
        ctx.out.Error(errors::kNotInteger);
        return false;
      }
      if (*entries_read < 0 && *entries_read != StreamGroup::kInvalidEntriesRead) {
        ctx.out.Error(errors::kEntriesReadNegative);
        return false;
      }
      i += 2;
    } else {
      ctx.out.Error(errors::SubcommandSyntax("xgroup", ctx.args[1]));
      return false;
    }
  }
  return true;
}

// The checks every XGROUP subcommand with a key makes: the key must exist (unless mkstream) and
// hold a stream, and group_required subcommands need the group. False after replying.
bool GroupPrelude(CommandContext& ctx, bool mkstream, bool group_required, Object** obj,
                  StreamGroup** group) {
  std::string_view key = ctx.args[2];
  *obj = ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms);
  if (*obj != nullptr && (*obj)->type() != ObjType::kStream) {
    ctx.out.Error(errors::kWrongType);
    return false;
  }
  if (*obj != nullptr) RecordAccess(ctx, *obj);
  *group = FindGroup(*obj, ctx.args[3]);
  if (mkstream) return true;
  if (*obj == nullptr) {
    ctx.out.Error(errors::kXGroupKeyMissing);
    return false;
  }
  if (*group == nullptr && group_required) {
    ctx.out.Error(errors::NoSuchGroupForKey(ctx.args[3], key));
    return false;
  }
  return true;
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD entries-read]
void CmdXGroupCreate(CommandContext& ctx) {
  bool mkstream = false;
  int64_t entries_read = StreamGroup::kInvalidEntriesRead;
  if (!ParseGroupOptions(ctx, true, &mkstream, &entries_read)) return;
  Object* obj;
  StreamGroup* group;
  if (!GroupPrelude(ctx, mkstream, false, &obj, &group)) return;
  if (ctx.args.size() > 8) {
    ctx.out.Error(errors::SubcommandSyntax("xgroup", ctx.args[1]));
    return;
  }
  std::string_view key = ctx.args[2];
  StreamId id;
  if (ctx.args[4] == "$") {
    if (obj != nullptr) id = obj->stream().last_id();
  } else if (!ParseStrictStreamId(ctx.args[4], &id)) {
    ctx.out.Error(errors::kInvalidStreamId);
    return;
  }
  if (obj == nullptr) {
    auto fresh = NewObject(ObjType::kStream);
    fresh->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
    obj = ctx.keyspace().Set(ctx.db(), key, std::move(fresh));
  }
  auto [it, inserted] = obj->stream().groups().try_emplace(std::string(ctx.args[3]));
  if (!inserted) {
    ctx.out.Error(errors::kBusyGroup);
    return;
  }
  it->second.last_id = id;
  it->second.entries_read = entries_read;
  ctx.keyspace().CountChange();
  ctx.out.Ok();
  ctx.Notify(keyspace_events::kStream, "xgroup-create", key);
}

// XGROUP SETID key group id|$ [ENTRIESREAD entries-read]
void CmdXGroupSetId(CommandContext& ctx) {
  bool mkstream = false;
  int64_t entries_read = StreamGroup::kInvalidEntriesRead;
  if (!ParseGroupOptions(ctx, false, &mkstream, &entries_read)) return;
  Object* obj;
  StreamGroup* group;
  if (!GroupPrelude(ctx, false, true, &obj, &group)) return;
  if (ctx.args.size() != 5 && ctx.args.size() != 7) {
    ctx.out.Error(errors::SubcommandSyntax("xgroup", ctx.args[1]));
    return;
  }
  StreamId id;
  if (ctx.args[4] == "$") {
    id = obj->stream().last_id();
  } else if (!ParseStreamId(ctx.args[4], 0, false, nullptr, &id)) {
    ctx.out.Error(errors::kInvalidStreamId);
    return;
  }
  group->last_id = id;
  group->entries_read = entries_read;
  ctx.keyspace().CountChange();
  ctx.out.Ok();
  ctx.Notify(keyspace_events::kStream, "xgroup-setid", ctx.args[2]);
}

// XGROUP DESTROY key group
void CmdXGroupDestroy(CommandContext& ctx) {
  Object* obj;
  StreamGroup* group;
  if (!GroupPrelude(ctx, false, false, &obj, &group)) return;
  if (group == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  obj->stream().groups().erase(std::string(ctx.args[3]));
  // Signalled (Redis only marks the key ready) so that clients blocked in XREADGROUP on the group
  // run again and learn it is gone.
  ctx.keyspace().SignalModified(ctx.db(), ctx.args[2]);
  ctx.out.Integer(1);
  ctx.Notify(keyspace_events::kStream, "xgroup-destroy", ctx.args[2]);
}

// XGROUP CREATECONSUMER key group consumer
void CmdXGroupCreateConsumer(CommandContext& ctx) {
  Object* obj;
  StreamGroup* group;
  if (!GroupPrelude(ctx, false, true, &obj, &group)) return;
  bool created = false;
  group->CreateConsumer(ctx.args[4], ctx.now_ms, &created);
  if (created) {
    ctx.keyspace().CountChange();
    ctx.Notify(keyspace_events::kStream, "xgroup-createconsumer", ctx.args[2]);
  }
  ctx.out.Integer(created ? 1 : 0);
}

// XGROUP DELCONSUMER key group consumer
void CmdXGroupDelConsumer(CommandContext& ctx) {
  Object* obj;
  StreamGroup* group;
  if (!GroupPrelude(ctx, false, true, &obj, &group)) return;
  const size_t pending = group->DeleteConsumer(ctx.args[4]);
  ctx.keyspace().CountChange();
  ctx.out.Integer(static_cast<int64_t>(pending));
  ctx.Notify(keyspace_events::kStream, "xgroup-delconsumer", ctx.args[2]);
}

// XGROUP HELP
void CmdXGroupHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CREATE <key> <groupname> <id|$> [option]",
      "    Create a new consumer group. Options are:",
      "    * MKSTREAM",
      "      Create the empty stream if it does not exist.",
      "    * ENTRIESREAD entries_read",
      "      Set the group's entries_read counter (internal use).",
      "CREATECONSUMER <key> <groupname> <consumer>",
      "    Create a new consumer in the specified group.",
      "DELCONSUMER <key> <groupname> <consumer>",
      "    Remove the specified consumer.",
      "DESTROY <key> <groupname>",
      "    Remove the specified group.",
      "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
      "    Set the current group ID and entries_read counter.",
      "HELP",
      "    Prints this help."};
  ReplyHelp(ctx.out, kHelp);
}

// --- XACK ---

// XACK key group id [id ...]
void CmdXAck(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = StreamForGroupWrite(ctx, ctx.args[1], &wrong_type);
  if (wrong_type) return;
  StreamGroup* group = FindGroup(obj, ctx.args[2]);
  if (group == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  std::vector<StreamId> ids(ctx.args.size() - 3);
  for (size_t j = 3; j < ctx.args.size(); ++j) {
    if (!ParseStrictStreamId(ctx.args[j], &ids[j - 3])) {
      ctx.out.Error(errors::kInvalidStreamId);
      return;
    }
  }
  int64_t acked = 0;
  for (StreamId id : ids) acked += group->Ack(id) ? 1 : 0;
  if (acked > 0) ctx.keyspace().CountChange();
  ctx.out.Integer(acked);
}

// --- XPENDING ---

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
void CmdXPending(CommandContext& ctx) {
  const auto& args = ctx.args;
  const bool summary = args.size() == 3;
  if (!summary && (args.size() < 6 || args.size() > 9)) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  StreamId start, end;
  int64_t count = 0, min_idle = 0;
  std::string_view consumer_name;
  bool has_consumer = false;
  if (!summary) {
    size_t at = 3;
    if (EqualsIgnoreCase(args[3], "idle")) {
      if (!ParseInt64(args[4], &min_idle)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      if (args.size() < 8) {
        ctx.out.Error(errors::kSyntax);
        return;
      }
      at += 2;
    }
    if (!ParseInt64(args[at + 2], &count)) {
      ctx.out.Error(errors::kNotInteger);
      return;
    }
    if (count < 0) count = 0;
    bool exclusive;
    if (!ParseIntervalId(args[at], 0, &start, &exclusive)) {
      ctx.out.Error(errors::kInvalidStreamId);
      return;
    }
    if (exclusive && !start.Increment()) {
      ctx.out.Error(errors::kInvalidStartId);
      return;
    }
    if (!ParseIntervalId(args[at + 1], UINT64_MAX, &end, &exclusive)) {
      ctx.out.Error(errors::kInvalidStreamId);
      return;
    }
    if (exclusive && !end.Decrement()) {
      ctx.out.Error(errors::kInvalidEndId);
      return;
    }
    if (at + 3 < args.size()) {
      consumer_name = args[at + 3];
      has_consumer = true;
    }
  }
  Object* obj = LookupRead(ctx, args[1]);
  if (obj != nullptr && obj->type() != ObjType::kStream) {
    ctx.out.Error(errors::kWrongType);
    return;
  }
  StreamGroup* group = FindGroup(obj, args[2]);
  if (group == nullptr) {
    ctx.out.Error(errors::NoSuchKeyOrGroup(args[1], args[2]));
    return;
  }
  resp::Writer& out = ctx.out;
  if (summary) {
    out.ArrayHeader(4);
    out.Integer(static_cast<int64_t>(group->pel.size()));
    if (group->pel.empty()) {
      out.NullBulk();
      out.NullBulk();
      out.NullArray();
      return;
    }
    ReplyStreamId(out, group->pel.begin()->first);
    ReplyStreamId(out, group->pel.rbegin()->first);
    int64_t with_pending = 0;
    for (const auto& [name, c] : group->consumers) with_pending += c.pending.empty() ? 0 : 1;
    out.ArrayHeader(with_pending);
    for (const auto& [name, c] : group->consumers) {
      if (c.pending.empty()) continue;
      out.ArrayHeader(2);
      out.Bulk(name);
      out.Bulk(std::to_string(c.pending.size()));
    }
    return;
  }
  const StreamConsumer* consumer = nullptr;
  if (has_consumer) {
    consumer = group->FindConsumer(consumer_name);
    if (consumer == nullptr) {
      out.ArrayHeader(0);
      return;
    }
  }
  resp::OutBuffer body;
  resp::Writer w(&body);
  w.set_protocol(out.protocol());
  int64_t n = 0;
  auto emit = [&](StreamId id, const StreamNack& nack) {
    if (count == 0 || id > end) return false;
    const int64_t idle = ctx.now_ms - nack.delivery_time;
    if (min_idle != 0 && idle < min_idle) return true;
    ++n;
    --count;
    w.ArrayHeader(4);
    ReplyStreamId(w, id);
    w.Bulk(nack.consumer->name);
    w.Integer(idle < 0 ? 0 : idle);
    w.Integer(static_cast<int64_t>(nack.delivery_count));
    return true;
  };
  if (consumer != nullptr) {
    for (auto it = consumer->pending.lower_bound(start); it != consumer->pending.end(); ++it) {
      if (!emit(*it, group->pel.at(*it))) break;
    }
  } else {
    for (auto it = group->pel.lower_bound(start); it != group->pel.end(); ++it) {
      if (!emit(it->first, it->second)) break;
    }
  }
  out.ArrayHeader(n);
  body.MoveTo(out.out());
}

// --- XCLAIM / XAUTOCLAIM ---

// Gives the pending entry at it to consumer (created, seen now, on first use), delivered at time.
void Claim(CommandContext& ctx, StreamGroup& group, std::map<StreamId, StreamNack>::iterator it,
           StreamConsumer** consumer, std::string_view name, int64_t time, int64_t retrycount,
           bool justid) {
  if (*consumer == nullptr) {
    bool created = false;
    *consumer = group.CreateConsumer(name, ctx.now_ms, &created);
    (*consumer)->seen_time = ctx.now_ms;
    if (created) ctx.Notify(keyspace_events::kStream, "xgroup-createconsumer", ctx.args[1]);
  }
  StreamNack& nack = it->second;
  if (nack.consumer != *consumer && nack.consumer != nullptr)
    nack.consumer->pending.erase(it->first);
  nack.delivery_time = time;
  if (retrycount >= 0) {
    nack.delivery_count = static_cast<uint64_t>(retrycount);
  } else if (!justid) {
    ++nack.delivery_count;
  }
  if (nack.consumer != *consumer) {
    (*consumer)->pending.insert(it->first);
    nack.consumer = *consumer;
  }
}

// Drops a pending entry whose stream entry is gone.
void DropPending(StreamGroup& group, std::map<StreamId, StreamNack>::iterator it) {
  if (it->second.consumer != nullptr) it->second.consumer->pending.erase(it->first);
  group.pel.erase(it);
}

// The log's record of a claim: XCLAIM key group consumer 0 ids... TIME time, and flags.
std::vector<std::string> ClaimRecord(CommandContext& ctx, const std::vector<StreamId>& ids,
                                     int64_t time) {
  std::vector<std::string> p = {"XCLAIM", std::string(ctx.args[1]), std::string(ctx.args[2]),
                                std::string(ctx.args[3]), "0"};
  for (StreamId id : ids) p.push_back(id.ToString());
  p.push_back("TIME");
  p.push_back(std::to_string(time));
  return p;
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds]
//   [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
void CmdXClaim(CommandContext& ctx) {
  const auto& args = ctx.args;
  bool wrong_type;
  Object* obj = StreamForGroupWrite(ctx, args[1], &wrong_type);
  if (wrong_type) return;
  StreamGroup* group = FindGroup(obj, args[2]);
  if (group == nullptr) {
    ctx.out.Error(errors::NoSuchKeyOrGroup(args[1], args[2]));
    return;
  }
  int64_t min_idle;
  if (!ParseInt64(args[4], &min_idle)) {
    ctx.out.Error(errors::StreamInvalidArgument("min-idle-time", "XCLAIM"));
    return;
  }
  if (min_idle < 0) min_idle = 0;
  size_t j = 5;
  StreamId scratch;
  while (j < args.size() && ParseStrictStreamId(args[j], &scratch)) ++j;
  const size_t ids_end = j;
  const int64_t now = ctx.now_ms;
  int64_t time = -1, retrycount = -1;
  bool force = false, justid = false, lastid_given = false;
  StreamId last_id;
  for (; j < args.size(); ++j) {
    const bool more = j + 1 < args.size();
    std::string_view opt = args[j];
    if (EqualsIgnoreCase(opt, "force")) {
      force = true;
    } else if (EqualsIgnoreCase(opt, "justid")) {
      justid = true;
    } else if (EqualsIgnoreCase(opt, "idle") && more) {
      if (!ParseInt64(args[++j], &time)) {
        ctx.out.Error(errors::StreamInvalidArgument("IDLE option", "XCLAIM"));
        return;
      }
      time = now - time;
    } else if (EqualsIgnoreCase(opt, "time") && more) {
      if (!ParseInt64(args[++j], &time)) {
        ctx.out.Error(errors::StreamInvalidArgument("TIME option", "XCLAIM"));
        return;
      }
    } else if (EqualsIgnoreCase(opt, "retrycount") && more) {
      if (!ParseInt64(args[++j], &retrycount)) {
        ctx.out.Error(errors::StreamInvalidArgument("RETRYCOUNT option", "XCLAIM"));
        return;
      }
    } else if (EqualsIgnoreCase(opt, "lastid") && more) {
      if (!ParseStrictStreamId(args[++j], &last_id)) {
        ctx.out.Error(errors::kInvalidStreamId);
        return;
      }
      lastid_given = true;
    } else {
      ctx.out.Error(errors::UnrecognizedXClaimOption(opt));
      return;
    }
  }
  bool changed = false;
  if (last_id > group->last_id) {
    group->last_id = last_id;
    changed = true;
  }
  if (time < 0 || time > now) time = now;
  StreamValue& s = obj->stream();
  StreamConsumer* consumer = nullptr;
  std::vector<StreamId> touched;
  resp::OutBuffer body;
  resp::Writer w(&body);
  w.set_protocol(ctx.out.protocol());
  int64_t n = 0;
  for (size_t k = 5; k < ids_end; ++k) {
    StreamId id;
    ParseStrictStreamId(args[k], &id);
    auto it = group->pel.find(id);
    if (!s.Contains(id)) {
      if (it != group->pel.end()) {
        DropPending(*group, it);
        touched.push_back(id);
      }
      continue;
    }
    if (force && it == group->pel.end()) {
      it = group->pel.emplace(id, StreamNack{nullptr, now, 1}).first;
    }
    if (it == group->pel.end()) continue;
    if (it->second.consumer != nullptr && min_idle != 0 &&
        now - it->second.delivery_time < min_idle) {
      continue;
    }
    Claim(ctx, *group, it, &consumer, args[3], time, retrycount, justid);
    if (justid) {
      ReplyStreamId(w, id);
    } else if (!ReplyEntryIfPresent(w, s, id)) {
      w.NullBulk();
    }
    ++n;
    touched.push_back(id);
  }
  ctx.out.ArrayHeader(n);
  body.MoveTo(ctx.out.out());
  if (touched.empty() && !changed) return;
  ctx.keyspace().CountChange();
  if (ctx.propagate == nullptr) return;
  if (touched.empty()) {
    // Only LASTID moved the group: Redis propagates XGROUP SETID.
    *ctx.propagate = {"XGROUP",
                      "SETID",
                      std::string(args[1]),
                      std::string(args[2]),
                      group->last_id.ToString(),
                      "ENTRIESREAD",
                      std::to_string(group->entries_read)};
    return;
  }
  std::vector<std::string> p = ClaimRecord(ctx, touched, time);
  if (retrycount >= 0) {
    p.push_back("RETRYCOUNT");
    p.push_back(std::to_string(retrycount));
  }
  if (force) p.push_back("FORCE");
  if (justid) p.push_back("JUSTID");
  if (lastid_given) {
    p.push_back("LASTID");
    p.push_back(last_id.ToString());
  }
  *ctx.propagate = std::move(p);
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
void CmdXAutoClaim(CommandContext& ctx) {
  const auto& args = ctx.args;
  int64_t min_idle;
  if (!ParseInt64(args[4], &min_idle)) {
    ctx.out.Error(errors::StreamInvalidArgument("min-idle-time", "XAUTOCLAIM"));
    return;
  }
  if (min_idle < 0) min_idle = 0;
  StreamId start;
  bool exclusive;
  if (!ParseIntervalId(args[5], 0, &start, &exclusive)) {
    ctx.out.Error(errors::kInvalidStreamId);
    return;
  }
  if (exclusive && !start.Increment()) {
    ctx.out.Error(errors::kInvalidStartId);
    return;
  }
  int64_t count = 100;
  bool justid = false;
  constexpr int64_t kAttemptsFactor = 10;
  for (size_t j = 6; j < args.size(); ++j) {
    if (EqualsIgnoreCase(args[j], "count") && j + 1 < args.size()) {
      if (!ParseInt64(args[j + 1], &count) || count < 1 ||
          count > INT64_MAX / static_cast<int64_t>(sizeof(StreamId))) {
        ctx.out.Error(errors::kXAutoClaimCount);
        return;
      }
      ++j;
    } else if (EqualsIgnoreCase(args[j], "justid")) {
      justid = true;
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  bool wrong_type;
  Object* obj = StreamForGroupWrite(ctx, args[1], &wrong_type);
  if (wrong_type) return;
  StreamGroup* group = FindGroup(obj, args[2]);
  if (group == nullptr) {
    ctx.out.Error(errors::NoSuchKeyOrGroup(args[1], args[2]));
    return;
  }
  StreamValue& s = obj->stream();
  const int64_t now = ctx.now_ms;
  int64_t attempts = count * kAttemptsFactor;
  StreamConsumer* consumer = nullptr;
  std::vector<StreamId> deleted, touched;
  resp::OutBuffer body;
  resp::Writer w(&body);
  w.set_protocol(ctx.out.protocol());
  int64_t n = 0;
  auto it = group->pel.lower_bound(start);
  while (attempts-- > 0 && count > 0 && it != group->pel.end()) {
    const StreamId id = it->first;
    if (!s.Contains(id)) {
      auto next = std::next(it);
      DropPending(*group, it);
      it = next;
      deleted.push_back(id);
      touched.push_back(id);
      --count;
      continue;
    }
    if (min_idle != 0 && now - it->second.delivery_time < min_idle) {
      ++it;
      continue;
    }
    Claim(ctx, *group, it, &consumer, args[3], now, -1, justid);
    if (justid) {
      ReplyStreamId(w, id);
    } else if (!ReplyEntryIfPresent(w, s, id)) {
      w.NullBulk();
    }
    ++n;
    --count;
    touched.push_back(id);
    ++it;
  }
  ctx.out.ArrayHeader(3);
  ReplyStreamId(ctx.out, it == group->pel.end() ? StreamId{} : it->first);
  ctx.out.ArrayHeader(n);
  body.MoveTo(ctx.out.out());
  ctx.out.ArrayHeader(static_cast<int64_t>(deleted.size()));
  for (StreamId id : deleted) ReplyStreamId(ctx.out, id);
  if (touched.empty()) return;
  ctx.keyspace().CountChange();
  if (ctx.propagate != nullptr) {
    *ctx.propagate = ClaimRecord(ctx, touched, now);
    if (justid) ctx.propagate->push_back("JUSTID");
  }
}

}  // namespace

void RegisterStreamGroupFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"xgroup", -2, 0, 0, 0, 0, nullptr, "stream", "A container for consumer groups commands",
       {
           {"xgroup|create", -5, kWrite | kDenyOom, 2, 2, 1, CmdXGroupCreate, "stream", "Create a consumer group."},
           {"xgroup|setid", -5, kWrite, 2, 2, 1, CmdXGroupSetId, "stream", "Set a consumer group to an arbitrary last delivered ID value."},
           {"xgroup|destroy", 4, kWrite, 2, 2, 1, CmdXGroupDestroy, "stream", "Destroy a consumer group."},
           {"xgroup|createconsumer", 5, kWrite | kDenyOom, 2, 2, 1, CmdXGroupCreateConsumer, "stream", "Create a consumer in a consumer group."},
           {"xgroup|delconsumer", 5, kWrite, 2, 2, 1, CmdXGroupDelConsumer, "stream", "Delete a consumer from a consumer group."},
           {"xgroup|help", 2, kLoading | kStale, 0, 0, 0, CmdXGroupHelp, "stream", "Show helpful text about the different subcommands"},
       }},
      {"xack", -4, kWrite | kFast, 1, 1, 1, CmdXAck, "stream", "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL."},
      {"xpending", -3, kReadonly, 1, 1, 1, CmdXPending, "stream", "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged."},
      {"xclaim", -6, kWrite | kFast, 1, 1, 1, CmdXClaim, "stream", "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer."},
      {"xautoclaim", -6, kWrite | kFast, 1, 1, 1, CmdXAutoClaim, "stream", "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer."},
  });
  // clang-format on
}

}  // namespace ordis::server
