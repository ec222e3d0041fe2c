// Geo commands over sorted sets: GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH GEOSEARCHSTORE GEORADIUS
// GEORADIUSBYMEMBER GEORADIUS_RO GEORADIUSBYMEMBER_RO.
//
// A position is a member whose score is Redis's 52-bit geohash (server/types/geohash.h), so a geo
// set is an ordinary sorted set (ZRANGE, ZREM and the rest work on it) and any sorted set can be
// searched. A search walks at most 9 score ranges of the set, one per cell covering the shape,
// each by one rank search and a walk in score order (O(log n + m) per cell), keeping the points
// inside the shape in the order Redis finds them. Replies, errors, their order and the keyspace
// events are Redis 7.0's; distances and coordinates are computed and printed as Redis does, digit
// for digit.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/zset_access.h"
#include "server/types/geohash.h"

namespace ordis::server {
namespace {

constexpr std::string_view kUnitError = "ERR unsupported unit provided. please use M, KM, FT, MI";
constexpr std::string_view kMemberNotDecoded = "ERR could not decode requested zset member";

// --- Arguments -----------------------------------------------------------------------------------

// Meters per unit, or nullopt (after replying the error) for an unknown unit.
std::optional<double> ParseUnit(CommandContext& ctx, std::string_view unit) {
  if (EqualsIgnoreCase(unit, "m")) return 1;
  if (EqualsIgnoreCase(unit, "km")) return 1000;
  if (EqualsIgnoreCase(unit, "ft")) return 0.3048;
  if (EqualsIgnoreCase(unit, "mi")) return 1609.34;
  ctx.out.Error(kUnitError);
  return std::nullopt;
}

// A number argument as Redis's getDoubleFromObjectOrReply: error is the reply when it is not one.
bool ParseNumber(CommandContext& ctx, std::string_view arg, std::string_view error, double* out) {
  if (ParseDouble(arg, out)) return true;
  ctx.out.Error(error);
  return false;
}

// longitude latitude: two numbers within the valid ranges.
bool ParsePosition(CommandContext& ctx, std::string_view lon, std::string_view lat,
                   geo::Point* out) {
  if (!ParseNumber(ctx, lon, errors::kNotFloat, &out->lon) ||
      !ParseNumber(ctx, lat, errors::kNotFloat, &out->lat)) {
    return false;
  }
  if (geo::ValidPosition(*out)) return true;
  char buf[800];  // "%f" of the largest double is 316 characters
  snprintf(buf, sizeof buf, "ERR invalid longitude,latitude pair %f,%f", out->lon, out->lat);
  ctx.out.Error(buf);
  return false;
}

// radius unit
bool ParseRadius(CommandContext& ctx, std::string_view radius, std::string_view unit,
                 geo::Shape* shape) {
  if (!ParseNumber(ctx, radius, "ERR need numeric radius", &shape->radius)) return false;
  if (shape->radius < 0) {
    ctx.out.Error("ERR radius cannot be negative");
    return false;
  }
  std::optional<double> conversion = ParseUnit(ctx, unit);
  if (!conversion) return false;
  shape->conversion = *conversion;
  shape->kind = geo::Shape::Kind::kRadius;
  return true;
}

// width height unit
bool ParseBox(CommandContext& ctx, std::span<const std::string_view> args, geo::Shape* shape) {
  if (!ParseNumber(ctx, args[0], "ERR need numeric width", &shape->width) ||
      !ParseNumber(ctx, args[1], "ERR need numeric height", &shape->height)) {
    return false;
  }
  if (shape->height < 0 || shape->width < 0) {
    ctx.out.Error("ERR height or width cannot be negative");
    return false;
  }
  std::optional<double> conversion = ParseUnit(ctx, args[2]);
  if (!conversion) return false;
  shape->conversion = *conversion;
  shape->kind = geo::Shape::Kind::kBox;
  return true;
}

// The position of a member, if it is in the set.
std::optional<geo::Point> MemberPosition(const ZSetValue& z, std::string_view member) {
  std::optional<double> score = z.Score(member);
  if (!score) return std::nullopt;
  return geo::DecodeScore(*score);
}

// --- Replies -------------------------------------------------------------------------------------

// A distance as Redis replies it: "%.4f" in a bulk string, in both protocols.
void ReplyDistance(CommandContext& ctx, double d) {
  char buf[400];  // "%.4f" of any distance a search or GEODIST computes is far shorter
  const int n = snprintf(buf, sizeof buf, "%.4f", d);
  ctx.out.Bulk(std::string_view(buf, n > 0 && n < static_cast<int>(sizeof buf) ? n : 0));
}

// A coordinate as Redis's addReplyHumanLongDouble: "%.17Lf" without trailing zeros, a bulk string
// on RESP2 and a double on RESP3.
void ReplyCoordinate(CommandContext& ctx, double v) {
  const std::string text = FormatLongDouble(v);
  if (ctx.out.protocol() >= 3) {
    ctx.out.Raw(",");
    ctx.out.Raw(text);
    ctx.out.Raw("\r\n");
  } else {
    ctx.out.Bulk(text);
  }
}

void ReplyPosition(CommandContext& ctx, geo::Point p) {
  ctx.out.ArrayHeader(2);
  ReplyCoordinate(ctx, p.lon);
  ReplyCoordinate(ctx, p.lat);
}

// WITHHASH's integer: the score converted as Redis converts it (x86-64: truncated, and INT64_MIN
// out of range; a geohash is always in range).
int64_t ScoreAsInteger(double score) {
  constexpr double k2p63 = 9223372036854775808.0;
  return score >= -k2p63 && score < k2p63 ? static_cast<int64_t>(score) : INT64_MIN;
}

// --- GEOADD GEODIST GEOHASH GEOPOS
// ----------------------------------------------------------------

// GEOADD key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]
// Redis's GEOADD is ZADD with the encoded scores: options are read up to the first argument that
// is not one, every position is checked before the key is looked at, and the event is "zadd".
void CmdGeoAdd(CommandContext& ctx) {
  bool nx = false, xx = false, ch = false;
  size_t first = 2;
  for (; first < ctx.args.size(); ++first) {
    const std::string_view opt = ctx.args[first];
    if (EqualsIgnoreCase(opt, "nx")) {
      nx = true;
    } else if (EqualsIgnoreCase(opt, "xx")) {
      xx = true;
    } else if (EqualsIgnoreCase(opt, "ch")) {
      ch = true;
    } else {
      break;
    }
  }
  const size_t rest = ctx.args.size() - first;
  // No triple at all is ZADD's syntax error, which Redis's GEOADD passes on.
  if (rest % 3 != 0 || rest == 0 || (nx && xx)) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  const size_t elements = rest / 3;
  std::vector<double> scores(elements);
  for (size_t j = 0; j < elements; ++j) {
    geo::Point p;
    if (!ParsePosition(ctx, ctx.args[first + 3 * j], ctx.args[first + 3 * j + 1], &p)) return;
    scores[j] = static_cast<double>(geo::ScoreBits(p));
  }
  const std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kZSet, !xx, &wrong_type);
  if (wrong_type) return;
  int64_t added = 0, updated = 0;
  if (obj != nullptr) {
    ZSetValue& z = obj->zset();
    const ZSetLimits limits = ZSetLimitsOf(ctx);
    for (size_t j = 0; j < elements; ++j) {
      const std::string_view member = ctx.args[first + 3 * j + 2];
      if (std::optional<double> current = z.Score(member)) {
        if (nx || *current == scores[j]) continue;
        z.Insert(member, scores[j], limits);
        ++updated;
      } else if (!xx) {
        z.Insert(member, scores[j], limits);
        ++added;
      }
    }
    if (added + updated > 0) {
      ctx.Notify(keyspace_events::kZset, "zadd", key);
      FinishCollectionWrite(ctx, key, obj);
    } else if (obj->EmptyCollection()) {
      ctx.keyspace().Delete(ctx.db(), key);  // made for the command, never a key of its own
    }
  }
  ctx.out.Integer(ch ? added + updated : added);
}

// GEODIST key member1 member2 [M | KM | FT | MI]
void CmdGeoDist(CommandContext& ctx) {
  double to_meters = 1;
  if (ctx.args.size() == 5) {
    std::optional<double> conversion = ParseUnit(ctx, ctx.args[4]);
    if (!conversion) return;
    to_meters = *conversion;
  } else if (ctx.args.size() > 5) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  const ZSetValue& z = obj->zset();
  const std::optional<geo::Point> a = MemberPosition(z, ctx.args[2]);
  const std::optional<geo::Point> b = a ? MemberPosition(z, ctx.args[3]) : std::nullopt;
  if (!b) {
    ctx.out.NullBulk();
    return;
  }
  ReplyDistance(ctx, geo::Distance(*a, *b) / to_meters);
}

// GEOHASH key [member ...]
void CmdGeoHash(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    const std::optional<double> score =
        obj == nullptr ? std::nullopt : obj->zset().Score(ctx.args[i]);
    if (!score) {
      ctx.out.NullBulk();
      continue;
    }
    const std::array<char, 11> hash = geo::StandardGeohash(*score);
    ctx.out.Bulk(std::string_view(hash.data(), hash.size()));
  }
}

