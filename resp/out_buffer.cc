#include "resp/out_buffer.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace ordis::resp {

namespace {

// A drained chunk up to this capacity is kept for reuse; a bigger one (from a big append) is
// freed so that one large reply does not pin its memory for the connection's lifetime.
constexpr size_t kMaxSpareCapacity = 2 * OutBuffer::kChunkSize;

}  // namespace

void OutBuffer::Append(std::string_view bytes) {
  if (bytes.empty()) return;
  size_ += bytes.size();
  if (!chunks_.empty() && chunks_.back().size() < kChunkSize) {
    std::string& back = chunks_.back();
    const size_t n = std::min(kChunkSize - back.size(), bytes.size());
    back.append(bytes.data(), n);  // within the capacity reserved when the chunk was made
    bytes.remove_prefix(n);
    if (bytes.empty()) return;
  }
  AppendNewChunk(bytes);
}

void OutBuffer::Append(char c) {
  if (!chunks_.empty() && chunks_.back().size() < kChunkSize) {
    chunks_.back().push_back(c);
    ++size_;
    return;
  }
  ++size_;
  AppendNewChunk(std::string_view(&c, 1));
}

void OutBuffer::AppendNewChunk(std::string_view bytes) {
  // A remainder of kChunkSize or more gets a chunk of exactly its size: one copy, one iovec.
  // Anything smaller starts a regular chunk with room for the replies that follow it.
  std::string chunk;
  if (bytes.size() < kChunkSize && spare_.capacity() >= kChunkSize) {
    chunk = std::move(spare_);
    spare_ = std::string();
    chunk.clear();
  } else {
    chunk.reserve(std::max(bytes.size(), kChunkSize));
  }
  chunk.append(bytes.data(), bytes.size());
  chunks_.push_back(std::move(chunk));
}

void OutBuffer::PopFront() {
  std::string& front = chunks_.front();
  if (front.capacity() >= kChunkSize && front.capacity() <= kMaxSpareCapacity &&
      spare_.capacity() < kChunkSize) {
    spare_ = std::move(front);
  }
  chunks_.pop_front();
  front_offset_ = 0;
}

int OutBuffer::FillIovec(struct iovec* iov, int max_iov) const {
  int filled = 0;
  size_t offset = front_offset_;
  for (const std::string& chunk : chunks_) {
    if (filled == max_iov) break;
    // writev does not write through iov_base; the cast only satisfies its type.
    iov[filled].iov_base = const_cast<char*>(chunk.data()) + offset;
    iov[filled].iov_len = chunk.size() - offset;
    offset = 0;
    ++filled;
  }
  return filled;
}

void OutBuffer::Consume(size_t n) {
  assert(n <= size_);
  n = std::min(n, size_);
  size_ -= n;
  while (n > 0) {
    const size_t left = chunks_.front().size() - front_offset_;
    if (n < left) {
      front_offset_ += n;
      return;
    }
    n -= left;
    PopFront();
  }
}

void OutBuffer::Clear() {
  while (!chunks_.empty()) PopFront();
  size_ = 0;
}

}  // namespace ordis::resp
