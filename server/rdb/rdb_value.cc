#include "server/rdb/rdb_value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "base/number.h"
#include "persistence/rdb_containers.h"
#include "server/rdb/rdb_stream.h"

namespace ordis::server {
namespace {

namespace rdb = persistence::rdb;

size_t ConfigSize(const Config& config, std::string_view name, size_t fallback) {
  int64_t v;
  return ParseInt64(config.Value(name), &v) && v >= 0 ? static_cast<size_t>(v) : fallback;
}

// Redis 7.0's d2string: how a score is written into a sorted set's listpack (integral values in
// (-2^52, 2^52) as integers, others "%.17g").
std::string ScoreText(double score) {
  if (std::isinf(score)) return score > 0 ? "inf" : "-inf";
  if (score == 0) return std::signbit(score) ? "-0" : "0";
  if (score > -4503599627370495.0 && score < 4503599627370496.0 &&
      score == static_cast<double>(static_cast<int64_t>(score))) {
    return std::to_string(static_cast<int64_t>(score));
  }
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.17g", score);
  return std::string(buf, static_cast<size_t>(n));
}

// Whether RPUSH would add an element of `size` bytes to a quicklist node whose listpack has
// `node_bytes` bytes and `count` elements, under list-max-listpack-size `fill` (Redis 7.0.15's
// _quicklistNodeAllowInsert: 8 bytes of estimated overhead; a negative fill limits the listpack's
// bytes, a positive one the count, under an 8 KB safety limit). Checked against redis-server's
// DUMPs of lists of 10- to 1000-byte elements.
bool QuicklistNodeTakes(size_t node_bytes, size_t count, size_t size, int64_t fill) {
  static constexpr size_t kSizeLimits[] = {4096, 8192, 16384, 32768, 65536};
  constexpr size_t kSafetyLimit = 8192;
  constexpr size_t kOverheadEstimate = 8;
  const size_t new_bytes = node_bytes + size + kOverheadEstimate;
  if (fill < 0) {
    const size_t level = std::min(static_cast<size_t>(-fill - 1), std::size(kSizeLimits) - 1);
    return new_bytes <= kSizeLimits[level];
  }
  const size_t max_count = fill == 0 ? 1 : static_cast<size_t>(fill);
  return new_bytes <= kSafetyLimit && count + 1 <= max_count;
}

// The list's quicklist nodes, each a finished listpack.
std::vector<std::string> QuicklistNodes(const ListValue& list, const RdbLimits& limits) {
  std::vector<std::string> nodes;
  rdb::ListpackWriter node;
  for (const std::string& e : list) {
    if (node.count() > 0 &&
        !QuicklistNodeTakes(node.bytes(), node.count(), e.size(), limits.list_max_listpack_size)) {
      nodes.push_back(node.Finish());
    }
    node.Append(e);
  }
  if (node.count() > 0) nodes.push_back(node.Finish());
  return nodes;
}

void AppendList(const ListValue& list, const RdbLimits& limits, std::string* out) {
  const std::vector<std::string> nodes = QuicklistNodes(list, limits);
  out->push_back(static_cast<char>(rdb::kTypeListQuicklist2));
  rdb::AppendLength(out, nodes.size());
  for (const std::string& lp : nodes) {
    rdb::AppendLength(out, rdb::kQuicklistPacked);
    rdb::AppendString(out, lp);
  }
}

void AppendSet(const SetValue& set, const RdbLimits& limits, std::string* out) {
  if (SetFitsIntset(set, limits)) {
    std::vector<int64_t> values;
    values.reserve(set.size());
    for (const std::string& m : set) {
      int64_t v = 0;
      ParseInt64(m, &v);
      values.push_back(v);
    }
    out->push_back(static_cast<char>(rdb::kTypeSetIntset));
    rdb::AppendString(out, rdb::BuildIntset(std::move(values)));
    return;
  }
  out->push_back(static_cast<char>(rdb::kTypeSet));
  rdb::AppendLength(out, set.size());
  for (const std::string& m : set) rdb::AppendString(out, m);
}

void AppendHash(const HashValue& hash, const RdbLimits& limits, std::string* out) {
  if (HashFitsListpack(hash, limits)) {
    rdb::ListpackWriter lp;
    for (const auto& [field, value] : hash) {
      lp.Append(field);
      lp.Append(value);
    }
    out->push_back(static_cast<char>(rdb::kTypeHashListpack));
    rdb::AppendString(out, lp.Finish());
    return;
  }
  out->push_back(static_cast<char>(rdb::kTypeHash));
  rdb::AppendLength(out, hash.size());
  for (const auto& [field, value] : hash) {
    rdb::AppendString(out, field);
    rdb::AppendString(out, value);
  }
}

void AppendZSet(const ZSetValue& zset, const RdbLimits& limits, std::string* out) {
  bool small = zset.size() <= limits.zset.max_small_entries;
  if (small) {
    zset.VisitFrom(0, false, [&](std::string_view member, double) {
      small = member.size() <= limits.zset.max_small_member;
      return small;
    });
  }
  if (small) {
    rdb::ListpackWriter lp;
    zset.VisitFrom(0, false, [&](std::string_view member, double score) {
      lp.Append(member);
      lp.Append(ScoreText(score));
      return true;
    });
    out->push_back(static_cast<char>(rdb::kTypeZSetListpack));
    rdb::AppendString(out, lp.Finish());
    return;
  }
  // Highest first: Redis's loader then always inserts at the head.
  out->push_back(static_cast<char>(rdb::kTypeZSet2));
  rdb::AppendLength(out, zset.size());
  zset.VisitFrom(zset.size() - 1, true, [&](std::string_view member, double score) {
    rdb::AppendString(out, member);
    rdb::AppendBinaryDouble(out, score);
    return true;
  });
}

// Reading. Each reader fills a fresh object and says whether the bytes were well formed.

// A count of elements each at least min_bytes long, bounded by the bytes left.
bool ReadCount(rdb::Reader* in, size_t min_bytes, uint64_t* n) {
  return in->ReadLength(n) && *n <= in->remaining() / min_bytes;
}

// Elements of a packed container (listpack, ziplist or intset reader), handed to add.
template <typename PackedReader, typename Add>
bool ForEachPacked(PackedReader& reader, Add add) {
  std::string_view e;
  while (reader.Next(&e)) {
    if (!add(e)) return false;
  }
  return reader.ok();
}

template <typename Add>
bool ForEachInBlob(uint8_t type, std::string_view blob, Add add) {
  if (type == rdb::kTypeSetIntset) {
    rdb::IntsetReader reader(blob);
    return ForEachPacked(reader, add);
  }
  if (type == rdb::kTypeListZiplist || type == rdb::kTypeZSetZiplist ||
      type == rdb::kTypeHashZiplist || type == rdb::kTypeListQuicklist) {
    rdb::ZiplistReader reader(blob);
    return ForEachPacked(reader, add);
  }
  rdb::ListpackReader reader(blob);
  return ForEachPacked(reader, add);
}

bool ParseScore(std::string_view text, double* score) {
  return ParseDouble(text, score) && !std::isnan(*score);
}

bool ReadList(uint8_t type, rdb::Reader* in, ListValue* list) {
  std::string s;
  uint64_t n;
  auto push = [&](std::string_view e) {
    list->emplace_back(e);
    return true;
  };
  switch (type) {
    case rdb::kTypeList:
      if (!ReadCount(in, 1, &n)) return false;
      for (; n > 0; --n) {
        if (!in->ReadString(&s)) return false;
        list->push_back(s);
      }
      return true;
    case rdb::kTypeListZiplist:
      return in->ReadString(&s) && ForEachInBlob(type, s, push);
    case rdb::kTypeListQuicklist:
    case rdb::kTypeListQuicklist2:
      if (!ReadCount(in, 1, &n)) return false;
      for (; n > 0; --n) {
        uint64_t container = rdb::kQuicklistPacked;
        if (type == rdb::kTypeListQuicklist2 && !in->ReadLength(&container)) return false;
        if (!in->ReadString(&s)) return false;
        if (container == rdb::kQuicklistPlain) {
          list->push_back(s);
        } else if (container != rdb::kQuicklistPacked || !ForEachInBlob(type, s, push)) {
          return false;
        }
      }
      return true;
    default:
      return false;
  }
}

bool ReadSet(uint8_t type, rdb::Reader* in, SetValue* set) {
  std::string scratch;
  std::string_view s;
  if (type == rdb::kTypeSetIntset || type == rdb::kTypeSetListpack) {
    return in->ReadStringView(&s, &scratch) &&
           ForEachInBlob(type, s, [&](std::string_view m) { return set->insert(m); });
  }
  uint64_t n;
  if (!ReadCount(in, 1, &n)) return false;
  set->reserve(n);
  for (; n > 0; --n) {
    if (!in->ReadStringView(&s, &scratch) || !set->insert(s)) return false;
  }
  return true;
}

bool ReadHash(uint8_t type, rdb::Reader* in, HashValue* hash) {
  std::string field, value;
  if (type == rdb::kTypeHashZiplist || type == rdb::kTypeHashListpack) {
    if (!in->ReadString(&value)) return false;
    std::string pending;
    bool have_field = false;
    const bool ok = ForEachInBlob(type, value, [&](std::string_view e) {
      if (!have_field) {
        pending.assign(e);
        have_field = true;
        return true;
      }
      have_field = false;
      return hash->try_emplace(pending, e).second;
    });
    return ok && !have_field;
  }
  uint64_t n;
  if (!ReadCount(in, 2, &n)) return false;
  hash->reserve(n);
  for (; n > 0; --n) {
    if (!in->ReadString(&field) || !in->ReadString(&value)) return false;
    if (!hash->try_emplace(std::move(field), std::move(value)).second) return false;
  }
  return true;
}

bool ReadZSet(uint8_t type, rdb::Reader* in, const RdbLimits& limits, ZSetValue* zset) {
  std::string member;
  if (type == rdb::kTypeZSetZiplist || type == rdb::kTypeZSetListpack) {
    std::string blob;
    if (!in->ReadString(&blob)) return false;
    bool have_member = false;
    const bool ok = ForEachInBlob(type, blob, [&](std::string_view e) {
      if (!have_member) {
        member.assign(e);
        have_member = true;
        return true;
      }
      have_member = false;
      double score;
      return ParseScore(e, &score) && zset->Insert(member, score, limits.zset);
    });
    return ok && !have_member;
  }
  uint64_t n;
  if (!ReadCount(in, type == rdb::kTypeZSet2 ? 9 : 2, &n)) return false;
  for (; n > 0; --n) {
    double score;
    if (!in->ReadString(&member)) return false;
    if (!(type == rdb::kTypeZSet2 ? in->ReadBinaryDouble(&score) : in->ReadTextDouble(&score))) {
      return false;
    }
    if (std::isnan(score) || !zset->Insert(member, score, limits.zset)) return false;
  }
  return true;
}

ObjType TypeOf(uint8_t type, bool* known) {
  *known = true;
  switch (type) {
    case rdb::kTypeString:
      return ObjType::kString;
    case rdb::kTypeList:
    case rdb::kTypeListZiplist:
    case rdb::kTypeListQuicklist:
    case rdb::kTypeListQuicklist2:
      return ObjType::kList;
    case rdb::kTypeSet:
    case rdb::kTypeSetIntset:
    case rdb::kTypeSetListpack:
      return ObjType::kSet;
    case rdb::kTypeHash:
    case rdb::kTypeHashZiplist:
    case rdb::kTypeHashListpack:
      return ObjType::kHash;
    case rdb::kTypeZSet:
    case rdb::kTypeZSet2:
    case rdb::kTypeZSetZiplist:
    case rdb::kTypeZSetListpack:
      return ObjType::kZSet;
    default:
      *known = false;
      return ObjType::kString;
  }
}

}  // namespace

RdbLimits RdbLimits::FromConfig(const Config& config) {
  RdbLimits limits;
  limits.hash_max_listpack_entries =
      ConfigSize(config, "hash-max-listpack-entries", limits.hash_max_listpack_entries);
  limits.hash_max_listpack_value =
      ConfigSize(config, "hash-max-listpack-value", limits.hash_max_listpack_value);
  limits.set_max_intset_entries =
      ConfigSize(config, "set-max-intset-entries", limits.set_max_intset_entries);
  int64_t fill;
  if (ParseInt64(config.Value("list-max-listpack-size"), &fill))
    limits.list_max_listpack_size = fill;
  limits.zset.max_small_entries =
      ConfigSize(config, "zset-max-listpack-entries", limits.zset.max_small_entries);
  limits.zset.max_small_member =
      ConfigSize(config, "zset-max-listpack-value", limits.zset.max_small_member);
  limits.stream.max_bytes = ConfigSize(config, "stream-node-max-bytes", limits.stream.max_bytes);
  limits.stream.max_entries =
      ConfigSize(config, "stream-node-max-entries", limits.stream.max_entries);
  return limits;
}

bool SetFitsIntset(const SetValue& set, const RdbLimits& limits) {
  if (set.size() > limits.set_max_intset_entries) return false;
  int64_t v;
  for (const std::string& m : set) {
    if (!ParseInt64(m, &v)) return false;
  }
  return true;
}

bool HashFitsListpack(const HashValue& hash, const RdbLimits& limits) {
  if (hash.size() > limits.hash_max_listpack_entries) return false;
  for (const auto& [field, value] : hash) {
    if (field.size() > limits.hash_max_listpack_value ||
        value.size() > limits.hash_max_listpack_value) {
      return false;
    }
  }
  return true;
}

void AppendRdbValue(const Object& obj, const RdbLimits& limits, std::string* out) {
  switch (obj.type()) {
    case ObjType::kString: {
      IntText scratch;
      out->push_back(static_cast<char>(rdb::kTypeString));
      rdb::AppendString(out, obj.StringBytes(&scratch));
      return;
    }
    case ObjType::kList:
      AppendList(std::get<ListValue>(obj.collection()), limits, out);
      return;
    case ObjType::kSet:
      AppendSet(std::get<SetValue>(obj.collection()), limits, out);
      return;
    case ObjType::kHash:
      AppendHash(std::get<HashValue>(obj.collection()), limits, out);
      return;
    case ObjType::kZSet:
      AppendZSet(std::get<ZSetValue>(obj.collection()), limits, out);
      return;
    case ObjType::kStream:
      AppendRdbStream(obj.stream(), out);
      return;
  }
}

QuicklistShape QuicklistShapeOf(const ListValue& list, const RdbLimits& limits) {
  QuicklistShape shape;
  for (const std::string& node : QuicklistNodes(list, limits)) {
    ++shape.nodes;
    shape.bytes += node.size();
  }
  shape.elements = list.size();
  return shape;
}

std::string DumpPayload(const Object& obj, const RdbLimits& limits) {
  std::string payload;
  AppendRdbValue(obj, limits, &payload);
  rdb::Seal(&payload);
  return payload;
}

RdbValueStatus ReadRdbValue(uint8_t type, rdb::Reader* in, const RdbLimits& limits,
                            int64_t expire_at_ms, ObjectPtr* obj) {
  obj->reset();
  if (type == rdb::kTypeStreamListpacks || type == rdb::kTypeStreamListpacks2 ||
      type == rdb::kTypeStreamListpacks3) {
    return ReadRdbStream(type, in, limits.stream, expire_at_ms, obj);
  }
  bool known;
  const ObjType t = TypeOf(type, &known);
  if (!known) {
    return type == rdb::kTypeModule || type == rdb::kTypeModule2 || type == rdb::kTypeHashZipmap
               ? RdbValueStatus::kUnsupported
               : RdbValueStatus::kMalformed;
  }
  if (t == ObjType::kString) {
    std::string scratch;
    std::string_view s;
    if (!in->ReadStringView(&s, &scratch)) return RdbValueStatus::kMalformed;
    *obj = NewString(s, expire_at_ms);
    return RdbValueStatus::kOk;
  }
  ObjectPtr o = NewObject(t, expire_at_ms);
  bool ok = false;
  switch (t) {
    case ObjType::kList:
      ok = ReadList(type, in, &o->list());
      break;
    case ObjType::kSet:
      ok = ReadSet(type, in, &o->set());
      break;
    case ObjType::kHash:
      ok = ReadHash(type, in, &o->hash());
      break;
    case ObjType::kZSet:
      ok = ReadZSet(type, in, limits, &o->zset());
      break;
    default:
      break;
  }
  if (!ok) return RdbValueStatus::kMalformed;
  if (o->EmptyCollection()) return RdbValueStatus::kEmpty;
  *obj = std::move(o);
  return RdbValueStatus::kOk;
}

}  // namespace ordis::server