// GEOPOS key [member ...]
void CmdGeoPos(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    const std::optional<geo::Point> p =
        obj == nullptr ? std::nullopt : MemberPosition(obj->zset(), ctx.args[i]);
    if (!p) {
      ctx.out.NullArray();
    } else {
      ReplyPosition(ctx, *p);
    }
  }
}

// --- Searches ------------------------------------------------------------------------------------

enum class Sort { kNone, kAsc, kDesc };

// A point a search keeps. member views the source set, which nothing changes while the command
// runs; found is its place in the order Redis finds points (cell by cell, by score in a cell).
struct Found {
  std::string_view member;
  double score;
  double distance;  // meters
  geo::Point position;
  size_t found;
};

// Redis sorts all the points it found by distance with a stable sort (glibc's qsort is a merge
// sort), so ties keep the order they were found in, for DESC too.
bool Before(const Found& a, const Found& b, Sort sort) {
  if (a.distance != b.distance) {
    return sort == Sort::kDesc ? a.distance > b.distance : a.distance < b.distance;
  }
  return a.found < b.found;
}

struct SearchRequest {
  geo::Shape shape;
  Sort sort = Sort::kNone;
  uint64_t count = 0;  // 0: all
  bool any = false;    // stop at `count` points, in the order found
};

// Calls visit(member, score) for each point of z in the covering cells, in the order Redis finds
// them (cell by cell, by score within a cell), until visit returns false.
template <typename Visit>
void WalkCells(const ZSetValue& z, const std::array<geo::Cell, 9>& cells, Visit visit) {
  bool more = true;
  size_t last = 0;
  for (size_t i = 0; i < cells.size() && more; ++i) {
    if (!geo::CellToWalk(cells, i, last)) continue;
    last = i;
    const geo::Interval scores = geo::ScoreRange(cells[i]);
    const size_t first =
        z.CountBefore([&](double score, std::string_view) { return score < scores.min; });
    if (first == z.size()) continue;
    z.VisitFrom(first, false, [&](std::string_view member, double score) {
      if (!(score < scores.max)) return false;
      more = visit(member, score);
      return more;
    });
  }
}

