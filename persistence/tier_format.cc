#include "persistence/tier_format.h"

#include <lz4.h>
#include <xxhash.h>

#include "base/coding.h"

namespace ordis::persistence {
namespace {

struct Header {
  uint32_t key_len = 0;
  uint32_t stored_len = 0;
  uint32_t raw_len = 0;
  uint64_t checksum = 0;
};

// The header of a record at `in`, when it has one whose lengths are in range.
bool ReadHeader(std::string_view in, Header* h) {
  if (in.size() < kTierRecordHeaderSize) return false;
  const char* p = in.data();
  if (DecodeFixed32(p) != kTierMagic) return false;
  h->key_len = DecodeFixed32(p + 4);
  h->stored_len = DecodeFixed32(p + 8);
  h->raw_len = DecodeFixed32(p + 12);
  h->checksum = DecodeFixed64(p + 16);
  // lz4 neither grows a value past its bound nor shrinks it more than 255-fold.
  return h->key_len <= kTierMaxLength && h->stored_len <= kTierMaxLength &&
         h->raw_len <= kTierMaxLength &&
         (h->raw_len == 0 || (h->stored_len <= static_cast<uint32_t>(LZ4_compressBound(
                                                   static_cast<int>(h->raw_len))) &&
                              h->raw_len <= 255ull * h->stored_len + 16));
}

// The key and the stored bytes follow the checksum field: hashed with the header's own hash as the
// seed, so both contiguous ranges are covered without a streaming state.
uint64_t Checksum(const char* header16, std::string_view key_and_stored) {
  return XXH64(key_and_stored.data(), key_and_stored.size(), XXH64(header16, 16, 0));
}

}  // namespace

size_t AppendTierRecord(std::string_view key, std::string_view value, std::string* dst) {
  const size_t start = dst->size();
  dst->resize(start + kTierRecordHeaderSize);
  dst->append(key);
  // Compressed straight into place, kept only if it saves an eighth.
  uint32_t raw_len = 0;
  size_t stored_len = value.size();
  if (value.size() >= kTierMinCompress) {
    const size_t at = dst->size();
    const int bound = LZ4_compressBound(static_cast<int>(value.size()));
    dst->resize(at + static_cast<size_t>(bound));
    const int n =
        LZ4_compress_default(value.data(), dst->data() + at, static_cast<int>(value.size()), bound);
    if (n > 0 && static_cast<size_t>(n) <= value.size() - value.size() / 8) {
      raw_len = static_cast<uint32_t>(value.size());
      stored_len = static_cast<size_t>(n);
    }
    dst->resize(raw_len != 0 ? at + stored_len : at);
  }
  if (raw_len == 0) dst->append(value);
  char* h = dst->data() + start;
  EncodeFixed32(h, kTierMagic);
  EncodeFixed32(h + 4, static_cast<uint32_t>(key.size()));
  EncodeFixed32(h + 8, static_cast<uint32_t>(stored_len));
  EncodeFixed32(h + 12, raw_len);
  EncodeFixed64(h + 16, Checksum(h, std::string_view(dst->data() + start + kTierRecordHeaderSize,
                                                     key.size() + stored_len)));
  return dst->size() - start;
}

bool PeekTierRecordSize(std::string_view in, size_t* size) {
  Header h;
  if (!ReadHeader(in, &h)) return false;
  *size = kTierRecordHeaderSize + size_t{h.key_len} + h.stored_len;
  return true;
}

Status DecodeTierRecord(std::string_view in, std::string_view* key, std::string* value) {
  Header h;
  if (!ReadHeader(in, &h)) {
    return Status::Error(in.size() < kTierRecordHeaderSize ? "tier record: truncated header"
                                                           : "tier record: bad header");
  }
  const size_t size = kTierRecordHeaderSize + size_t{h.key_len} + h.stored_len;
  if (in.size() < size) return Status::Error("tier record: truncated");
  const std::string_view k = in.substr(kTierRecordHeaderSize, h.key_len);
  const std::string_view stored = in.substr(kTierRecordHeaderSize + h.key_len, h.stored_len);
  if (Checksum(in.data(), in.substr(kTierRecordHeaderSize, h.key_len + size_t{h.stored_len})) !=
      h.checksum) {
    return Status::Error("tier record: checksum mismatch");
  }
  if (h.raw_len == 0) {
    value->assign(stored);
  } else {
    value->resize(h.raw_len);
    const int n = LZ4_decompress_safe(stored.data(), value->data(), static_cast<int>(stored.size()),
                                      static_cast<int>(h.raw_len));
    if (n < 0 || static_cast<uint32_t>(n) != h.raw_len) {
      value->clear();
      return Status::Error("tier record: corrupt lz4 block");
    }
  }
  *key = k;
  return Status::Ok();
}

Status DecodeTierRecord(std::string_view in, std::string_view expected_key, std::string* value) {
  std::string_view key;
  Status status = DecodeTierRecord(in, &key, value);
  if (status.ok() && key != expected_key) {
    value->clear();
    return Status::Error("tier record: holds another key");
  }
  return status;
}

}  // namespace ordis::persistence
