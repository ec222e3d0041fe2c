// Streams in RDB (Redis 7.0's RDB_TYPE_STREAM_LISTPACKS_2; versions 1 and 3 (Redis 7.2) read too).
//
//   nodes         length, then per node: its master ID (16 bytes, big-endian ms and seq, as a
//                 string) and its listpack:
//                   master entry: live count, deleted count, field count, the fields, 0
//                   each entry:   flags, ms - master ms, seq - master seq, then the values alone
//                                 (flag 2: the master's fields) or a field count and pairs, then
//                                 the entry's own element count
//   counters      length, last ID; version 2: first ID, max deleted ID, entries added
//   groups        length, then per group: name, last ID, (version 2) entries read, its PEL (raw
//                 16-byte ID, 8-byte delivery time, delivery count), its consumers (name, 8-byte
//                 seen time, their pending IDs, raw)
// The code is ours; the layout is Redis's (t_stream.c, rdb.c).
#include "server/rdb/rdb_stream.h"

#include <vector>

#include "base/number.h"
#include "persistence/rdb_containers.h"

namespace ordis::server {
namespace {

namespace rdb = persistence::rdb;

constexpr uint8_t kDeleted = 1;
constexpr uint8_t kSameFields = 2;

void AppendRawId(std::string* out, StreamId id) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((id.ms >> (8 * i)) & 0xff));
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((id.seq >> (8 * i)) & 0xff));
}

StreamId RawId(std::string_view raw) {
  StreamId id;
  for (int i = 0; i < 8; ++i) id.ms = (id.ms << 8) | static_cast<uint8_t>(raw[i]);
  for (int i = 8; i < 16; ++i) id.seq = (id.seq << 8) | static_cast<uint8_t>(raw[i]);
  return id;
}

void AppendId(std::string* out, StreamId id) {
  rdb::AppendLength(out, id.ms);
  rdb::AppendLength(out, id.seq);
}

bool ReadId(rdb::Reader* in, StreamId* id) {
  return in->ReadLength(&id->ms) && in->ReadLength(&id->seq);
}

bool ReadRawId(rdb::Reader* in, StreamId* id) {
  std::string raw(16, '\0');
  for (char& c : raw) {
    uint8_t b;
    if (!in->ReadByte(&b)) return false;
    c = static_cast<char>(b);
  }
  *id = RawId(raw);
  return true;
}

// Reads one node's listpack, appending its live entries to stream.
bool ReadNode(StreamId master, std::string_view lp, const StreamNodeLimits& limits,
              StreamValue* stream, bool* any, std::vector<StreamId>* deleted_ids) {
  rdb::ListpackReader reader(lp);
  std::string_view e;
  auto next_int = [&](int64_t* v) { return reader.Next(&e) && ParseInt64(e, v); };
  int64_t live, deleted, master_count;
  if (!next_int(&live) || !next_int(&deleted) || !next_int(&master_count) || master_count <= 0 ||
      live < 0 || deleted < 0 || static_cast<uint64_t>(master_count) > lp.size()) {
    return false;
  }
  std::vector<std::string> master_fields;
  for (int64_t i = 0; i < master_count; ++i) {
    if (!reader.Next(&e)) return false;
    master_fields.emplace_back(e);
  }
  int64_t terminator;
  if (!next_int(&terminator) || terminator != 0) return false;
  std::vector<std::string> owned;
  std::vector<std::string_view> fields_values;
  int64_t seen_live = 0, seen_deleted = 0;
  int64_t flags;
  while (next_int(&flags)) {
    int64_t ms_delta, seq_delta;
    if (!next_int(&ms_delta) || !next_int(&seq_delta)) return false;
    StreamId id{master.ms + static_cast<uint64_t>(ms_delta),
                master.seq + static_cast<uint64_t>(seq_delta)};
    owned.clear();
    int64_t elements = 3;
    if (flags & kSameFields) {
      for (const std::string& f : master_fields) {
        owned.push_back(f);
        if (!reader.Next(&e)) return false;
        owned.emplace_back(e);
      }
      elements += master_count;
    } else {
      int64_t n;
      if (!next_int(&n) || n <= 0 || static_cast<uint64_t>(n) > lp.size()) return false;
      for (int64_t i = 0; i < 2 * n; ++i) {
        if (!reader.Next(&e)) return false;
        owned.emplace_back(e);
      }
      elements += 2 * n + 1;
    }
    int64_t count;
    if (!next_int(&count) || count != elements) return false;
    (flags & kDeleted ? seen_deleted : seen_live) += 1;
    if (*any && id <= stream->last_id()) return false;  // IDs ascend across the stream
    fields_values.assign(owned.begin(), owned.end());
    // A deleted entry is kept as Redis keeps it (appended now, marked once the whole stream is
    // in, so no block empties on the way), and the blocks and a later DUMP stay as Redis's. The
    // counters are set from the payload afterwards.
    stream->Append(id, fields_values, limits);
    if (flags & kDeleted) deleted_ids->push_back(id);
    *any = true;
  }
  return reader.ok() && seen_live == live && seen_deleted == deleted;
}

}  // namespace