// Every point in the shape, in the order found; at most limit of them (0: no limit).
std::vector<Found> CollectAll(const ZSetValue& z, const std::array<geo::Cell, 9>& cells,
                              const geo::ShapeTest& test, uint64_t limit) {
  std::vector<Found> all;
  WalkCells(z, cells, [&](std::string_view member, double score) {
    const geo::Point p = geo::DecodeScore(score);
    double distance;
    if (!test.Contains(p, &distance)) return true;
    all.push_back({member, score, distance, p, all.size()});
    return limit == 0 || all.size() < limit;
  });
  return all;
}

// The `count` first points in the request's order (COUNT without ANY), sorted, kept in a heap
// whose top is the worst of them: a point that cannot beat it is dropped at once, and for ASC a
// point the cheap bound proves farther skips the distance altogether. *exact is false when Redis's
// order can differ: it partially sorts all the points it found when there are more than count,
// and that sort places points at equal distances its own way (see PartialQuicksort).
std::vector<Found> CollectBest(const ZSetValue& z, const std::array<geo::Cell, 9>& cells,
                               const geo::ShapeTest& test, const SearchRequest& req, bool* exact) {
  auto heap_order = [&](const Found& a, const Found& b) { return Before(a, b, req.sort); };
  std::vector<Found> best;
  size_t found = 0;
  bool dropped = false;                // more points than count (or maybe: pruned ones)
  std::optional<double> best_dropped;  // the distance of the first point dropped, in order
  auto drop = [&](double distance) {
    if (!best_dropped ||
        (req.sort == Sort::kDesc ? distance > *best_dropped : distance < *best_dropped)) {
      best_dropped = distance;
    }
  };
  WalkCells(z, cells, [&](std::string_view member, double score) {
    const bool full = best.size() == req.count;
    const double lat = geo::DecodeLatitude(score);
    if (full && req.sort == Sort::kAsc && test.LowerBound(lat) > best.front().distance) {
      dropped = true;  // farther than every kept point, so never a tie with one
      return true;
    }
    const geo::Point p{geo::DecodeLongitude(score), lat};
    double distance;
    if (!test.Contains(p, &distance)) return true;
    const Found f{member, score, distance, p, found++};
    if (!full) {
      best.push_back(f);
      std::push_heap(best.begin(), best.end(), heap_order);
      return true;
    }
    dropped = true;
    if (!heap_order(f, best.front())) {
      drop(f.distance);
      return true;
    }
    std::pop_heap(best.begin(), best.end(), heap_order);
    drop(best.back().distance);
    best.back() = f;
    std::push_heap(best.begin(), best.end(), heap_order);
    return true;
  });
  std::sort(best.begin(), best.end(), heap_order);
  *exact = true;
  if (dropped && !best.empty()) {
    for (size_t i = 1; i < best.size() && *exact; ++i) {
      *exact = best[i - 1].distance != best[i].distance;
    }
    if (best_dropped && *best_dropped == best.back().distance) *exact = false;
  }
  return best;
}

