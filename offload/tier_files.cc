#include "offload/tier_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "persistence/tier_format.h"

namespace ordis::offload {

using persistence::Status;

namespace {

constexpr std::string_view kPrefix = "tier-";
constexpr std::string_view kSuffix = ".seg";

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace

TierFiles::TierFiles(std::string dir, uint64_t segment_bytes, uint32_t segments)
    : dir_(std::move(dir)), segment_bytes_(segment_bytes), slots_(segments) {}

TierFiles::~TierFiles() {
  for (Slot& s : slots_) {
    if (int fd = s.fd.load(std::memory_order_relaxed); fd >= 0) close(fd);
  }
}

Status TierFiles::Open(const std::string& dir, uint64_t segment_bytes, uint64_t max_bytes,
                       std::unique_ptr<TierFiles>* out) {
  using persistence::kTierAlign;
  if (segment_bytes == 0 || segment_bytes % kTierAlign != 0 || max_bytes < segment_bytes) {
    return Status::Error("tier: segment size must be a positive multiple of " +
                         std::to_string(kTierAlign) + " and at most the tier's size");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error("tier: can't create " + dir + ": " + ec.message());
  // What an earlier run left: its values are in the snapshot or log, not here.
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(kPrefix) && name.ends_with(kSuffix)) {
      std::filesystem::remove(entry.path(), ec);
      if (ec)
        return Status::Error("tier: can't remove " + entry.path().string() + ": " + ec.message());
    }
  }
  if (ec) return Status::Error("tier: can't list " + dir + ": " + ec.message());
  out->reset(new TierFiles(dir, segment_bytes, static_cast<uint32_t>(max_bytes / segment_bytes)));
  return Status::Ok();
}

std::string TierFiles::PathOf(uint32_t segment) const {
  return dir_ + "/" + std::string(kPrefix) + std::to_string(segment) + std::string(kSuffix);
}

Status TierFiles::Create(uint32_t segment) {
  const std::string path = PathOf(segment);
  int fd = -1;
  if (direct_) {
    fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0600);
    // A file system without direct I/O (tmpfs) says EINVAL: buffered from then on.
    if (fd < 0 && errno == EINVAL) direct_ = false;
  }
  if (fd < 0 && !direct_) fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Error("tier: can't create " + path + ": " + ErrnoText(errno));
  slots_[segment].fd.store(fd, std::memory_order_release);
  return Status::Ok();
}

Status TierFiles::Reserve(uint64_t bytes, uint32_t* segment, uint64_t* offset) {
  if (bytes % persistence::kTierAlign != 0 || bytes > segment_bytes_) {
    return Status::Error("tier: a batch of " + std::to_string(bytes) + " bytes does not fit");
  }
  if (active_ < 0 ||
      slots_[active_].written.load(std::memory_order_relaxed) + bytes > segment_bytes_) {
    active_ = -1;
    for (uint32_t s = 0; s < slots_.size(); ++s) {
      if (slots_[s].fd.load(std::memory_order_relaxed) < 0) {
        if (Status st = Create(s); !st.ok()) return st;
        active_ = s;
        break;
      }
    }
    if (active_ < 0) return Status::Error("tier: full");
  }
  Slot& slot = slots_[active_];
  *segment = static_cast<uint32_t>(active_);
  *offset = slot.written.fetch_add(bytes, std::memory_order_relaxed);
  used_.fetch_add(bytes, std::memory_order_relaxed);
  return Status::Ok();
}

uint32_t TierFiles::free_segments() const {
  uint32_t free = 0;
  for (const Slot& slot : slots_) free += slot.fd.load(std::memory_order_relaxed) < 0 ? 1 : 0;
  return free;
}

int TierFiles::fd(uint32_t segment) const {
  return segment < slots_.size() ? slots_[segment].fd.load(std::memory_order_acquire) : -1;
}

void TierFiles::AddGarbage(uint32_t segment, uint64_t bytes) {
  slots_[segment].garbage.fetch_add(bytes, std::memory_order_relaxed);
  garbage_.fetch_add(bytes, std::memory_order_relaxed);
}

uint64_t TierFiles::written(uint32_t segment) const {
  return slots_[segment].written.load(std::memory_order_relaxed);
}

uint64_t TierFiles::garbage(uint32_t segment) const {
  return slots_[segment].garbage.load(std::memory_order_relaxed);
}

Status TierFiles::Remove(uint32_t segment) {
  Slot& slot = slots_[segment];
  const int fd = slot.fd.exchange(-1, std::memory_order_acq_rel);
  if (fd < 0) return Status::Ok();
  slot.generation.fetch_add(1, std::memory_order_acq_rel);
  close(fd);
  used_.fetch_sub(slot.written.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
  garbage_.fetch_sub(slot.garbage.exchange(0, std::memory_order_relaxed),
                     std::memory_order_relaxed);
  if (active_ == static_cast<int64_t>(segment)) active_ = -1;
  const std::string path = PathOf(segment);
  if (unlink(path.c_str()) != 0) {
    return Status::Error("tier: can't remove " + path + ": " + ErrnoText(errno));
  }
  return Status::Ok();
}

}  // namespace ordis::offload
