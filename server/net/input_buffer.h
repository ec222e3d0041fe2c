// A connection's unparsed input: contiguous bytes the parser reads in place. Unlike std::string,
// growing it for a read does not zero the new space (that memset cost 3.7% of CPU at -P 1).
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

namespace ordis::server {

class InputBuffer {
 public:
  InputBuffer() = default;
  ~InputBuffer() { std::free(data_); }
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;

  // Unconsumed bytes.
  std::string_view view() const { return {data_ + start_, end_ - start_}; }
  size_t size() const { return end_ - start_; }
  size_t capacity() const { return capacity_; }
  void Consume(size_t n) {
    start_ += n;
    if (start_ == end_) start_ = end_ = 0;
  }

  // Room for at least n more bytes at WritePtr(), moving unconsumed bytes to the front first.
  char* Reserve(size_t n) {
    if (start_ > 0 && end_ + n > capacity_) {
      std::memmove(data_, data_ + start_, end_ - start_);
      end_ -= start_;
      start_ = 0;
    }
    if (end_ + n > capacity_) {
      size_t cap = capacity_ ? capacity_ : 16 * 1024;
      while (cap < end_ + n) cap *= 2;
      char* grown = static_cast<char*>(std::realloc(data_, cap));
      if (grown == nullptr) std::abort();
      data_ = grown;
      capacity_ = cap;
    }
    return data_ + end_;
  }
  void Commit(size_t n) { end_ += n; }

  // Returns memory after a large request, so an idle connection does not keep megabytes.
  void ShrinkIfIdle() {
    if (start_ == end_ && capacity_ > 64 * 1024) {
      std::free(data_);
      data_ = nullptr;
      capacity_ = start_ = end_ = 0;
    }
  }

 private:
  char* data_ = nullptr;
  size_t capacity_ = 0;
  size_t start_ = 0;
  size_t end_ = 0;
};

}  // namespace ordis::server