// The points of z in the request's shape, in the reply's order, at most count of them.
std::vector<Found> Search(const ZSetValue& z, const SearchRequest& req) {
  const std::array<geo::Cell, 9> cells = geo::CoveringCells(req.shape);
  const geo::ShapeTest test(req.shape);
  auto stable_order = [&](const Found& a, const Found& b) { return Before(a, b, req.sort); };
  if (req.count > 0 && !req.any) {
    bool exact;
    std::vector<Found> best = CollectBest(z, cells, test, req, &exact);
    if (exact) return best;
    // Ties decide: every point, ordered as Redis orders them.
    std::vector<Found> all = CollectAll(z, cells, test, 0);
    if (all.size() <= req.count) {
      std::sort(all.begin(), all.end(), stable_order);
      return all;
    }
    auto by_distance = [&](const Found& a, const Found& b) {
      const int c = a.distance > b.distance ? 1 : a.distance == b.distance ? 0 : -1;
      return req.sort == Sort::kDesc ? -c : c;
    };
    const size_t k = static_cast<size_t>(req.count);
    geo::PartialQuicksort<Found, decltype(by_distance)>(std::span<Found>(all), k, by_distance)
        .Run();
    all.resize(k);
    return all;
  }
  std::vector<Found> all = CollectAll(z, cells, test, req.any ? req.count : 0);
  if (req.sort != Sort::kNone) std::sort(all.begin(), all.end(), stable_order);
  return all;
}

