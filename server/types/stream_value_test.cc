#include "server/types/stream_value.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace ordis::server {
namespace {

using Fields = std::vector<std::string>;
using Model = std::map<StreamId, Fields>;

void Add(StreamValue* s, StreamId id, const Fields& fv, const StreamNodeLimits& limits = {}) {
  std::vector<std::string_view> views(fv.begin(), fv.end());
  s->Append(id, views, limits);
}

Model Read(const StreamValue& s, StreamId start = {}, StreamId end = StreamId::Max(),
           bool reverse = false, std::vector<StreamId>* order = nullptr) {
  Model out;
  s.Range(start, end, reverse, [&](StreamId id, StreamFields f) {
    out[id] = Fields(f.begin(), f.end());
    if (order != nullptr) order->push_back(id);
    return true;
  });
  return out;
}

TEST(StreamId, IncrementDecrementAndText) {
  StreamId id{5, UINT64_MAX};
  EXPECT_TRUE(id.Increment());
  EXPECT_EQ(id, (StreamId{6, 0}));
  EXPECT_TRUE(id.Decrement());
  EXPECT_EQ(id, (StreamId{5, UINT64_MAX}));
  StreamId max = StreamId::Max();
  EXPECT_FALSE(max.Increment());
  StreamId zero;
  EXPECT_FALSE(zero.Decrement());
  EXPECT_EQ((StreamId{1526919030474, 55}).ToString(), "1526919030474-55");
  EXPECT_EQ(StreamId::Max().ToString(), "18446744073709551615-18446744073709551615");
}

TEST(StreamValue, AppendAndRangeBothWays) {
  StreamValue s;
  Add(&s, {1, 0}, {"a", "1", "b", "2"});
  Add(&s, {1, 1}, {"a", "3", "b", "4"});          // same fields as the block's first
  Add(&s, {2, 0}, {"b", "5", "a", "6"});          // other order: its own names
  Add(&s, {2, 7}, {"x", "", "", "y", "z", "w"});  // empty strings
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.first_id(), (StreamId{1, 0}));
  EXPECT_EQ(s.last_id(), (StreamId{2, 7}));
  Model all = Read(s);
  EXPECT_EQ(all[(StreamId{1, 1})], (Fields{"a", "3", "b", "4"}));
  EXPECT_EQ(all[(StreamId{2, 0})], (Fields{"b", "5", "a", "6"}));
  EXPECT_EQ(all[(StreamId{2, 7})], (Fields{"x", "", "", "y", "z", "w"}));
  std::vector<StreamId> order;
  Read(s, {1, 1}, {2, 0}, true, &order);
  EXPECT_EQ(order, (std::vector<StreamId>{{2, 0}, {1, 1}}));
}

// Random appends, deletions and trims against a std::map, with small blocks so that many form.
TEST(StreamValue, MatchesModel) {
  for (size_t max_entries : {size_t{0}, size_t{1}, size_t{3}, size_t{100}}) {
    StreamNodeLimits limits{max_entries == 0 ? size_t{200} : size_t{4096}, max_entries};
    std::mt19937_64 rng(max_entries);
    StreamValue s;
    Model model;
    StreamId next{1, 0};
    for (int step = 0; step < 3000; ++step) {
      const int op = static_cast<int>(rng() % 10);
      if (op < 6) {
        next.ms += rng() % 3;
        next.seq = next.seq + 1 + rng() % 2;
        Fields fv = rng() % 2 ? Fields{"f", std::to_string(step), "g", "v"}
                              : Fields{"h", std::to_string(rng() % 1000)};
        Add(&s, next, fv, limits);
        model[next] = fv;
      } else if (op < 8 && !model.empty()) {
        auto it = model.begin();
        std::advance(it, static_cast<long>(rng() % model.size()));
        EXPECT_TRUE(s.Delete(it->first));
        EXPECT_FALSE(s.Delete(it->first));
        model.erase(it);
      } else if (op == 8) {
        const uint64_t maxlen = rng() % (model.size() + 2);
        StreamValue::Trim t;
        t.maxlen = maxlen;
        const int64_t removed = s.TrimEntries(t);
        int64_t expected = 0;
        while (model.size() > maxlen) {
          model.erase(model.begin());
          ++expected;
        }
        EXPECT_EQ(removed, expected);
      } else if (!model.empty()) {
        auto it = model.begin();
        std::advance(it, static_cast<long>(rng() % model.size()));
        StreamValue::Trim t{.by = StreamValue::TrimBy::kMinId, .minid = it->first};
        const int64_t removed = s.TrimEntries(t);
        EXPECT_EQ(removed, std::distance(model.begin(), it));
        model.erase(model.begin(), it);
      }
      ASSERT_EQ(s.size(), model.size());
      ASSERT_EQ(s.first_id(), model.empty() ? StreamId{} : model.begin()->first);
    }
    EXPECT_EQ(Read(s), model);
    std::vector<StreamId> order;
    Read(s, {}, StreamId::Max(), true, &order);
    ASSERT_EQ(order.size(), model.size());
    EXPECT_TRUE(std::is_sorted(order.rbegin(), order.rend()));
    for (const auto& [id, fv] : model) EXPECT_TRUE(s.Contains(id));

    std::string bytes;
    s.EncodeBlocks(&bytes);
    StreamValue back;
    std::string_view in(bytes);
    ASSERT_TRUE(back.DecodeBlocks(&in, s.last_id(), s.max_deleted_id(), s.entries_added()));
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(Read(back), model);
    EXPECT_EQ(back.block_count(), s.block_count());
    // Truncated or damaged bytes are refused or read without harm (ASAN checks the latter).
    for (size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 50) {
      std::string_view part(bytes.data(), cut);
      StreamValue broken;
      EXPECT_FALSE(broken.DecodeBlocks(&part, s.last_id(), {}, 0) && part.empty());
      std::string flipped = bytes;
      flipped[cut] = static_cast<char>(flipped[cut] ^ 0x5a);
      std::string_view damaged(flipped);
      (void)broken.DecodeBlocks(&damaged, s.last_id(), {}, 0);
    }
  }
}

