// A connection's pending output: a list of chunks appended at the back and drained from the front
// with writev. Small replies are copied into the current chunk; the chunk size bounds copying work
// per append and the number of iovecs per write.
//
// Thread safety: none; owned by one connection.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <string_view>

namespace ordis::resp {

class OutBuffer {
 public:
  static constexpr size_t kChunkSize = 16 * 1024;

  void Append(std::string_view bytes) {
    if (!chunks_.empty() && bytes.size() <= chunks_.back().room()) {
      Chunk& back = chunks_.back();
      std::memcpy(back.data.get() + back.size, bytes.data(), bytes.size());
      back.size += bytes.size();
      size_ += bytes.size();
      return;
    }
    AppendSlow(bytes);
  }
  void Append(char c) { Append(std::string_view(&c, 1)); }

  // Room for up to n bytes (n <= kChunkSize) at the end, for a reply formatted in place: write
  // at most n bytes at the returned pointer, then Commit how many were written. Nothing may be
  // appended in between. Saves the copy out of a scratch buffer on the small-reply path.
  char* Reserve(size_t n) {
    if (chunks_.empty() || chunks_.back().room() < n) StartChunk(n);
    Chunk& back = chunks_.back();
    return back.data.get() + back.size;
  }
  void Commit(size_t n) {
    chunks_.back().size += n;
    size_ += n;
  }

  // Total bytes not yet written.
  size_t size() const { return size_; }
  // Chunks holding them (CLIENT LIST's reply buffer and list).
  size_t chunks() const { return chunks_.size(); }
  bool empty() const { return size_ == 0; }

  // Fills up to max_iov iovecs with the front of the pending bytes; returns how many it filled.
  int FillIovec(struct iovec* iov, int max_iov) const;
  // Drops the first n pending bytes (after a write of n bytes).
  void Consume(size_t n);
  void Clear();
  // Appends every pending byte to dst and leaves this buffer empty.
  void MoveTo(OutBuffer* dst);

 private:
  // A fixed allocation filled from the front (a std::string would zero what resize adds and check
  // its capacity on every append).
  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t size = 0;
    size_t capacity = 0;
    size_t room() const { return capacity - size; }
  };

  void AppendSlow(std::string_view bytes);
  // Starts a chunk with room for at least min_room bytes, reusing spare_ when it is regular.
  void StartChunk(size_t min_room);
  // Removes the fully written front chunk, keeping it as spare_ if it is a regular chunk.
  void PopFront();

  // Only the back chunk grows. A regular chunk has kChunkSize bytes; a larger one holds a single
  // big append. The back chunk may be empty (after Reserve, before Commit).
  std::deque<Chunk> chunks_;
  size_t front_offset_ = 0;  // bytes of chunks_.front() already written
  size_t size_ = 0;
  // A drained regular chunk kept for the next one, so steady request/reply traffic does not
  // allocate.
  Chunk spare_;
};

}  // namespace ordis::resp
