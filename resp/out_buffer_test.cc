#include "resp/out_buffer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ordis::resp {
namespace {

constexpr size_t kChunk = OutBuffer::kChunkSize;

// Every pending byte, read through FillIovec without consuming.
std::string Pending(const OutBuffer& out, int max_iov = 1024) {
  std::vector<struct iovec> iov(static_cast<size_t>(max_iov));
  const int n = out.FillIovec(iov.data(), max_iov);
  std::string s;
  for (int i = 0; i < n; ++i) s.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  return s;
}

int IovecCount(const OutBuffer& out) {
  std::vector<struct iovec> iov(1024);
  return out.FillIovec(iov.data(), 1024);
}

std::string Pattern(size_t n, size_t seed = 0) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + seed) % 26);
  return s;
}

TEST(OutBuffer, StartsEmpty) {
  OutBuffer out;
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(out.size(), 0u);
  EXPECT_EQ(IovecCount(out), 0);
  out.Append("");
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(IovecCount(out), 0);
}

TEST(OutBuffer, SmallAppendsShareOneChunk) {
  OutBuffer out;
  out.Append("+OK\r\n");
  out.Append(':');
  out.Append("1\r\n");
  EXPECT_EQ(out.size(), 9u);
  EXPECT_EQ(IovecCount(out), 1);
  EXPECT_EQ(Pending(out), "+OK\r\n:1\r\n");
}

TEST(OutBuffer, AppendsFillChunksUpToChunkSize) {
  OutBuffer out;
  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    const std::string piece = Pattern(11, static_cast<size_t>(i));
    out.Append(piece);
    out.Append('|');
    expected += piece + '|';
  }
  EXPECT_EQ(out.size(), expected.size());
  EXPECT_EQ(Pending(out), expected);
  // 36000 bytes in 16 KiB chunks.
  EXPECT_EQ(IovecCount(out), 3);
  std::vector<struct iovec> iov(3);
  ASSERT_EQ(out.FillIovec(iov.data(), 3), 3);
  EXPECT_EQ(iov[0].iov_len, kChunk);
  EXPECT_EQ(iov[1].iov_len, kChunk);
  EXPECT_EQ(iov[2].iov_len, expected.size() - 2 * kChunk);
}

TEST(OutBuffer, BigAppendTopsUpTheBackChunkThenTakesOneChunk) {
  OutBuffer out;
  out.Append("$1000000\r\n");
  const std::string big = Pattern(1000000);
  out.Append(big);
  out.Append("\r\n");
  EXPECT_EQ(Pending(out), "$1000000\r\n" + big + "\r\n");
  std::vector<struct iovec> iov(8);
  ASSERT_EQ(out.FillIovec(iov.data(), 8), 3);
  EXPECT_EQ(iov[0].iov_len, kChunk);
  EXPECT_EQ(iov[1].iov_len, 1000000 + 10 - kChunk);
  EXPECT_EQ(iov[2].iov_len, 2u);
}

TEST(OutBuffer, FillIovecRespectsMaxIov) {
  OutBuffer out;
  const std::string data = Pattern(5 * kChunk + 100);
  for (size_t i = 0; i < data.size(); i += 100) out.Append(std::string_view(data).substr(i, 100));
  EXPECT_EQ(IovecCount(out), 6);
  EXPECT_EQ(Pending(out, 2), data.substr(0, 2 * kChunk));
  struct iovec iov[1];
  EXPECT_EQ(out.FillIovec(iov, 0), 0);
}

TEST(OutBuffer, PartialConsumeAcrossChunks) {
  OutBuffer out;
  const std::string data = Pattern(3 * kChunk + 500);
  for (size_t i = 0; i < data.size(); i += 50) out.Append(std::string_view(data).substr(i, 50));
  size_t written = 0;
  // Uneven writes: within a chunk, exactly to a chunk's end, and across chunk boundaries.
  for (size_t n : {size_t{1}, kChunk - 1, size_t{7}, kChunk + 3, size_t{0}, kChunk}) {
    out.Consume(n);
    written += n;
    EXPECT_EQ(out.size(), data.size() - written);
    EXPECT_EQ(Pending(out), data.substr(written));
  }
  out.Consume(out.size());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(IovecCount(out), 0);
}

TEST(OutBuffer, AppendAfterPartialConsume) {
  OutBuffer out;
  out.Append("hello ");
  out.Consume(3);
  out.Append("world");
  EXPECT_EQ(Pending(out), "lo world");
  EXPECT_EQ(IovecCount(out), 1);
  out.Consume(8);
  EXPECT_TRUE(out.empty());
  out.Append('x');
  EXPECT_EQ(Pending(out), "x");
}

TEST(OutBuffer, ReplyWriteCycles) {
  // Many rounds of append-then-write, with writes that stop at arbitrary points.
  OutBuffer out;
  std::string model;
  size_t seed = 1;
  for (int round = 0; round < 2000; ++round) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const size_t len = (seed >> 33) % (round % 50 == 0 ? 3 * kChunk : 300);
    const std::string piece = Pattern(len, seed);
    out.Append(piece);
    model += piece;
    const size_t n = (seed >> 17) % (model.size() + 1);
    out.Consume(n);
    model.erase(0, n);
    ASSERT_EQ(out.size(), model.size());
  }
  EXPECT_EQ(Pending(out), model);
}

TEST(OutBuffer, Clear) {
  OutBuffer out;
  out.Append(Pattern(3 * kChunk));
  out.Consume(10);
  out.Clear();
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(IovecCount(out), 0);
  out.Append("after");
  EXPECT_EQ(Pending(out), "after");
}

TEST(OutBuffer, MoveToAppendsThePendingBytesAndEmpties) {
  OutBuffer from, to;
  const std::string big = Pattern(2 * kChunk + 5);
  from.Append(big);
  from.Consume(7);
  to.Append("head:");
  from.MoveTo(&to);
  EXPECT_TRUE(from.empty());
  EXPECT_EQ(Pending(to), "head:" + big.substr(7));
  from.MoveTo(&to);  // nothing left: no change
  EXPECT_EQ(to.size(), 5 + big.size() - 7);
}

}  // namespace
}  // namespace ordis::resp