void AppendRdbStream(const StreamValue& stream, std::string* out) {
  std::vector<std::pair<StreamId, std::string>> nodes;
  rdb::ListpackWriter lp;
  stream.VisitBlocks([&](StreamId master, uint32_t live, uint32_t deleted,
                         StreamFields master_fields,
                         std::span<const StreamValue::BlockEntry> entries) {
    lp.AppendInt(live);
    lp.AppendInt(deleted);
    lp.AppendInt(static_cast<int64_t>(master_fields.size()));
    for (std::string_view f : master_fields) lp.Append(f);
    lp.AppendInt(0);
    for (const auto& entry : entries) {
      lp.AppendInt(entry.flags);
      lp.AppendInt(static_cast<int64_t>(entry.id.ms - master.ms));
      lp.AppendInt(static_cast<int64_t>(entry.id.seq - master.seq));
      const size_t pairs = entry.fields_values.size() / 2;
      if (entry.flags & kSameFields) {
        for (size_t i = 1; i < entry.fields_values.size(); i += 2)
          lp.Append(entry.fields_values[i]);
        lp.AppendInt(static_cast<int64_t>(pairs + 3));
      } else {
        lp.AppendInt(static_cast<int64_t>(pairs));
        for (std::string_view s : entry.fields_values) lp.Append(s);
        lp.AppendInt(static_cast<int64_t>(2 * pairs + 4));
      }
    }
    nodes.emplace_back(master, lp.Finish());
  });
  out->push_back(static_cast<char>(rdb::kTypeStreamListpacks2));
  rdb::AppendLength(out, nodes.size());
  std::string key;
  for (const auto& [master, bytes] : nodes) {
    key.clear();
    AppendRawId(&key, master);
    rdb::AppendString(out, key);
    rdb::AppendString(out, bytes);
  }
  rdb::AppendLength(out, stream.size());
  AppendId(out, stream.last_id());
  AppendId(out, stream.first_id());
  AppendId(out, stream.max_deleted_id());
  rdb::AppendLength(out, stream.entries_added());
  rdb::AppendLength(out, stream.groups().size());
  for (const auto& [name, group] : stream.groups()) {
    rdb::AppendString(out, name);
    AppendId(out, group.last_id);
    rdb::AppendLength(out, static_cast<uint64_t>(group.entries_read));  // -1 as Redis: 2^64 - 1
    rdb::AppendLength(out, group.pel.size());
    for (const auto& [id, nack] : group.pel) {
      AppendRawId(out, id);
      rdb::AppendLittleEndian(out, static_cast<uint64_t>(nack.delivery_time), 8);
      rdb::AppendLength(out, nack.delivery_count);
    }
    rdb::AppendLength(out, group.consumers.size());
    for (const auto& [cname, consumer] : group.consumers) {
      rdb::AppendString(out, cname);
      rdb::AppendLittleEndian(out, static_cast<uint64_t>(consumer.seen_time), 8);
      rdb::AppendLength(out, consumer.pending.size());
      for (StreamId id : consumer.pending) AppendRawId(out, id);
    }
  }
}