// Blocks split as Redis's listpacks do: 100 entries (deleted ones count) or the byte size.
TEST(StreamValue, BlocksSplitAsRedisNodes) {
  StreamValue s;
  for (uint64_t i = 1; i <= 250; ++i) Add(&s, {i, 0}, {"f", "v"});
  EXPECT_EQ(s.block_count(), 3u);
  // MAXLEN ~ 120: whole blocks only, one of 100 goes.
  StreamValue::Trim approx;
  approx.maxlen = 120;
  approx.approx = true;
  EXPECT_EQ(s.TrimEntries(approx), 100);
  EXPECT_EQ(s.size(), 150u);
  // A LIMIT smaller than a block removes nothing.
  StreamValue::Trim limited;
  limited.approx = true;
  limited.limit = 50;
  EXPECT_EQ(s.TrimEntries(limited), 0);
  // Exact: marks entries inside the first block.
  StreamValue::Trim exact;
  exact.maxlen = 120;
  EXPECT_EQ(s.TrimEntries(exact), 30);
  EXPECT_EQ(s.first_id(), (StreamId{131, 0}));
  EXPECT_EQ(s.block_count(), 2u);

  // Large entries: the 4096-byte rule splits first.
  StreamValue big;
  const std::string value(1000, 'x');
  for (uint64_t i = 1; i <= 10; ++i) Add(&big, {i, 0}, {"f", value});
  EXPECT_EQ(big.block_count(), 3u);  // 4 entries per listpack of < 4096 bytes
}

TEST(StreamValue, RadixTreeNodesAsRax) {
  StreamValue s;
  EXPECT_EQ(s.RadixTreeNodes(), 1u);
  Add(&s, {1, 0}, {"f", "v"});
  EXPECT_EQ(s.RadixTreeNodes(), 2u);  // a compressed root and the key
}

TEST(StreamValue, LagBookkeeping) {
  StreamValue s;
  EXPECT_EQ(s.EstimateDistance({5, 0}), 0);
  for (uint64_t i = 1; i <= 5; ++i) Add(&s, {i, 0}, {"f", "v"});
  EXPECT_EQ(s.EstimateDistance({5, 0}), 5);
  EXPECT_EQ(s.EstimateDistance({1, 0}), 1);
  EXPECT_EQ(s.EstimateDistance({0, 1}), 0);
  EXPECT_EQ(s.EstimateDistance({3, 0}), StreamGroup::kInvalidEntriesRead);
  EXPECT_EQ(s.EstimateDistance({9, 0}), StreamGroup::kInvalidEntriesRead);
  EXPECT_FALSE(s.RangeHasTombstones(nullptr));
  EXPECT_TRUE(s.Delete({3, 0}));
  EXPECT_EQ(s.max_deleted_id(), (StreamId{3, 0}));
  StreamId after{4, 0};
  EXPECT_TRUE(s.RangeHasTombstones(nullptr));
  EXPECT_FALSE(s.RangeHasTombstones(&after));
}

TEST(StreamGroup, CopyPointsAtItsOwnConsumers) {
  StreamValue s;
  Add(&s, {1, 0}, {"f", "v"});
  StreamGroup& g = s.groups()["g"];
  StreamConsumer* alice = g.CreateConsumer("alice", 100, nullptr);
  g.pel[{1, 0}] = StreamNack{alice, 100, 1};
  alice->pending.insert({1, 0});
  StreamValue copy = s;
  StreamGroup& g2 = copy.groups()["g"];
  EXPECT_EQ(g2.pel.begin()->second.consumer, g2.FindConsumer("alice"));
  EXPECT_NE(g2.pel.begin()->second.consumer, alice);
  EXPECT_EQ(g2.DeleteConsumer("alice"), 1u);
  EXPECT_TRUE(g2.pel.empty());
  EXPECT_EQ(g.pel.size(), 1u);
  EXPECT_TRUE(g.Ack({1, 0}));
  EXPECT_TRUE(alice->pending.empty());
}

}  // namespace
}  // namespace ordis::server
