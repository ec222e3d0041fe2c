// The packed containers Redis writes inside RDB values as opaque strings: listpacks (Redis 7),
// ziplists (Redis 6 and older) and intsets. Formats as Redis 7.0 defines them (listpack.c,
// ziplist.c, intset.c); the code is ours.
//
// Readers walk untrusted bytes: every length and offset is checked against the blob before it is
// used, and a malformed blob ends the walk with ok() false, never a read outside it. Integers are
// handed out as their decimal text (Redis's ll2string), which is how every caller stores them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ordis::persistence::rdb {

// Builds a listpack the way Redis's lpAppend does, byte for byte: an element that is the canonical
// text of an int64 (string2ll) takes the smallest integer encoding, anything else a string one.
class ListpackWriter {
 public:
  ListpackWriter();
  void Append(std::string_view element);
  void AppendInt(int64_t v);
  size_t count() const { return count_; }
  // Bytes the finished listpack will have.
  size_t bytes() const { return body_.size() + 1; }
  // The listpack: header (total bytes, count; 65535 once the count no longer fits), entries, end.
  std::string Finish();

 private:
  std::string body_;
  size_t count_ = 0;
};

// The elements of a listpack, front to back.
class ListpackReader {
 public:
  explicit ListpackReader(std::string_view lp);
  // The next element into *element (backed by the blob or by this reader), or false at the end or
  // on malformed bytes (then ok() is false).
  bool Next(std::string_view* element);
  bool ok() const { return ok_; }
  // The element count the header claims (65535: unknown).
  uint32_t header_count() const { return header_count_; }

 private:
  std::string_view lp_;
  size_t pos_ = 0;
  uint32_t header_count_ = 0;
  uint32_t read_ = 0;
  bool ok_ = true;
  bool done_ = false;
  char digits_[24];
};

// The elements of a ziplist, front to back (Redis <= 6's small lists, hashes and sorted sets).
class ZiplistReader {
 public:
  explicit ZiplistReader(std::string_view zl);
  bool Next(std::string_view* element);
  bool ok() const { return ok_; }

 private:
  std::string_view zl_;
  size_t pos_ = 0;
  bool ok_ = true;
  bool done_ = false;
  char digits_[24];
};

// An intset's members in ascending order. Members must strictly ascend; a blob whose do not is
// malformed (Redis's intsetValidateIntegrity with deep checks).
class IntsetReader {
 public:
  explicit IntsetReader(std::string_view is);
  bool Next(std::string_view* member);
  bool ok() const { return ok_; }
  uint32_t size() const { return size_; }

 private:
  std::string_view is_;
  uint32_t width_ = 0;
  uint32_t size_ = 0;
  uint32_t index_ = 0;
  int64_t last_ = 0;
  bool ok_ = true;
  char digits_[24];
};

// An intset of values (in any order, no repeats): sorted, in the smallest width that holds them
// all, as Redis's intsetAdd builds one.
std::string BuildIntset(std::vector<int64_t> values);

}  // namespace ordis::persistence::rdb
