#include "offload/tier_store.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "persistence/tier_format.h"

namespace ordis::offload {

using persistence::kTierAlign;
using persistence::Status;

namespace {

// Read cookies are told from writes' (a batch's sequence number) by the top bit.
constexpr uint64_t kReadCookie = 1ull << 63;

uint64_t AlignUp(uint64_t bytes) { return bytes + persistence::TierPadding(bytes); }

}  // namespace

Status TierStore::Open(const TierStoreOptions& options, std::unique_ptr<TierStore>* out) {
  if (options.batch_bytes == 0 || options.batch_bytes % kTierAlign != 0 ||
      options.batch_bytes > options.segment_bytes) {
    return Status::Error("tier: the batch size must be a multiple of " +
                         std::to_string(kTierAlign) + " bytes, at most a segment");
  }
  std::unique_ptr<TierFiles> files;
  if (Status st = TierFiles::Open(options.dir, options.segment_bytes, options.max_bytes, &files);
      !st.ok()) {
    return st;
  }
  std::unique_ptr<TierRing> ring;
  if (Status st = TierRing::Create(options.ring_depth, &ring); !st.ok()) return st;
  out->reset(new TierStore(options, std::move(files), std::move(ring)));
  return Status::Ok();
}

TierStore::TierStore(const TierStoreOptions& options, std::unique_ptr<TierFiles> files,
                     std::unique_ptr<TierRing> ring)
    : options_(options), files_(std::move(files)), ring_(std::move(ring)) {
  filling_.reserve(options_.batch_bytes);
}

TierStore::~TierStore() = default;

Status TierStore::Demote(std::string_view key, std::string_view value, TierLocation* at) {
  if (!failed_.empty()) return Status::Error(failed_);
  if (key.size() > persistence::kTierMaxLength || value.size() > persistence::kTierMaxLength) {
    return Status::Error("tier: value too large");
  }
  record_.clear();
  persistence::AppendTierRecord(key, value, &record_);
  if (Status st = Append(record_, at, /*compacting=*/false); !st.ok()) return st;
  ++stats_.demoted;
  stats_.demoted_bytes += value.size();
  return Status::Ok();
}

bool TierStore::Fits(size_t key_size, size_t value_size) const {
  return RecordFits(persistence::kTierRecordHeaderSize + key_size + value_size);
}

bool TierStore::RecordFits(size_t record_size) const {
  return AlignUp(record_size) <= options_.segment_bytes;
}

Status TierStore::Append(std::string_view record, TierLocation* at, bool compacting) {
  const size_t size = record.size();
  if (!RecordFits(size)) {
    return Status::Error("tier: a record of " + std::to_string(size) +
                         " bytes does not fit in a segment");
  }
  if (filling_capacity_ != 0 && filling_.size() + size > filling_capacity_) {
    if (Status st = Flush(); !st.ok()) return st;
  }
  if (filling_capacity_ == 0) {
    const uint64_t capacity = std::max<uint64_t>(options_.batch_bytes, AlignUp(size));
    if (!compacting && files_->capacity() > 1 && files_->free_segments() <= 1 &&
        !files_->ActiveHasRoom(capacity)) {
      return Status::Error("tier: full");
    }
    if (Status st = files_->Reserve(capacity, &filling_segment_, &filling_offset_); !st.ok()) {
      return st;
    }
    filling_capacity_ = capacity;
  }
  at->segment = filling_segment_;
  at->offset = filling_offset_ + filling_.size();
  at->size = static_cast<uint32_t>(size);
  filling_.append(record);
  return Status::Ok();
}

Status TierStore::Flush() {
  if (filling_capacity_ == 0) return Status::Ok();
  const uint64_t length = AlignUp(filling_.size());
  // Padding and the reserved room the batch did not fill hold no record.
  files_->AddGarbage(filling_segment_, filling_capacity_ - filling_.size());
  Batch batch;
  batch.buffer = TierBuffer(length);
  std::memcpy(batch.buffer.data(), filling_.data(), filling_.size());
  std::memset(batch.buffer.data() + filling_.size(), 0, length - filling_.size());
  batch.segment = filling_segment_;
  batch.offset = filling_offset_;
  batch.used = static_cast<uint32_t>(filling_.size());
  filling_.clear();
  filling_capacity_ = 0;
  const uint64_t cookie = next_cookie_++;
  Batch& queued = written_.emplace(cookie, std::move(batch)).first->second;
  MakeRoom();
  if (!ring_->Write(files_->fd(queued.segment), queued.buffer.data(), static_cast<uint32_t>(length),
                    queued.offset, cookie)) {
    OnWritten(cookie, -EAGAIN);
    return Status::Error(failed_);
  }
  if (Status st = ring_->Submit(); !st.ok()) {
    // Left queued: the next submission takes it. The records stay readable meanwhile.
    return st;
  }
  while (written_.size() > options_.max_pending_batches && ring_->in_flight() > 0) {
    ReapWrites(/*wait=*/true);
  }
  return Status::Ok();
}

void TierStore::MakeRoom() {
  while (ring_->in_flight() >= options_.ring_depth) ReapWrites(/*wait=*/true);
}

void TierStore::ReapWrites(bool wait) {
  ring_->Reap([&](uint64_t cookie, int result) { OnWritten(cookie, result); }, wait);
}

void TierStore::OnWritten(uint64_t cookie, int result) {
  auto it = written_.find(cookie);
  if (it == written_.end()) return;  // a read Read gave up waiting for
  Batch& batch = it->second;
  if (result == static_cast<int>(batch.buffer.size())) {
    ++stats_.batches;
    written_.erase(it);
    return;
  }
  // The values are nowhere else: the batch stays in memory, readable, and demotions stop.
  batch.failed = true;
  ++stats_.write_errors;
  if (failed_.empty()) {
    failed_ = "tier: a write failed (" +
              (result < 0 ? std::string(std::strerror(-result))
                          : std::to_string(result) + " of " + std::to_string(batch.buffer.size()) +
                                " bytes") +
              ")";
  }
}

void TierStore::Poll() { ReapWrites(/*wait=*/false); }

Status TierStore::Drain() {
  Status flushed = Flush();
  for (;;) {
    bool pending = false;
    for (const auto& [cookie, batch] : written_) pending = pending || !batch.failed;
    if (!pending || ring_->in_flight() == 0) break;
    if (Status st = ring_->Submit(); !st.ok()) return st;
    ReapWrites(/*wait=*/true);
  }
  return flushed;
}

std::string_view TierStore::InMemory(const TierLocation& at) const {
  auto inside = [&](uint32_t segment, uint64_t offset, uint64_t used) {
    return at.segment == segment && at.offset >= offset && at.offset + at.size <= offset + used;
  };
  if (filling_capacity_ != 0 && inside(filling_segment_, filling_offset_, filling_.size())) {
    return std::string_view(filling_).substr(at.offset - filling_offset_, at.size);
  }
  for (const auto& [cookie, batch] : written_) {
    if (inside(batch.segment, batch.offset, batch.used)) {
      return std::string_view(batch.buffer.data() + (at.offset - batch.offset), at.size);
    }
  }
  return {};
}

Status TierStore::ReadSync(uint32_t segment, uint64_t offset, uint32_t length, int* got) {
  const int fd = files_->fd(segment);
  if (fd < 0) return Status::Error("tier: no segment " + std::to_string(segment));
  if (read_.size() < length) read_ = TierBuffer(length);
  MakeRoom();
  const uint64_t cookie = kReadCookie | next_cookie_++;
  bool done = false;
  Status status = ring_->Read(fd, read_.data(), length, offset, cookie)
                      ? ring_->Submit()
                      : Status::Error("tier: no room to read");
  while (status.ok() && !done) {
    if (ring_->Reap(
            [&](uint64_t c, int result) {
              if (c == cookie) {
                done = true;
                *got = result;
              } else {
                OnWritten(c, result);
              }
            },
            /*wait=*/true) == 0) {
      // The read may still land in the buffer: it is kept, and the tier gives up.
      status = Status::Error("tier: waiting for a read failed");
      orphaned_.push_back(std::move(read_));
      read_ = TierBuffer();
      if (failed_.empty()) failed_ = status.message();
    }
  }
  if (status.ok() && *got < 0) {
    status = Status::Error(std::string("tier: read: ") + std::strerror(-*got));
  }
  return status;
}

Status TierStore::Read(const TierLocation& at, std::string_view key, std::string* value) {
  ++stats_.reads;
  value->clear();
  Status status = Status::Ok();
  if (std::string_view held = InMemory(at); !held.empty()) {
    status = persistence::DecodeTierRecord(held, key, value);
  } else {
    ++stats_.disk_reads;
    const TierSpan span = TierRecordSpan(at);
    int got = 0;
    status = ReadSync(at.segment, span.offset, span.length, &got);
    if (status.ok()) status = DecodeRead(read_.data(), got, span, at, key, value);
  }
  if (!status.ok()) {
    ++stats_.read_errors;
    value->clear();
  }
  return status;
}

Status TierStore::DecodeRead(const char* data, int got, const TierSpan& span,
                             const TierLocation& at, std::string_view key, std::string* value) {
  if (got < 0) return Status::Error(std::string("tier: read: ") + std::strerror(-got));
  if (got < static_cast<int>(span.skip + at.size)) {
    return Status::Error("tier: read " + std::to_string(got) + " of " +
                         std::to_string(span.skip + at.size) + " bytes");
  }
  return persistence::DecodeTierRecord(std::string_view(data + span.skip, at.size), key, value);
}

bool TierStore::DiskSpan(const TierLocation& at, int* fd, uint32_t* generation,
                         TierSpan* span) const {
  if (!InMemory(at).empty()) return false;
  *fd = files_->fd(at.segment);
  if (*fd < 0) return false;
  *generation = files_->generation(at.segment);
  *span = TierRecordSpan(at);
  return true;
}

int64_t TierStore::CompactionCandidate(double min_garbage) const {
  int64_t best = -1;
  uint64_t best_garbage = 0;
  for (uint32_t s = 0; s < files_->capacity(); ++s) {
    const uint64_t written = files_->written(s);
    const uint64_t garbage = files_->garbage(s);
    if (written == 0 || garbage <= best_garbage ||
        static_cast<double>(garbage) < min_garbage * static_cast<double>(written)) {
      continue;
    }
    // Still taking batches, or its records still in memory: left for a later pass.
    bool pending = files_->active() == s || (filling_capacity_ != 0 && filling_segment_ == s);
    for (const auto& [cookie, batch] : written_) pending = pending || batch.segment == s;
    if (pending) continue;
    best = s;
    best_garbage = garbage;
  }
  return best;
}

Status TierStore::Compact(double min_garbage, LiveFn live, MovedFn moved, int64_t* segment) {
  *segment = CompactionCandidate(min_garbage);
  if (*segment < 0) return Status::Ok();
  const auto s = static_cast<uint32_t>(*segment);
  const uint64_t end = files_->written(s);
  auto where = [&](uint64_t offset) {
    return "segment " + std::to_string(s) + " at " + std::to_string(offset);
  };
  // Read in windows of a batch from the next record's block; a record that crosses a window's end
  // starts the next window, which grows to hold a record bigger than a batch.
  uint64_t pos = 0;
  uint64_t want = options_.batch_bytes;
  while (pos < end) {
    const uint64_t base = pos / kTierAlign * kTierAlign;
    const uint64_t length = std::min<uint64_t>(want, end - base);
    want = options_.batch_bytes;
    int got = 0;
    if (Status st = ReadSync(s, base, static_cast<uint32_t>(length), &got); !st.ok()) return st;
    const std::string_view window(read_.data(), static_cast<size_t>(got));
    uint64_t at = pos - base;
    while (window.size() - at >= persistence::kTierRecordHeaderSize) {
      size_t size = 0;
      if (!persistence::PeekTierRecordSize(window.substr(at), &size)) {
        // Padding and room reserved but not filled are zeros to the next block; anything else
        // is damage.
        if (window.substr(at, 4) != std::string_view("\0\0\0\0", 4)) {
          return Status::Error("tier: no record in " + where(base + at));
        }
        const uint64_t pad = persistence::TierPadding(base + at);
        at += pad == 0 ? kTierAlign : pad;
        at = std::min<uint64_t>(at, window.size());
        continue;
      }
      if (at + size > window.size()) {
        if (base + at + size > end) {
          return Status::Error("tier: a record cut off in " + where(base + at));
        }
        if (at == pos - base) want = AlignUp(at + size);  // bigger than a window
        break;
      }
      const std::string_view record = window.substr(at, size);
      std::string_view key;
      std::string value;
      if (Status st = persistence::DecodeTierRecord(record, &key, &value); !st.ok()) {
        return Status::Error("tier: " + where(base + at) + ": " + st.message());
      }
      const TierLocation from{s, static_cast<uint32_t>(size), base + at};
      if (live(key, from)) {
        TierLocation to;
        if (Status st = Append(record, &to, /*compacting=*/true); !st.ok()) return st;
        moved(key, to);
        ++stats_.moved;
      }
      at += size;
    }
    const bool progressed = base + at > pos;
    pos = base + at;
    if (!progressed && want == options_.batch_bytes) {
      // Nothing more to parse: the file ends (a short read), or a record is cut off at its end.
      if (window.size() - (pos - base) >= persistence::kTierRecordHeaderSize) {
        return Status::Error("tier: a record cut off in " + where(pos));
      }
      break;
    }
  }
  if (Status st = files_->Remove(s); !st.ok()) return st;
  ++stats_.compactions;
  return Status::Ok();
}

void TierStore::Release(const TierLocation& at) { files_->AddGarbage(at.segment, at.size); }

TierStore::Stats TierStore::stats() const {
  Stats s = stats_;
  s.pending_batches = written_.size() + (filling_capacity_ != 0 ? 1 : 0);
  return s;
}

}  // namespace ordis::offload