RdbValueStatus ReadRdbStream(uint8_t type, rdb::Reader* in, const StreamNodeLimits& limits,
                             int64_t expire_at_ms, ObjectPtr* obj) {
  constexpr auto kBad = RdbValueStatus::kMalformed;
  const bool v2 = type == rdb::kTypeStreamListpacks2 || type == rdb::kTypeStreamListpacks3;
  const bool v3 = type == rdb::kTypeStreamListpacks3;
  ObjectPtr o = NewObject(ObjType::kStream, expire_at_ms);
  StreamValue& stream = o->stream();
  uint64_t nodes;
  if (!in->ReadLength(&nodes) || nodes > in->remaining()) return kBad;
  std::string key, lp;
  bool any = false;
  std::vector<StreamId> deleted_ids;
  for (; nodes > 0; --nodes) {
    if (!in->ReadString(&key) || key.size() != 16 || !in->ReadString(&lp)) return kBad;
    if (!ReadNode(RawId(key), lp, limits, &stream, &any, &deleted_ids)) return kBad;
  }
  for (StreamId id : deleted_ids) stream.Delete(id);
  uint64_t length;
  StreamId last_id, first_id, max_deleted;
  uint64_t entries_added;
  if (!in->ReadLength(&length) || !ReadId(in, &last_id)) return kBad;
  if (v2) {
    if (!ReadId(in, &first_id) || !ReadId(in, &max_deleted) || !in->ReadLength(&entries_added)) {
      return kBad;
    }
  } else {
    entries_added = length;  // as Redis 7 upgrades a version 1 stream
  }
  if (length != stream.size() || (any && last_id < stream.last_id())) return kBad;
  stream.set_last_id(last_id);
  stream.set_max_deleted_id(max_deleted);
  stream.set_entries_added(entries_added);
  uint64_t groups;
  if (!in->ReadLength(&groups) || groups > in->remaining()) return kBad;
  std::string name;
  for (; groups > 0; --groups) {
    if (!in->ReadString(&name)) return kBad;
    auto [git, inserted] = stream.groups().try_emplace(name);
    if (!inserted) return kBad;
    StreamGroup& g = git->second;
    if (!ReadId(in, &g.last_id)) return kBad;
    if (v2) {
      uint64_t read;
      if (!in->ReadLength(&read)) return kBad;
      g.entries_read = static_cast<int64_t>(read);
    } else {
      g.entries_read = stream.EstimateDistance(g.last_id);
    }
    uint64_t pending;
    if (!in->ReadLength(&pending) || pending > in->remaining() / 18) return kBad;
    for (; pending > 0; --pending) {
      StreamId id;
      uint64_t time, count;
      if (!ReadRawId(in, &id) || !in->ReadLittleEndian(8, &time) || !in->ReadLength(&count)) {
        return kBad;
      }
      StreamNack nack{nullptr, static_cast<int64_t>(time), count};
      if (!g.pel.emplace(id, nack).second) return kBad;
    }
    uint64_t consumers;
    if (!in->ReadLength(&consumers) || consumers > in->remaining()) return kBad;
    for (; consumers > 0; --consumers) {
      uint64_t seen, owned;
      uint64_t active;  // Redis 7.2's; ordis keeps the seen time only
      if (!in->ReadString(&name) || !in->ReadLittleEndian(8, &seen) ||
          (v3 && !in->ReadLittleEndian(8, &active))) {
        return kBad;
      }
      bool created = false;
      StreamConsumer* consumer = g.CreateConsumer(name, static_cast<int64_t>(seen), &created);
      if (!created) return kBad;
      consumer->seen_time = static_cast<int64_t>(seen);
      if (!in->ReadLength(&owned) || owned > in->remaining() / 16) return kBad;
      for (; owned > 0; --owned) {
        StreamId id;
        if (!ReadRawId(in, &id)) return kBad;
        auto nack = g.pel.find(id);
        if (nack == g.pel.end() || nack->second.consumer != nullptr) return kBad;
        nack->second.consumer = consumer;
        consumer->pending.insert(id);
      }
    }
    for (const auto& [id, nack] : g.pel) {
      if (nack.consumer == nullptr) return kBad;  // every pending entry has its consumer
    }
  }
  *obj = std::move(o);
  return RdbValueStatus::kOk;
}

}  // namespace ordis::server