// Which command runs the search, as Redis's georadiusGeneric flags.
enum SearchFlags : unsigned {
  kFromCoords = 1 << 0,   // GEORADIUS: key longitude latitude radius unit ...
  kFromMember = 1 << 1,   // GEORADIUSBYMEMBER: key member radius unit ...
  kNoStore = 1 << 2,      // the _RO forms
  kSearch = 1 << 3,       // GEOSEARCH: key FROMMEMBER | FROMLONLAT, BYRADIUS | BYBOX ...
  kSearchStore = 1 << 4,  // GEOSEARCHSTORE destination source ...
};

// Every search command: the source at args[src]. Arguments are read in Redis's order, each error
// replied where Redis meets it (the source's type first, a FROMMEMBER that is not in the set while
// the options are read, the conflicts after them).
void GeoSearchGeneric(CommandContext& ctx, size_t src, unsigned flags) {
  const auto& args = ctx.args;
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, args[src], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  const ZSetValue* z = obj == nullptr ? nullptr : &obj->zset();

  SearchRequest req;
  geo::Shape& shape = req.shape;
  std::optional<std::string_view> store_key;
  bool store_dist = false;
  size_t base;
  if (flags & kFromCoords) {
    base = 6;
    if (!ParsePosition(ctx, args[2], args[3], &shape.center)) return;
    if (!ParseRadius(ctx, args[4], args[5], &shape)) return;
  } else if (flags & kFromMember) {
    base = 5;
    // Without a source the member and radius are not looked at: the reply is empty anyway.
    if (z != nullptr) {
      std::optional<geo::Point> center = MemberPosition(*z, args[2]);
      if (!center) {
        ctx.out.Error(kMemberNotDecoded);
        return;
      }
      shape.center = *center;
      if (!ParseRadius(ctx, args[3], args[4], &shape)) return;
    }
  } else {
    base = 2;
    if (flags & kSearchStore) {
      base = 3;
      store_key = args[1];
    }
  }

  bool withdist = false, withhash = false, withcoord = false;
  bool from_member = false, from_lonlat = false, by_radius = false, by_box = false;
  const bool search = flags & kSearch;
  const bool may_store = !(flags & kNoStore) && !search;
  const size_t n = args.size();
  for (size_t i = base; i < n; ++i) {
    const std::string_view arg = args[i];
    const size_t more = n - i - 1;  // arguments after this one
    if (EqualsIgnoreCase(arg, "withdist")) {
      withdist = true;
    } else if (EqualsIgnoreCase(arg, "withhash")) {
      withhash = true;
    } else if (EqualsIgnoreCase(arg, "withcoord")) {
      withcoord = true;
    } else if (EqualsIgnoreCase(arg, "any")) {
      req.any = true;
    } else if (EqualsIgnoreCase(arg, "asc")) {
      req.sort = Sort::kAsc;
    } else if (EqualsIgnoreCase(arg, "desc")) {
      req.sort = Sort::kDesc;
    } else if (EqualsIgnoreCase(arg, "count") && more >= 1) {
      int64_t count;
      if (!ParseInt64(args[++i], &count)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      if (count <= 0) {
        ctx.out.Error("ERR COUNT must be > 0");
        return;
      }
      req.count = static_cast<uint64_t>(count);
    } else if (EqualsIgnoreCase(arg, "store") && more >= 1 && may_store) {
      store_key = args[++i];
      store_dist = false;
    } else if (EqualsIgnoreCase(arg, "storedist") && more >= 1 && may_store) {
      store_key = args[++i];
      store_dist = true;
    } else if (EqualsIgnoreCase(arg, "storedist") && (flags & kSearchStore)) {
      store_dist = true;
    } else if (EqualsIgnoreCase(arg, "frommember") && more >= 1 && search && !from_lonlat) {
      from_member = true;
      const std::string_view member = args[++i];
      if (z == nullptr) continue;  // an empty reply follows the other checks
      std::optional<geo::Point> center = MemberPosition(*z, member);
      if (!center) {
        ctx.out.Error(kMemberNotDecoded);
        return;
      }
      shape.center = *center;
    } else if (EqualsIgnoreCase(arg, "fromlonlat") && more >= 2 && search && !from_member) {
      if (!ParsePosition(ctx, args[i + 1], args[i + 2], &shape.center)) return;
      from_lonlat = true;
      i += 2;
    } else if (EqualsIgnoreCase(arg, "byradius") && more >= 2 && search && !by_box) {
      if (!ParseRadius(ctx, args[i + 1], args[i + 2], &shape)) return;
      by_radius = true;
      i += 2;
    } else if (EqualsIgnoreCase(arg, "bybox") && more >= 3 && search && !by_radius) {
      if (!ParseBox(ctx, args.subspan(i + 1, 3), &shape)) return;
      by_box = true;
      i += 3;
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }

  if (store_key && (withdist || withhash || withcoord)) {
    ctx.out.Error((flags & kSearchStore)
                      ? "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and "
                        "WITHCOORD options"
                      : "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH "
                        "and WITHCOORD options");
    return;
  }
  if (search && !from_member && !from_lonlat) {
    ctx.out.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " +
                  std::string(args[0]));
    return;
  }
  if (search && !by_radius && !by_box) {
    ctx.out.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " +
                  std::string(args[0]));
    return;
  }
  if (req.any && req.count == 0) {
    ctx.out.Error("ERR the ANY argument requires COUNT argument");
    return;
  }
  const std::string_view event = search ? "geosearchstore" : "georadiusstore";
  if (z == nullptr) {
    if (store_key) {
      StoreZSetResult(ctx, *store_key, ZSetValue(), event);
    } else {
      ctx.out.ArrayHeader(0);
    }
    return;
  }
  // COUNT picks the nearest unless ANY says any will do.
  if (req.count > 0 && req.sort == Sort::kNone && !req.any) req.sort = Sort::kAsc;

  const std::vector<Found> points = Search(*z, req);
  if (store_key) {
    ZSetValue result;
    const ZSetLimits limits = ZSetLimitsOf(ctx);
    for (const Found& f : points) {
      result.Insert(f.member, store_dist ? f.distance / shape.conversion : f.score, limits);
    }
    StoreZSetResult(ctx, *store_key, std::move(result), event);
    return;
  }
  const int options = withdist + withhash + withcoord;
  ctx.out.ArrayHeader(static_cast<int64_t>(points.size()));
  for (const Found& f : points) {
    if (options > 0) ctx.out.ArrayHeader(options + 1);
    ctx.out.Bulk(f.member);
    if (withdist) ReplyDistance(ctx, f.distance / shape.conversion);
    if (withhash) ctx.out.Integer(ScoreAsInteger(f.score));
    if (withcoord) ReplyPosition(ctx, f.position);
  }
}

