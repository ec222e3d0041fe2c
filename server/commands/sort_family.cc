// SORT SORT_RO: a list's, set's or sorted set's elements in numeric or ALPHA order, by their own
// value or by other keys' (BY), replied as they are or as values they name (GET), or stored as a
// list (STORE), with Redis 7.0's rules and corner cases.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <forward_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/number.h"
#include "server/command/acl_bridge.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"

namespace ordis::server {
namespace {

constexpr std::string_view kNotDouble = "ERR One or more scores can't be converted into double";
constexpr std::string_view kByDenied =
    "ERR BY option of SORT denied due to insufficient ACL permissions.";
constexpr std::string_view kGetDenied =
    "ERR GET option of SORT denied due to insufficient ACL permissions.";

// Redis reads patterns and elements as C strings when it searches them (strchr, strstr, strtod,
// strcoll): only the bytes before a NUL count there.
std::string_view CString(std::string_view s) { return s.substr(0, s.find('\0')); }

// A BY or GET pattern: "#" names the element itself; otherwise the element replaces the first
// '*' to make a key, whose string value is named, or with "->field" after that '*' (a field of
// at least one byte) the field of the hash there. A pattern without '*' names nothing.
struct Pattern {
  enum Kind : uint8_t { kElement, kNothing, kKey } kind = kNothing;
  std::string_view prefix, postfix, field;
  bool hash = false;
};

Pattern ParsePattern(std::string_view text) {
  Pattern p;
  const std::string_view c = CString(text);
  if (c == "#") {
    p.kind = Pattern::kElement;
    return p;
  }
  const size_t star = c.find('*');
  if (star == std::string_view::npos) return p;
  p.kind = Pattern::kKey;
  p.prefix = text.substr(0, star);
  const size_t arrow = c.find("->", star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < c.size()) {
    p.hash = true;
    p.field = text.substr(arrow + 2);
    p.postfix = text.substr(star + 1, arrow - star - 1);
  } else {
    p.postfix = text.substr(star + 1);
  }
  return p;
}

// What pattern names for element: a view into the keyspace (or into *scratch for an int), or
// nullopt for a missing key or field, or a key of the wrong type. A lookup as Redis's: it counts
// a hit or miss.
std::optional<std::string_view> Resolve(CommandContext& ctx, const Pattern& pattern,
                                        std::string_view element, std::string* key,
                                        IntText* scratch) {
  if (pattern.kind == Pattern::kElement) return element;
  if (pattern.kind == Pattern::kNothing) return std::nullopt;
  key->assign(pattern.prefix);
  key->append(element);
  key->append(pattern.postfix);
  Object* obj = LookupRead(ctx, *key);
  if (obj == nullptr) return std::nullopt;
  if (pattern.hash) {
    if (obj->type() != ObjType::kHash) return std::nullopt;
    const HashValue& h = obj->hash();
    auto it = h.find(absl::string_view(pattern.field.data(), pattern.field.size()));
    if (it == h.end()) return std::nullopt;
    return std::string_view(it->second);
  }
  if (obj->type() != ObjType::kString) return std::nullopt;
  return obj->StringBytes(scratch);
}

// A plain decimal integer of at most 15 digits (leading zeros allowed) is exact in a double and
// is what strtod reads it as: most scores take this path. "-0" does not (strtod gives -0.0).
bool ParseShortInteger(std::string_view s, double* out) {
  const bool negative = !s.empty() && s[0] == '-';
  const size_t first = negative ? 1 : 0;
  if (s.size() == first || s.size() - first > 15) return false;
  int64_t v = 0;
  for (size_t i = first; i < s.size(); ++i) {
    const auto digit = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
    if (digit > 9) return false;
    v = v * 10 + digit;
  }
  if (negative && v == 0) return false;
  *out = static_cast<double>(negative ? -v : v);
  return true;
}

// The score of a value for a numeric sort, as Redis reads it with strtod: leading spaces, hex,
// "inf" and the empty string (0) pass, the rest must parse whole (up to a NUL); NaN and a value
// out of range (ERANGE, underflow included) do not.
bool ParseSortScore(std::string_view value, double* out) {
  if (ParseShortInteger(value, out)) return true;
  const std::string_view c = CString(value);
  char small[64];
  std::string large;
  const char* text;
  if (c.size() < sizeof small) {
    std::memcpy(small, c.data(), c.size());
    small[c.size()] = '\0';
    text = small;
  } else {
    large.assign(c);
    text = large.c_str();
  }
  char* end;
  errno = 0;
  *out = std::strtod(text, &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*out);
}

// Byte order, a shorter prefix first: Redis's binary compare of strings.
int CompareBytes(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

// ALPHA without STORE: Redis uses strcoll, which stops at a NUL; in the C locale ordis runs in
// (and Redis's C and C.UTF-8) that is byte order of the C strings.
int CompareCollated(std::string_view a, std::string_view b) {
  return CompareBytes(CString(a), CString(b));
}

struct SortItem {
  std::string_view element;
  double score = 0;     // numeric sort
  std::string_view by;  // ALPHA with BY: the value compared, when has_by
  bool has_by = false;
  uint32_t position = 0;  // in the collection: ties keep this order, as Redis's stable qsort
};

struct SortRequest {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;  // BY a pattern without '*' (sticky, as in Redis)
  std::optional<std::string_view> by;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::vector<std::string_view> gets;
  std::optional<std::string_view> store;
};

// Redis 7.0 refuses BY and GET patterns to a user unless a selector that allows the command (its
// keys included) reads every key: ACL key patterns cannot say which keys a pattern reaches. The
// user's rules are asked about the command's keys plus "" and "\x01" read: only allkeys or a
// pattern of nothing but '*'s matches both (or two patterns such as "" and "?" together, which no
// real rule set has).
bool MayReadEveryKey(CommandContext& ctx) {
  if (!ctx.client.user) return true;
  const acl::User* user = ctx.client.user.Current();
  if (user == nullptr) return false;
  const int id = ctx.client.last_command_id.load(std::memory_order_relaxed);
  if (id < 0) return false;
  if (user->Unrestricted(id)) return true;
  const CommandSpec& spec = *ctx.services.commands.flat()[static_cast<size_t>(id)];
  std::vector<acl::KeyRef> keys;
  ForEachKeyAccess(spec, ctx.args, [&](size_t i, uint8_t access) {
    keys.push_back({ctx.args[i], access});
  });
  keys.push_back({std::string_view(), acl::kKeyRead});
  keys.push_back({std::string_view("\x01", 1), acl::kKeyRead});
  acl::Request request;
  request.command_id = id;
  if (ctx.args.size() > 1) request.first_arg = ctx.args[1];
  request.keys = keys;
  return user->Check(request).ok();
}

// Parses SORT's options in Redis's order (the first bad one answers); false after replying.
bool ParseSortRequest(CommandContext& ctx, bool readonly, SortRequest* req) {
  const auto& args = ctx.args;
  std::optional<bool> full_access;
  auto may_read_every_key = [&] {
    if (!full_access) full_access = MayReadEveryKey(ctx);
    return *full_access;
  };
  for (size_t j = 2; j < args.size(); ++j) {
    const size_t left = args.size() - j - 1;
    const std::string_view a = args[j];
    if (EqualsIgnoreCase(a, "asc")) {
      req->desc = false;
    } else if (EqualsIgnoreCase(a, "desc")) {
      req->desc = true;
    } else if (EqualsIgnoreCase(a, "alpha")) {
      req->alpha = true;
    } else if (EqualsIgnoreCase(a, "limit") && left >= 2) {
      if (!ParseInt64(args[j + 1], &req->limit_start) ||
          !ParseInt64(args[j + 2], &req->limit_count)) {
        ctx.out.Error(errors::kNotInteger);
        return false;
      }
      j += 2;
    } else if (!readonly && EqualsIgnoreCase(a, "store") && left >= 1) {
      req->store = args[++j];
    } else if (EqualsIgnoreCase(a, "by") && left >= 1) {
      req->by = args[++j];
      if (CString(*req->by).find('*') == std::string_view::npos) {
        req->dontsort = true;
      } else if (!may_read_every_key()) {
        ctx.out.Error(kByDenied);
        return false;
      }
    } else if (EqualsIgnoreCase(a, "get") && left >= 1) {
      if (!may_read_every_key()) {
        ctx.out.Error(kGetDenied);
        return false;
      }
      req->gets.push_back(args[++j]);
    } else {
      ctx.out.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// The elements [first, first + count) of the collection in its own order (a list's, a sorted
// set's by score, reversed when reverse; a set's positions), positions numbered from 0.
void LoadElements(const Object* obj, size_t first, size_t count, bool reverse,
                  std::vector<SortItem>* items) {
  items->resize(count);  // filled in place: building each item aside and copying it cost more
  SortItem* next = items->data();
  auto add = [&](std::string_view e) {
    next->element = e;
    next->position = static_cast<uint32_t>(next - items->data());
    ++next;
  };
  if (count == 0) return;
  switch (obj->type()) {
    case ObjType::kList: {
      const ListValue& list = std::get<ListValue>(obj->collection());
      const auto offset = static_cast<ptrdiff_t>(first);
      if (reverse) {
        std::for_each_n(list.rbegin() + offset, count, add);
      } else {
        std::for_each_n(list.begin() + offset, count, add);
      }
      break;
    }
    case ObjType::kSet: {
      const SetValue& set = std::get<SetValue>(obj->collection());
      for (size_t i = first; i < first + count; ++i) add(set[i]);
      break;
    }
    case ObjType::kZSet: {
      const ZSetValue& z = obj->zset();
      const size_t start = reverse ? z.size() - 1 - first : first;
      z.VisitFrom(start, reverse, [&](std::string_view member, double) {
        add(member);
        return next != items->data() + count;
      });
      break;
    }
    default:
      break;
  }
}

size_t CollectionSize(const Object* obj) {
  switch (obj->type()) {
    case ObjType::kList:
      return std::get<ListValue>(obj->collection()).size();
    case ObjType::kSet:
      return std::get<SetValue>(obj->collection()).size();
    case ObjType::kZSet:
      return obj->zset().size();
    default:
      return 0;
  }
}

// Orders items [first, first + count) as a full stable sort would (the rest in no order): the
// comparison is a total order, ties falling back to the collection's order.
template <typename Compare>
void SortRange(std::vector<SortItem>* items, size_t first, size_t count, bool desc,
               Compare compare) {
  auto less = [&](const SortItem& a, const SortItem& b) {
    int c = compare(a, b);
    if (desc) c = -c;
    return c != 0 ? c < 0 : a.position < b.position;
  };
  if (count == 0) return;
  auto begin = items->begin();
  if (first == 0 && count == items->size()) {
    std::sort(begin, items->end(), less);
    return;
  }
  if (first > 0) std::nth_element(begin, begin + static_cast<ptrdiff_t>(first), items->end(), less);
  std::partial_sort(begin + static_cast<ptrdiff_t>(first),
                    begin + static_cast<ptrdiff_t>(first + count), items->end(), less);
}

void SortGeneric(CommandContext& ctx, bool readonly) {
  SortRequest req;
  if (!ParseSortRequest(ctx, readonly, &req)) return;
  std::string_view key = ctx.args[1];
  Object* obj = LookupRead(ctx, key);
  if (obj != nullptr && obj->type() != ObjType::kList && obj->type() != ObjType::kSet &&
      obj->type() != ObjType::kZSet) {
    ctx.out.Error(errors::kWrongType);
    return;
  }
  const bool is_set = obj != nullptr && obj->type() == ObjType::kSet;
  // A set has no order of its own: unsorted output would differ between a script or a STORE
  // and its replay, so Redis sorts it ALPHA by its members there.
  if (req.dontsort && is_set && (req.store || ctx.from_script)) {
    req.dontsort = false;
    req.alpha = true;
    req.by.reset();
  }
  const size_t n = obj == nullptr ? 0 : CollectionSize(obj);
  // LIMIT: [start, start + count) of the sorted elements, clamped to what there is.
  size_t start = 0, count = 0;
  if (req.limit_start < static_cast<int64_t>(n)) {
    start = req.limit_start < 0 ? 0 : static_cast<size_t>(req.limit_start);
    const size_t rest = n - start;
    count = req.limit_count < 0 ? rest : std::min(rest, static_cast<size_t>(req.limit_count));
  }

  std::vector<SortItem> items;
  std::forward_list<IntText> int_values;  // ALPHA BY values of int strings, rendered
  bool score_error = false;
  if (obj != nullptr) {
    // A list or sorted set left unsorted is read in its own order (reversed for DESC), only the
    // range LIMIT asks for.
    const bool ordered = obj->type() != ObjType::kSet;
    if (req.dontsort && ordered) {
      LoadElements(obj, start, count, req.desc, &items);
      start = 0;
    } else {
      LoadElements(obj, 0, n, false, &items);
    }
  }
  if (!req.dontsort && !items.empty()) {
    std::optional<Pattern> by;
    if (req.by) by = ParsePattern(*req.by);
    std::string key_buffer;
    for (SortItem& item : items) {
      std::optional<std::string_view> value = item.element;
      IntText scratch;
      if (by) {
        value = Resolve(ctx, *by, item.element, &key_buffer, &scratch);
        if (!value) continue;  // a missing value: score 0, or first in ALPHA
      }
      if (req.alpha) {
        if (!by) continue;
        const char* bytes = value->data();
        if (bytes >= scratch.digits && bytes < scratch.digits + sizeof scratch.digits) {
          const IntText& kept = int_values.emplace_front(scratch);
          value = std::string_view(kept.digits + (bytes - scratch.digits), value->size());
        }
        item.by = *value;
        item.has_by = true;
      } else if (!ParseSortScore(*value, &item.score)) {
        score_error = true;
      }
    }
    // Redis sorts before it reports a bad score; nothing is replied or stored then, so skip it.
    if (!score_error) {
      const bool binary = req.store.has_value();  // STORE compares bytes, not collation
      if (!req.alpha) {
        SortRange(&items, start, count, req.desc, [](const SortItem& a, const SortItem& b) {
          if (a.score != b.score) return a.score < b.score ? -1 : 1;
          return CompareBytes(a.element, b.element);
        });
      } else if (by) {
        SortRange(&items, start, count, req.desc, [binary](const SortItem& a, const SortItem& b) {
          if (!a.has_by || !b.has_by) return a.has_by == b.has_by ? 0 : a.has_by ? 1 : -1;
          return binary ? CompareBytes(a.by, b.by) : CompareCollated(a.by, b.by);
        });
      } else {
        SortRange(&items, start, count, req.desc, [binary](const SortItem& a, const SortItem& b) {
          return binary ? CompareBytes(a.element, b.element)
                        : CompareCollated(a.element, b.element);
        });
      }
    }
  }
  if (score_error) {
    ctx.out.Error(kNotDouble);
    return;
  }

  std::vector<Pattern> gets;
  gets.reserve(req.gets.size());
  for (std::string_view g : req.gets) gets.push_back(ParsePattern(g));
  const size_t per_element = gets.empty() ? 1 : gets.size();
  const auto output_len = static_cast<int64_t>(count * per_element);
  std::string key_buffer;
  IntText scratch;
  if (!req.store) {
    ctx.out.ArrayHeader(output_len);
    for (size_t i = start; i < start + count; ++i) {
      const std::string_view element = items[i].element;
      if (gets.empty()) ctx.out.Bulk(element);
      for (const Pattern& g : gets) {
        std::optional<std::string_view> value = Resolve(ctx, g, element, &key_buffer, &scratch);
        if (value) {
          ctx.out.Bulk(*value);
        } else {
          ctx.out.NullBulk();
        }
      }
    }
    return;
  }

  // STORE: the list is built before the destination changes (it may be the source).
  ListValue result;
  for (size_t i = start; i < start + count; ++i) {
    const std::string_view element = items[i].element;
    if (gets.empty()) result.emplace_back(element);
    for (const Pattern& g : gets) {
      std::optional<std::string_view> value = Resolve(ctx, g, element, &key_buffer, &scratch);
      result.emplace_back(value ? *value : std::string_view());  // a missing value stores ""
    }
  }
  const std::string_view dst = *req.store;
  Keyspace& ks = ctx.keyspace();
  if (result.empty()) {
    // Redis deletes the destination whether or not it has expired (dbDelete).
    if (ks.Delete(ctx.db(), dst)) ctx.Notify(keyspace_events::kGeneric, "del", dst);
  } else {
    ks.FindForReplace(ctx.db(), dst, ctx.now_ms);  // an expired destination expires first
    ObjectPtr list = NewObject(ObjType::kList);
    list->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
    list->list() = std::move(result);
    ks.Set(ctx.db(), dst, std::move(list));
    ctx.Notify(keyspace_events::kList, "sortstore", dst);
  }
  ctx.out.Integer(output_len);
}

// SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC]
//   [ALPHA] [STORE destination]
void CmdSort(CommandContext& ctx) { SortGeneric(ctx, false); }
// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC | DESC] [ALPHA]
void CmdSortRo(CommandContext& ctx) { SortGeneric(ctx, true); }

// SORT's keys as Redis's sortGetKeys finds them: the key, then the argument after the last
// STORE, skipping LIMIT's two arguments and BY's and GET's one (a STORE's own argument is not
// skipped: "STORE STORE d" stores to d).
void SortKeys(std::span<const std::string_view> args, std::vector<size_t>* out) {
  if (args.size() < 2) return;
  out->push_back(1);
  size_t store = 0;
  for (size_t i = 2; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "limit")) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "get") || EqualsIgnoreCase(args[i], "by")) {
      i += 1;
    } else if (EqualsIgnoreCase(args[i], "store") && i + 1 < args.size()) {
      store = i + 1;
    }
  }
  if (store != 0) out->push_back(store);
}

// SORT_RO's key; its own key finder only so that COMMAND INFO reports movablekeys, as Redis does
// (its BY and GET patterns reach keys no argument names).
void SortRoKeys(std::span<const std::string_view> args, std::vector<size_t>* out) {
  if (args.size() >= 2) out->push_back(1);
}

}  // namespace

void RegisterSortFamily(CommandTable* table) {
  using namespace cmd;
  // clang-format off
  table->Register({
      {.name = "sort", .arity = -2, .flags = kWrite | kDenyOom, .first_key = 1, .last_key = 1,
       .key_step = 1, .handler = CmdSort, .group = "generic",
       .summary = "Sort the elements in a list, set or sorted set", .find_keys = SortKeys},
      {.name = "sort_ro", .arity = -2, .flags = kReadonly, .first_key = 1, .last_key = 1,
       .key_step = 1, .handler = CmdSortRo, .group = "generic",
       .summary = "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
       .find_keys = SortRoKeys},
  });
  // clang-format on
}

}  // namespace ordis::server
