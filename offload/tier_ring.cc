#include "offload/tier_ring.h"

#include <liburing.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "persistence/tier_format.h"

namespace ordis::offload {

using persistence::kTierAlign;
using persistence::Status;

TierBuffer::TierBuffer(size_t bytes) : size_(bytes) {
  const size_t rounded = (bytes + kTierAlign - 1) / kTierAlign * kTierAlign;
  void* p = std::aligned_alloc(kTierAlign, rounded == 0 ? kTierAlign : rounded);
  if (p == nullptr) throw std::bad_alloc();
  data_.reset(static_cast<char*>(p));
}

void TierBuffer::Free::operator()(char* p) const { std::free(p); }

TierSpan TierRecordSpan(const TierLocation& at) {
  const uint64_t begin = at.offset / kTierAlign * kTierAlign;
  const uint64_t end = (at.offset + at.size + kTierAlign - 1) / kTierAlign * kTierAlign;
  return {begin, static_cast<uint32_t>(end - begin), static_cast<uint32_t>(at.offset - begin)};
}

struct TierRing::Uring {
  io_uring ring;
};

Status TierRing::Create(unsigned depth, std::unique_ptr<TierRing>* out) {
  std::unique_ptr<TierRing> r(new TierRing);
  r->ring_ = std::make_unique<Uring>();
  // Completions run as task work at the submitter's next system call rather than by an
  // interrupt to its CPU (the loop makes one every turn: epoll_wait, read, writev). Kernels
  // before 5.19 refuse the flag: the ring is made without it.
  int err = io_uring_queue_init(depth, &r->ring_->ring, IORING_SETUP_COOP_TASKRUN);
  if (err == -EINVAL) err = io_uring_queue_init(depth, &r->ring_->ring, 0);
  if (err < 0) {
    r->ring_.reset();
    return Status::Error(std::string("tier: io_uring_queue_init: ") + std::strerror(-err));
  }
  r->depth_ = depth;
  r->event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (r->event_fd_ < 0) return Status::Error(std::string("tier: eventfd: ") + std::strerror(errno));
  if (err = io_uring_register_eventfd(&r->ring_->ring, r->event_fd_); err < 0) {
    return Status::Error(std::string("tier: io_uring_register_eventfd: ") + std::strerror(-err));
  }
  *out = std::move(r);
  return Status::Ok();
}

TierRing::~TierRing() {
  if (ring_ != nullptr) {
    // Requests still in flight write into their buffers: wait for them before those go.
    while (in_flight_ > 0) {
      if (io_uring_submit(&ring_->ring) < 0) break;
      if (Reap([](uint64_t, int) {}, /*wait=*/true) == 0) break;  // the wait itself failed
    }
    io_uring_queue_exit(&ring_->ring);
  }
  if (event_fd_ >= 0) close(event_fd_);
}

io_uring_sqe* TierRing::NextSqe() {
  if (in_flight_ >= depth_) return nullptr;
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_->ring);
  if (sqe != nullptr) ++in_flight_;
  return sqe;
}

bool TierRing::Read(int fd, char* buf, uint32_t length, uint64_t offset, uint64_t cookie) {
  io_uring_sqe* sqe = NextSqe();
  if (sqe == nullptr) return false;
  io_uring_prep_read(sqe, fd, buf, length, offset);
  io_uring_sqe_set_data64(sqe, cookie);  // after the prep, which sets the other fields
  return true;
}

bool TierRing::Write(int fd, const char* buf, uint32_t length, uint64_t offset, uint64_t cookie) {
  io_uring_sqe* sqe = NextSqe();
  if (sqe == nullptr) return false;
  io_uring_prep_write(sqe, fd, buf, length, offset);
  io_uring_sqe_set_data64(sqe, cookie);
  return true;
}

Status TierRing::Submit() {
  const int n = io_uring_submit(&ring_->ring);
  if (n < 0) return Status::Error(std::string("tier: io_uring_submit: ") + std::strerror(-n));
  return Status::Ok();
}

size_t TierRing::Reap(absl::FunctionRef<void(uint64_t cookie, int result)> done, bool wait) {
  uint64_t ignored;
  // The eventfd only wakes the loop; the completion queue says what is done.
  while (read(event_fd_, &ignored, sizeof(ignored)) > 0) {
  }
  size_t reaped = 0;
  io_uring_cqe* cqe = nullptr;
  if (wait && in_flight_ > 0 && io_uring_peek_cqe(&ring_->ring, &cqe) != 0) {
    if (io_uring_wait_cqe(&ring_->ring, &cqe) != 0) return 0;
  }
  while (io_uring_peek_cqe(&ring_->ring, &cqe) == 0) {
    const uint64_t cookie = io_uring_cqe_get_data64(cqe);
    const int result = cqe->res;
    io_uring_cqe_seen(&ring_->ring, cqe);
    --in_flight_;
    ++reaped;
    done(cookie, result);
  }
  return reaped;
}

}  // namespace ordis::offload
