#include "server/command/key_specs.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "base/fatal.h"
#include "base/number.h"
#include "server/command/arg_parser.h"

namespace ordis::server {
namespace {

using namespace keyspec;  // the flag bits

constexpr KeySpec::BeginSearch Index(int pos) { return {KeySpec::BeginSearch::kIndex, pos, {}}; }
constexpr KeySpec::BeginSearch Keyword(std::string_view keyword, int startfrom) {
  return {KeySpec::BeginSearch::kKeyword, startfrom, keyword};
}
constexpr KeySpec::BeginSearch UnknownBegin() { return {KeySpec::BeginSearch::kUnknown, 0, {}}; }
// lastkey: relative to the first key (>= 0) or to the end (< 0); with a limit, -1 and a limit of n
// take 1/n of what follows the first key (XREAD's streams, then their IDs).
constexpr KeySpec::FindKeys Range(int lastkey, int keystep = 1, int limit = 0) {
  return {KeySpec::FindKeys::kRange, lastkey, keystep, limit};
}
// The count at keynumidx (from the first position), the keys from firstkey on (from there too).
constexpr KeySpec::FindKeys Keynum(int keynumidx, int firstkey, int keystep) {
  return {KeySpec::FindKeys::kKeynum, keynumidx, firstkey, keystep};
}
constexpr KeySpec::FindKeys UnknownFind() { return {KeySpec::FindKeys::kUnknown, 0, 0, 0}; }

// SET: a GET argument after the value returns the old value.
uint16_t SetFlags(std::span<const std::string_view> args) {
  for (size_t i = 3; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "get")) return kRW | kAccess | kUpdate;
  }
  return kOW | kUpdate;
}

// BITFIELD: read-only when every subcommand is a GET (with OVERFLOW between); a SET, an INCRBY or
// anything malformed counts as a write, the safe side.
uint16_t BitfieldFlags(std::span<const std::string_view> args) {
  for (size_t i = 2; i < args.size(); ++i) {
    const size_t rest = args.size() - i - 1;
    if (EqualsIgnoreCase(args[i], "get") && rest >= 2) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "overflow") && rest >= 1) {
      i += 1;
    } else {
      return kRW | kAccess | kUpdate;
    }
  }
  return kRO | kAccess;
}

struct Row {
  std::string_view name;
  std::vector<KeySpec> specs;
};