// GEORADIUS key longitude latitude radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH]
//   [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]
void CmdGeoRadius(CommandContext& ctx) { GeoSearchGeneric(ctx, 1, kFromCoords); }
// GEORADIUS_RO: the same without STORE and STOREDIST.
void CmdGeoRadiusRo(CommandContext& ctx) { GeoSearchGeneric(ctx, 1, kFromCoords | kNoStore); }
// GEORADIUSBYMEMBER key member radius M | KM | FT | MI [options as GEORADIUS]
void CmdGeoRadiusByMember(CommandContext& ctx) { GeoSearchGeneric(ctx, 1, kFromMember); }
void CmdGeoRadiusByMemberRo(CommandContext& ctx) {
  GeoSearchGeneric(ctx, 1, kFromMember | kNoStore);
}
// GEOSEARCH key FROMMEMBER member | FROMLONLAT longitude latitude
//   BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI
//   [ASC | DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
void CmdGeoSearch(CommandContext& ctx) { GeoSearchGeneric(ctx, 1, kSearch); }
// GEOSEARCHSTORE destination source [GEOSEARCH's options but WITH*] [STOREDIST]
void CmdGeoSearchStore(CommandContext& ctx) { GeoSearchGeneric(ctx, 2, kSearch | kSearchStore); }

