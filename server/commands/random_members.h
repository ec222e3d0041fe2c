// What the random-member commands share (SPOP, SRANDMEMBER, HRANDFIELD, ZRANDMEMBER): the
// thread's generator, uniform sampling of distinct positions, and their count arguments.
#pragma once

#include <cstdint>
#include <random>

#include "absl/container/flat_hash_map.h"
#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/command.h"
#include "server/command/errors.h"

namespace ordis::server {

// Random-member replies with repeats (a negative count to HRANDFIELD, SRANDMEMBER, ZRANDMEMBER)
// are built whole before anything is sent; beyond this many elements they answer
// "ERR value is out of range" rather than exhaust memory (Redis 7.0.15 dies there).
inline constexpr uint64_t kMaxRandomReplyElements = uint64_t{1} << 24;

// The I/O thread's generator for commands that pick members at random (SPOP, SRANDMEMBER,
// HRANDFIELD, ZRANDMEMBER).
inline std::mt19937_64& CommandRng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// Calls visit(pos) for k distinct positions chosen uniformly from [0, n); requires k <= n.
// When 3k > n (Redis's SRANDMEMBER_SUB_STRATEGY_MUL and ZRANDMEMBER_SUB_STRATEGY_MUL), selection
// sampling (Knuth's Algorithm S): one pass over the positions in order, O(n) time: under three
// times the O(k) reply.
// Otherwise a partial Fisher-Yates shuffle of the virtual array 0..n-1 that remembers only the
// displaced entries: O(k) time and space, positions in random order.
template <typename Visit>
void SampleDistinctPositions(size_t n, size_t k, Visit visit) {
  if (k * 3 > n) {
    size_t left = n, wanted = k;
    for (size_t pos = 0; wanted > 0; ++pos, --left) {
      if (std::uniform_int_distribution<size_t>(0, left - 1)(CommandRng()) < wanted) {
        visit(pos);
        --wanted;
      }
    }
    return;
  }
  // Entry i of the virtual array is displaced[i] if present, else i. Step i swaps entry i with a
  // random entry j >= i and emits the new entry i; entry i is never read again, so only entry j
  // is stored.
  absl::flat_hash_map<size_t, size_t> displaced;
  displaced.reserve(k);
  auto entry = [&](size_t i) {
    auto it = displaced.find(i);
    return it == displaced.end() ? i : it->second;
  };
  for (size_t i = 0; i < k; ++i) {
    const size_t j = std::uniform_int_distribution<size_t>(i, n - 1)(CommandRng());
    const size_t picked = entry(j);
    displaced[j] = entry(i);
    visit(picked);
  }
}

// The count of SRANDMEMBER / HRANDFIELD / ZRANDMEMBER: an integer in Redis's range [-LONG_MAX,
// LONG_MAX]. Replies the error and returns false otherwise.
inline bool ParseRandomCount(CommandContext& ctx, std::string_view arg, int64_t* count) {
  if (!ParseInt64(arg, count)) {
    ctx.out.Error(errors::kNotInteger);
    return false;
  }
  if (*count == INT64_MIN) {
    ctx.out.Error(errors::kSRandCountRange);
    return false;
  }
  return true;
}

// The arguments of HRANDFIELD / ZRANDMEMBER: key [count [WITH...]], where with_word is
// "withvalues" or "withscores". Replies the error and returns false if they are malformed.
inline bool ParseRandomPairArgs(CommandContext& ctx, std::string_view with_word, bool* has_count,
                                int64_t* count, bool* with) {
  *has_count = ctx.args.size() >= 3;
  *with = false;
  *count = 0;
  if (!*has_count) return true;
  if (!ParseRandomCount(ctx, ctx.args[2], count)) return false;
  *with = ctx.args.size() == 4;
  if (ctx.args.size() > 4 || (*with && !EqualsIgnoreCase(ctx.args[3], with_word))) {
    ctx.out.Error(errors::kSyntax);
    return false;
  }
  // Redis's guard against count * 2 overflowing the reply length.
  if (*with && (*count < -INT64_MAX / 2 || *count > INT64_MAX / 2)) {
    ctx.out.Error(errors::kOutOfRange);
    return false;
  }
  return true;
}

// The reply of SRANDMEMBER / HRANDFIELD / ZRANDMEMBER for a missing key: an empty array when a
// count was given, else a null.
inline void ReplyNoRandomMembers(CommandContext& ctx, bool with_count) {
  if (with_count) {
    ctx.out.ArrayHeader(0);
  } else {
    ctx.out.NullBulk();
  }
}

}  // namespace ordis::server
