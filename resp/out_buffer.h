// A connection's pending output: a list of chunks appended at the back and drained from the front
// with writev. Small replies are copied into the current chunk; the chunk size bounds copying work
// per append and the number of iovecs per write.
//
// Thread safety: none; owned by one connection.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace ordis::resp {

class OutBuffer {
 public:
  static constexpr size_t kChunkSize = 16 * 1024;

  void Append(std::string_view bytes);
  void Append(char c);

  // Total bytes not yet written.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Fills up to max_iov iovecs with the front of the pending bytes; returns how many it filled.
  int FillIovec(struct iovec* iov, int max_iov) const;
  // Drops the first n pending bytes (after a write of n bytes).
  void Consume(size_t n);
  void Clear();

 private:
  // Starts a chunk for `bytes`, reusing spare_ when it is a regular chunk.
  void AppendNewChunk(std::string_view bytes);
  // Removes the fully written front chunk, keeping it as spare_ if it is a regular chunk.
  void PopFront();

  // Chunks are never empty. Only the back chunk grows, and only while below kChunkSize; a larger
  // chunk holds a single big append.
  std::deque<std::string> chunks_;
  size_t front_offset_ = 0;  // bytes of chunks_.front() already written
  size_t size_ = 0;
  // A drained chunk kept for the next one, so steady request/reply traffic does not allocate.
  std::string spare_;
};

}  // namespace ordis::resp