// GEORADIUS's and GEORADIUSBYMEMBER's keys, from the options at `from` on: Redis 7.0's key specs
// (the source; the argument after the first STORE, then after the first STOREDIST, neither
// keyword the last argument), and also the key a later STORE or STOREDIST writes when the specs
// name another (the last one wins when the command runs; Redis's specs miss it, so its ACL check
// would let the command write a key the user may not).
void RadiusKeys(std::span<const std::string_view> args, size_t from, std::vector<size_t>* out) {
  if (args.size() > 1) out->push_back(1);
  auto after_first = [&](std::string_view keyword) {
    for (size_t i = from; i + 1 < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], keyword)) {
        out->push_back(i + 1);
        return;
      }
    }
  };
  after_first("store");
  after_first("storedist");
  std::optional<size_t> written;
  for (size_t i = from; i + 1 < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "count")) {
      ++i;
    } else if (EqualsIgnoreCase(args[i], "store") || EqualsIgnoreCase(args[i], "storedist")) {
      written = ++i;
    }
  }
  if (written && std::find(out->begin(), out->end(), *written) == out->end()) {
    out->push_back(*written);
  }
}

void GeoRadiusKeys(std::span<const std::string_view> args, std::vector<size_t>* out) {
  RadiusKeys(args, 6, out);
}
void GeoRadiusByMemberKeys(std::span<const std::string_view> args, std::vector<size_t>* out) {
  RadiusKeys(args, 5, out);
}

}  // namespace

void RegisterGeoFamily(CommandTable* table) {
  using namespace cmd;
  constexpr std::string_view kGroup = "geo";  // COMMAND DOCS group and ACL category @geo
  // One row per command; flags, arity and key positions as Redis 7.0's COMMAND INFO.
  // clang-format off
  table->Register({
      {"geoadd", -5, kWrite | kDenyOom, 1, 1, 1, CmdGeoAdd, kGroup, "Add one or more geospatial items in the geospatial index represented using a sorted set"},
      {"geodist", -4, kReadonly, 1, 1, 1, CmdGeoDist, kGroup, "Returns the distance between two members of a geospatial index"},
      {"geohash", -2, kReadonly, 1, 1, 1, CmdGeoHash, kGroup, "Returns members of a geospatial index as standard geohash strings"},
      {"geopos", -2, kReadonly, 1, 1, 1, CmdGeoPos, kGroup, "Returns longitude and latitude of members of a geospatial index"},
      {"geosearch", -7, kReadonly, 1, 1, 1, CmdGeoSearch, kGroup, "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle."},
      {"geosearchstore", -8, kWrite | kDenyOom, 1, 2, 1, CmdGeoSearchStore, kGroup, "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key."},
      {.name = "georadius", .arity = -6, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoRadius, .group = kGroup,
       .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point", .find_keys = GeoRadiusKeys},
      {.name = "georadiusbymember", .arity = -5, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoRadiusByMember, .group = kGroup,
       .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member", .find_keys = GeoRadiusByMemberKeys},
      {"georadius_ro", -6, kReadonly, 1, 1, 1, CmdGeoRadiusRo, kGroup, "A read-only variant for GEORADIUS"},
      {"georadiusbymember_ro", -5, kReadonly, 1, 1, 1, CmdGeoRadiusByMemberRo, kGroup, "A read-only variant for GEORADIUSBYMEMBER"},
  });
  // clang-format on
}

}  // namespace ordis::server