// Redis 7.0.15's COMMAND INFO key specs, command by command; redis-compat/test_command_docs.py
// compares them with a redis-server's.
const std::vector<Row>& Rows() {
  // clang-format off
  static const std::vector<Row> kRows = {
      {"append", {{kRW | kInsert, Index(1), Range(0)}}},
      {"bitcount", {{kRO | kAccess, Index(1), Range(0)}}},
      // GET-only calls read (RO ACCESS), any SET or INCRBY writes: BitfieldFlags.
      {"bitfield", {{kRW | kAccess | kUpdate | kVariableFlags, Index(1), Range(0)}}},
      {"bitfield_ro", {{kRO | kAccess, Index(1), Range(0)}}},
      {"bitop", {{kOW | kUpdate, Index(2), Range(0)}, {kRO | kAccess, Index(3), Range(-1)}}},
      {"bitpos", {{kRO | kAccess, Index(1), Range(0)}}},
      {"blmove", {{kRW | kAccess | kDelete, Index(1), Range(0)}, {kRW | kInsert, Index(2), Range(0)}}},
      {"blmpop", {{kRW | kAccess | kDelete, Index(2), Keynum(0, 1, 1)}}},
      {"blpop", {{kRW | kAccess | kDelete, Index(1), Range(-2)}}},
      {"brpop", {{kRW | kAccess | kDelete, Index(1), Range(-2)}}},
      {"brpoplpush", {{kRW | kAccess | kDelete, Index(1), Range(0)}, {kRW | kInsert, Index(2), Range(0)}}},
      {"bzmpop", {{kRW | kAccess | kDelete, Index(2), Keynum(0, 1, 1)}}},
      {"bzpopmax", {{kRW | kAccess | kDelete, Index(1), Range(-2)}}},
      {"bzpopmin", {{kRW | kAccess | kDelete, Index(1), Range(-2)}}},
      {"copy", {{kRO | kAccess, Index(1), Range(0)}, {kOW | kUpdate, Index(2), Range(0)}}},
      {"decr", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"decrby", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"del", {{kRM | kDelete, Index(1), Range(-1)}}},
      {"dump", {{kRO | kAccess, Index(1), Range(0)}}},
      // A script may use its keys any way: the most it could do.
      {"eval", {{kRW | kAccess | kUpdate, Index(2), Keynum(0, 1, 1)}}},
      {"eval_ro", {{kRO | kAccess, Index(2), Keynum(0, 1, 1)}}},
      {"evalsha", {{kRW | kAccess | kUpdate, Index(2), Keynum(0, 1, 1)}}},
      {"evalsha_ro", {{kRO | kAccess, Index(2), Keynum(0, 1, 1)}}},
      {"exists", {{kRO, Index(1), Range(-1)}}},
      {"expire", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"expireat", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"expiretime", {{kRO | kAccess, Index(1), Range(0)}}},
      {"fcall", {{kRW | kAccess | kUpdate, Index(2), Keynum(0, 1, 1)}}},
      {"fcall_ro", {{kRO | kAccess, Index(2), Keynum(0, 1, 1)}}},
      {"geoadd", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"geodist", {{kRO | kAccess, Index(1), Range(0)}}},
      {"geohash", {{kRO | kAccess, Index(1), Range(0)}}},
      {"geopos", {{kRO | kAccess, Index(1), Range(0)}}},
      {"georadius", {{kRO | kAccess, Index(1), Range(0)}, {kOW | kUpdate, Keyword("STORE", 6), Range(0)}, {kOW | kUpdate, Keyword("STOREDIST", 6), Range(0)}}},
      {"georadius_ro", {{kRO | kAccess, Index(1), Range(0)}}},
      {"georadiusbymember", {{kRO | kAccess, Index(1), Range(0)}, {kOW | kUpdate, Keyword("STORE", 5), Range(0)}, {kOW | kUpdate, Keyword("STOREDIST", 5), Range(0)}}},
      {"georadiusbymember_ro", {{kRO | kAccess, Index(1), Range(0)}}},
      {"geosearch", {{kRO | kAccess, Index(1), Range(0)}}},
      {"geosearchstore", {{kOW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Range(0)}}},
      {"get", {{kRO | kAccess, Index(1), Range(0)}}},
      {"getbit", {{kRO | kAccess, Index(1), Range(0)}}},
      {"getdel", {{kRW | kAccess | kDelete, Index(1), Range(0)}}},
      // RW UPDATE, not RO: it may change the TTL.
      {"getex", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"getrange", {{kRO | kAccess, Index(1), Range(0)}}},
      {"getset", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"hdel", {{kRW | kDelete, Index(1), Range(0)}}},
      {"hexists", {{kRO, Index(1), Range(0)}}},
      {"hget", {{kRO | kAccess, Index(1), Range(0)}}},
      {"hgetall", {{kRO | kAccess, Index(1), Range(0)}}},
      {"hincrby", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"hincrbyfloat", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"hkeys", {{kRO | kAccess, Index(1), Range(0)}}},
      {"hlen", {{kRO, Index(1), Range(0)}}},
      {"hmget", {{kRO | kAccess, Index(1), Range(0)}}},
      {"hmset", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"hrandfield", {{kRO | kAccess, Index(1), Range(0)}}},
      {"hscan", {{kRO | kAccess, Index(1), Range(0)}}},
      {"hset", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"hsetnx", {{kRW | kInsert, Index(1), Range(0)}}},
      {"hstrlen", {{kRO, Index(1), Range(0)}}},
      {"hvals", {{kRO | kAccess, Index(1), Range(0)}}},
      {"incr", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"incrby", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"incrbyfloat", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"lcs", {{kRO | kAccess, Index(1), Range(1)}}},
      {"lindex", {{kRO | kAccess, Index(1), Range(0)}}},
      {"linsert", {{kRW | kInsert, Index(1), Range(0)}}},
      {"llen", {{kRO, Index(1), Range(0)}}},
      {"lmove", {{kRW | kAccess | kDelete, Index(1), Range(0)}, {kRW | kInsert, Index(2), Range(0)}}},
      {"lmpop", {{kRW | kAccess | kDelete, Index(1), Keynum(0, 1, 1)}}},
      {"lpop", {{kRW | kAccess | kDelete, Index(1), Range(0)}}},
      {"lpos", {{kRO | kAccess, Index(1), Range(0)}}},
      {"lpush", {{kRW | kInsert, Index(1), Range(0)}}},
      {"lpushx", {{kRW | kInsert, Index(1), Range(0)}}},
      {"lrange", {{kRO | kAccess, Index(1), Range(0)}}},
      {"lrem", {{kRW | kDelete, Index(1), Range(0)}}},
      {"lset", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"ltrim", {{kRW | kDelete, Index(1), Range(0)}}},
      {"memory|usage", {{kRO, Index(2), Range(0)}}},
      {"mget", {{kRO | kAccess, Index(1), Range(-1)}}},
      // Incomplete: with KEYS the key argument must be "", and only MIGRATE's own reading knows.
      {"migrate", {{kRW | kAccess | kDelete, Index(3), Range(0)}, {kRW | kAccess | kDelete | kIncomplete, Keyword("KEYS", -2), Range(-1)}}},
      {"move", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"mset", {{kOW | kUpdate, Index(1), Range(-1, 2, 0)}}},
      {"msetnx", {{kOW | kInsert, Index(1), Range(-1, 2, 0)}}},
      {"object|encoding", {{kRO, Index(2), Range(0)}}},
      {"object|freq", {{kRO, Index(2), Range(0)}}},
      {"object|idletime", {{kRO, Index(2), Range(0)}}},
      {"object|refcount", {{kRO, Index(2), Range(0)}}},
      {"persist", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"pexpire", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"pexpireat", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"pexpiretime", {{kRO | kAccess, Index(1), Range(0)}}},
      {"pfadd", {{kRW | kInsert, Index(1), Range(0)}}},
      // RW: counting may rewrite the cached cardinality.
      {"pfcount", {{kRW | kAccess, Index(1), Range(-1)}}},
      {"pfdebug", {{kRW | kAccess, Index(2), Range(0)}}},
      {"pfmerge", {{kRW | kAccess | kInsert, Index(1), Range(0)}, {kRO | kAccess, Index(2), Range(-1)}}},
      {"psetex", {{kOW | kUpdate, Index(1), Range(0)}}},
      {"pttl", {{kRO | kAccess, Index(1), Range(0)}}},
      {"rename", {{kRW | kAccess | kDelete, Index(1), Range(0)}, {kOW | kUpdate, Index(2), Range(0)}}},
      {"renamenx", {{kRW | kAccess | kDelete, Index(1), Range(0)}, {kOW | kInsert, Index(2), Range(0)}}},
      {"restore", {{kOW | kUpdate, Index(1), Range(0)}}},
      {"restore-asking", {{kOW | kUpdate, Index(1), Range(0)}}},
      {"rpop", {{kRW | kAccess | kDelete, Index(1), Range(0)}}},
      {"rpoplpush", {{kRW | kAccess | kDelete, Index(1), Range(0)}, {kRW | kInsert, Index(2), Range(0)}}},
      {"rpush", {{kRW | kInsert, Index(1), Range(0)}}},
      {"rpushx", {{kRW | kInsert, Index(1), Range(0)}}},
      {"sadd", {{kRW | kInsert, Index(1), Range(0)}}},
      {"scard", {{kRO, Index(1), Range(0)}}},
      {"sdiff", {{kRO | kAccess, Index(1), Range(-1)}}},
      {"sdiffstore", {{kOW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Range(-1)}}},
      // With GET it returns the old value: SetFlags.
      {"set", {{kRW | kAccess | kUpdate | kVariableFlags, Index(1), Range(0)}}},
      {"setbit", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"setex", {{kOW | kUpdate, Index(1), Range(0)}}},
      {"setnx", {{kOW | kInsert, Index(1), Range(0)}}},
      {"setrange", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"sinter", {{kRO | kAccess, Index(1), Range(-1)}}},
      {"sintercard", {{kRO | kAccess, Index(1), Keynum(0, 1, 1)}}},
      {"sinterstore", {{kRW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Range(-1)}}},
      {"sismember", {{kRO, Index(1), Range(0)}}},
      {"smembers", {{kRO | kAccess, Index(1), Range(0)}}},
      {"smismember", {{kRO | kAccess, Index(1), Range(0)}}},
      {"smove", {{kRW | kAccess | kDelete, Index(1), Range(0)}, {kRW | kInsert, Index(2), Range(0)}}},
      // BY and GET patterns name keys from the sorted values, STORE may come anywhere: unknown.
      {"sort", {{kRO | kAccess, Index(1), Range(0)}, {kRO | kAccess, UnknownBegin(), UnknownFind()}, {kOW | kUpdate, UnknownBegin(), UnknownFind()}}},
      {"sort_ro", {{kRO | kAccess, Index(1), Range(0)}, {kRO | kAccess, UnknownBegin(), UnknownFind()}}},
      {"spop", {{kRW | kAccess | kDelete, Index(1), Range(0)}}},
      // Shard channels sit where keys would (for cluster slots) but are not keys.
      {"spublish", {{kNotKey, Index(1), Range(0)}}},
      {"srandmember", {{kRO | kAccess, Index(1), Range(0)}}},
      {"srem", {{kRW | kDelete, Index(1), Range(0)}}},
      {"sscan", {{kRO | kAccess, Index(1), Range(0)}}},
      {"ssubscribe", {{kNotKey, Index(1), Range(-1)}}},
      {"strlen", {{kRO, Index(1), Range(0)}}},
      {"substr", {{kRO | kAccess, Index(1), Range(0)}}},
      {"sunion", {{kRO | kAccess, Index(1), Range(-1)}}},
      {"sunionstore", {{kOW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Range(-1)}}},
      {"sunsubscribe", {{kNotKey, Index(1), Range(-1)}}},
      {"touch", {{kRO, Index(1), Range(-1)}}},
      {"ttl", {{kRO | kAccess, Index(1), Range(0)}}},
      {"type", {{kRO, Index(1), Range(0)}}},
      {"unlink", {{kRM | kDelete, Index(1), Range(-1)}}},
      {"watch", {{kRO, Index(1), Range(-1)}}},
      {"xack", {{kRW | kUpdate, Index(1), Range(0)}}},
      // UPDATE, not INSERT: trimming may delete entries.
      {"xadd", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"xautoclaim", {{kRW | kDelete, Index(1), Range(0)}}},
      {"xclaim", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"xdel", {{kRW | kDelete, Index(1), Range(0)}}},
      {"xgroup|create", {{kRW | kInsert, Index(2), Range(0)}}},
      {"xgroup|createconsumer", {{kRW | kInsert, Index(2), Range(0)}}},
      {"xgroup|delconsumer", {{kRW | kDelete, Index(2), Range(0)}}},
      {"xgroup|destroy", {{kRW | kDelete, Index(2), Range(0)}}},
      {"xgroup|setid", {{kRW | kUpdate, Index(2), Range(0)}}},
      {"xinfo|consumers", {{kRO | kAccess, Index(2), Range(0)}}},
      {"xinfo|groups", {{kRO | kAccess, Index(2), Range(0)}}},
      {"xinfo|stream", {{kRO | kAccess, Index(2), Range(0)}}},
      {"xlen", {{kRO, Index(1), Range(0)}}},
      {"xpending", {{kRO | kAccess, Index(1), Range(0)}}},
      {"xrange", {{kRO | kAccess, Index(1), Range(0)}}},
      {"xread", {{kRO | kAccess, Keyword("STREAMS", 1), Range(-1, 1, 2)}}},
      // Redis 7.0 files it RO ACCESS, though it writes the group's state.
      {"xreadgroup", {{kRO | kAccess, Keyword("STREAMS", 4), Range(-1, 1, 2)}}},
      {"xrevrange", {{kRO | kAccess, Index(1), Range(0)}}},
      {"xsetid", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"xtrim", {{kRW | kDelete, Index(1), Range(0)}}},
      {"zadd", {{kRW | kUpdate, Index(1), Range(0)}}},
      {"zcard", {{kRO, Index(1), Range(0)}}},
      {"zcount", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zdiff", {{kRO | kAccess, Index(1), Keynum(0, 1, 1)}}},
      {"zdiffstore", {{kOW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Keynum(0, 1, 1)}}},
      {"zincrby", {{kRW | kAccess | kUpdate, Index(1), Range(0)}}},
      {"zinter", {{kRO | kAccess, Index(1), Keynum(0, 1, 1)}}},
      {"zintercard", {{kRO | kAccess, Index(1), Keynum(0, 1, 1)}}},
      {"zinterstore", {{kOW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Keynum(0, 1, 1)}}},
      {"zlexcount", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zmpop", {{kRW | kAccess | kDelete, Index(1), Keynum(0, 1, 1)}}},
      {"zmscore", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zpopmax", {{kRW | kAccess | kDelete, Index(1), Range(0)}}},
      {"zpopmin", {{kRW | kAccess | kDelete, Index(1), Range(0)}}},
      {"zrandmember", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrange", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrangebylex", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrangebyscore", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrangestore", {{kOW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Range(0)}}},
      {"zrank", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrem", {{kRW | kDelete, Index(1), Range(0)}}},
      {"zremrangebylex", {{kRW | kDelete, Index(1), Range(0)}}},
      {"zremrangebyrank", {{kRW | kDelete, Index(1), Range(0)}}},
      {"zremrangebyscore", {{kRW | kDelete, Index(1), Range(0)}}},
      {"zrevrange", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrevrangebylex", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrevrangebyscore", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zrevrank", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zscan", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zscore", {{kRO | kAccess, Index(1), Range(0)}}},
      {"zunion", {{kRO | kAccess, Index(1), Keynum(0, 1, 1)}}},
      {"zunionstore", {{kOW | kUpdate, Index(1), Range(0)}, {kRO | kAccess, Index(2), Keynum(0, 1, 1)}}},
  };
  // clang-format on
  return kRows;
}

using Table = absl::flat_hash_map<std::string_view, CommandKeySpecs>;
constexpr size_t kMaxSpecs = 4;

const Table& KeySpecTable() {
  static const Table* table = [] {
    auto* t = new Table;
    for (const Row& row : Rows()) {
      // ForEachKeyWithFlags locates at most kMaxSpecs specs per call.
      if (row.specs.size() > kMaxSpecs) Fatal("key specs of " + std::string(row.name));
      (*t)[row.name].specs = row.specs;
    }
    for (std::string_view name :
         {"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"}) {
      (*t)[name].no_mandatory_keys = true;
    }
    (*t)["set"].variable_flags = SetFlags;
    (*t)["bitfield"].variable_flags = BitfieldFlags;
    return t;
  }();
  return *table;
}

// Positions first, first + step, ... last (inclusive); empty when last < first.
struct Located {
  int first = 0;
  int last = -1;
  int step = 1;
};

// Where ks puts its keys in args, as Redis 7.0 reads a key spec: false when it cannot say (an
// unknown search) or the call falls outside it (a count past the end, no key where one must be).
// A keyword that is not there locates nothing, and that is no error.
bool Locate(const KeySpec& ks, std::span<const std::string_view> args, Located* out) {
  const int argc = static_cast<int>(args.size());
  *out = Located();
  int first = 0;
  switch (ks.begin.type) {
    case KeySpec::BeginSearch::kIndex:
      first = ks.begin.pos;
      break;
    case KeySpec::BeginSearch::kKeyword: {
      // Forward from startfrom, or backward from argc + startfrom, never onto the name; forward,
      // the last argument is not searched, as a keyword there would have no key after it.
      const bool forward = ks.begin.pos > 0;
      const int from = forward ? ks.begin.pos : argc + ks.begin.pos;
      for (int i = from; forward ? i < argc - 1 : i >= 1; i += forward ? 1 : -1) {
        if (i < 1 || i >= argc) break;
        if (EqualsIgnoreCase(args[static_cast<size_t>(i)], ks.begin.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (first == 0) return true;
      break;
    }
    case KeySpec::BeginSearch::kUnknown:
      return false;
  }
  int last = 0, step = 1;
  switch (ks.find.type) {
    case KeySpec::FindKeys::kRange:
      if (ks.find.a >= 0) {
        last = first + ks.find.a;
      } else if (ks.find.c == 0) {
        last = argc + ks.find.a;
      } else {
        last = first + (argc - first) / ks.find.c + ks.find.a;
      }
      step = ks.find.b;
      break;
    case KeySpec::FindKeys::kKeynum: {
      const int at = first + ks.find.a;
      int64_t count = 0;
      if (at >= argc || !ParseInt64(args[static_cast<size_t>(at)], &count) || count < 0 ||
          count > argc) {
        return false;
      }
      first += ks.find.b;
      last = first + static_cast<int>(count) - 1;
      step = ks.find.c;
      break;
    }
    case KeySpec::FindKeys::kUnknown:
      return false;
  }
  if (last >= argc || last < first || first >= argc || step < 1) return false;
  *out = {first, last, step};
  return true;
}

bool Contains(const Located& at, size_t position) {
  const int p = static_cast<int>(position);
  return p >= at.first && p <= at.last && (p - at.first) % at.step == 0;
}

// A spec's flags for this call: resolved where they vary, and without the bits that describe the
// spec rather than a key (Redis's own key readings report neither).
uint16_t CallFlags(const CommandKeySpecs& keys, const KeySpec& ks,
                   std::span<const std::string_view> args) {
  uint16_t flags = ks.flags;
  if ((flags & kVariableFlags) && keys.variable_flags != nullptr) flags = keys.variable_flags(args);
  return static_cast<uint16_t>(flags & ~(kVariableFlags | kIncomplete));
}

// Keys ordis finds that Redis's specs have no spec for: the flags of writes and reads as before
// key specs, so a command missing from the table is still checked.
uint16_t DefaultFlags(const CommandSpec& spec) {
  return (spec.flags & cmd::kWrite) ? kRW | kAccess | kUpdate : kRO | kAccess;
}

}  // namespace

const CommandKeySpecs* KeySpecsOf(std::string_view name) {
  const Table& table = KeySpecTable();
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

std::vector<std::string_view> KeySpecFlagNames(uint16_t flags) {
  static constexpr std::string_view kNames[] = {
      "RO",     "RW",     "OW",      "RM",         "access",        "update",
      "insert", "delete", "not_key", "incomplete", "variable_flags"};
  std::vector<std::string_view> out;
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (flags & (1u << i)) out.push_back(kNames[i]);
  }
  return out;
}

uint16_t AllKeyFlags(const CommandSpec& spec, std::span<const std::string_view> args) {
  const CommandKeySpecs* keys = KeySpecsOf(spec.name);
  if (keys == nullptr || keys->specs.empty()) return DefaultFlags(spec);
  uint16_t flags = 0;
  for (const KeySpec& ks : keys->specs) {
    if (!(ks.flags & kNotKey)) flags |= CallFlags(*keys, ks, args);
  }
  return flags;
}

bool HasKeys(const CommandSpec& spec) {
  if (spec.first_key > 0 || spec.movable_keys()) return true;
  const CommandKeySpecs* keys = KeySpecsOf(spec.name);
  if (keys == nullptr) return false;
  for (const KeySpec& ks : keys->specs) {
    if (!(ks.flags & kNotKey)) return true;
  }
  return false;
}

void ForEachKeyWithFlags(const CommandSpec& spec, std::span<const std::string_view> args,
                         absl::FunctionRef<void(size_t position, uint16_t flags)> visit) {
  const CommandKeySpecs* keys = KeySpecsOf(spec.name);
  if (keys == nullptr || keys->specs.empty()) {
    const uint16_t flags = DefaultFlags(spec);
    ForEachKeyPosition(spec, args, [&](size_t i) {
      visit(i, flags);
      return true;
    });
    return;
  }
  const std::vector<KeySpec>& specs = keys->specs;
  if (specs.size() == 1) {
    const uint16_t flags = CallFlags(*keys, specs[0], args);
    ForEachKeyPosition(spec, args, [&](size_t i) {
      visit(i, flags);
      return true;
    });
    return;
  }
  // Several specs: each key belongs to the first spec that locates it; a key none locates (SORT's
  // STORE destination, which no spec can place) to the last, the spec Redis gives it.
  Located located[kMaxSpecs];
  const size_t n = specs.size();
  for (size_t s = 0; s < n; ++s) {
    if ((specs[s].flags & kNotKey) || !Locate(specs[s], args, &located[s])) located[s] = Located();
  }
  ForEachKeyPosition(spec, args, [&](size_t i) {
    size_t owner = n - 1;
    for (size_t s = 0; s < n; ++s) {
      if (Contains(located[s], i)) {
        owner = s;
        break;
      }
    }
    visit(i, CallFlags(*keys, specs[owner], args));
    return true;
  });
}

bool GetKeysAsRedis(const CommandSpec& spec, std::span<const std::string_view> args,
                    std::vector<std::pair<size_t, uint16_t>>* out) {
  out->clear();
  const CommandKeySpecs* keys = KeySpecsOf(spec.name);
  bool reliable = keys != nullptr;  // some key spec, none with variable flags
  bool any_key = false;
  if (reliable) {
    for (const KeySpec& ks : keys->specs) {
      if (ks.flags & kVariableFlags) reliable = false;
      if (!(ks.flags & kNotKey)) any_key = true;
    }
  }
  if (reliable && any_key) {
    // An unknown search, a call outside a spec, or an incomplete spec that finds keys leaves the
    // answer to the command's own reading (Redis: its getkeys procedure), if it has one.
    bool valid = true;
    for (const KeySpec& ks : keys->specs) {
      if (ks.flags & kNotKey) continue;
      Located at;
      if (!Locate(ks, args, &at) || (at.first <= at.last && (ks.flags & kIncomplete))) {
        valid = false;
        break;
      }
      for (int i = at.first; i <= at.last; i += at.step) {
        out->emplace_back(static_cast<size_t>(i), ks.flags);
      }
    }
    if (valid) return !out->empty();
    out->clear();
    // Without a reading of its own, what the specs reject names no keys (ZUNION 0 a, PFMERGE d):
    // Redis's procedures for such commands refuse the same calls.
    if (spec.find_keys == nullptr) return false;
  }
  ForEachKeyWithFlags(spec, args, [&](size_t i, uint16_t flags) { out->emplace_back(i, flags); });
  return !out->empty();
}

}  // namespace ordis::server
