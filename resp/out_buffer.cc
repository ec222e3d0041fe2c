#include "resp/out_buffer.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>
#include <utility>

namespace ordis::resp {

void OutBuffer::AppendSlow(std::string_view bytes) {
  if (bytes.empty()) return;
  size_ += bytes.size();
  if (!chunks_.empty()) {
    // Fill the back chunk, then start a new one for the rest.
    Chunk& back = chunks_.back();
    const size_t n = std::min(back.room(), bytes.size());
    std::memcpy(back.data.get() + back.size, bytes.data(), n);
    back.size += n;
    bytes.remove_prefix(n);
    if (bytes.empty()) return;
  }
  // A remainder of kChunkSize or more gets a chunk of exactly its size: one copy, one iovec.
  StartChunk(bytes.size());
  Chunk& back = chunks_.back();
  std::memcpy(back.data.get(), bytes.data(), bytes.size());
  back.size = bytes.size();
}

void OutBuffer::StartChunk(size_t min_room) {
  Chunk chunk;
  if (min_room <= kChunkSize && spare_.capacity == kChunkSize) {
    chunk = std::move(spare_);
    spare_ = Chunk();
    chunk.size = 0;
  } else {
    chunk.capacity = std::max(min_room, kChunkSize);
    chunk.data = std::make_unique_for_overwrite<char[]>(chunk.capacity);
  }
  chunks_.push_back(std::move(chunk));
}

void OutBuffer::PopFront() {
  Chunk& front = chunks_.front();
  if (front.capacity == kChunkSize && spare_.capacity == 0) spare_ = std::move(front);
  chunks_.pop_front();
  front_offset_ = 0;
}

int OutBuffer::FillIovec(struct iovec* iov, int max_iov) const {
  int filled = 0;
  size_t offset = front_offset_;
  for (const Chunk& chunk : chunks_) {
    if (filled == max_iov) break;
    if (chunk.size == offset) break;  // an empty back chunk (reserved, not committed)
    iov[filled].iov_base = chunk.data.get() + offset;
    iov[filled].iov_len = chunk.size - offset;
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
    const size_t left = chunks_.front().size - front_offset_;
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

void OutBuffer::MoveTo(OutBuffer* dst) {
  size_t offset = front_offset_;
  for (const Chunk& chunk : chunks_) {
    dst->Append(std::string_view(chunk.data.get() + offset, chunk.size - offset));
    offset = 0;
  }
  Clear();
}

}  // namespace ordis::resp
