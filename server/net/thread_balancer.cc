#include "server/net/thread_balancer.h"

#include <algorithm>

namespace ordis::server {

int ThreadBalancer::Update(std::span<const double> active_cpu, double idle_cores, double ops_per_s,
                           double lock_wait_cores) {
  if (grow_backoff_ > 0) --grow_backoff_;
  if (lock_backoff_ > 0) --lock_backoff_;
  if (settle_windows_ > 0) {
    --settle_windows_;
    return active_;
  }
  if (trial_baseline_ >= 0 && ops_per_s >= 0) {
    trial_sum_ += ops_per_s;
    if (++trial_windows_ < kTrialWindows) return active_;
    const double rate = trial_sum_ / trial_windows_;
    // Whether the count with the extra thread ran kMinGain of the rate without it.
    const bool worth_it =
        trial_grew_ ? rate >= kMinGain * trial_baseline_ : trial_baseline_ >= kMinGain * rate;
    trial_baseline_ = -1;
    if (worth_it) {
      next_backoff_ = kFirstBackoff;
      if (!trial_grew_) {
        // Back to the count that ran faster; the lock starts no trial for a while.
        ++active_;
        lock_backoff_ = next_lock_backoff_;
        next_lock_backoff_ = std::min(2 * next_lock_backoff_, kMaxBackoff);
        settle_windows_ = 1;
        grow_votes_ = shrink_votes_ = lock_votes_ = 0;
        return active_;
      }
    } else {
      if (trial_grew_) --active_;
      if (!trial_grew_) next_lock_backoff_ = kFirstBackoff;
      grow_backoff_ = next_backoff_;
      next_backoff_ = std::min(2 * next_backoff_, kMaxBackoff);
      settle_windows_ = trial_grew_ ? 1 : 0;
      grow_votes_ = shrink_votes_ = lock_votes_ = 0;
      return active_;
    }
  }
  double busiest = 0, total = 0;
  for (double cpu : active_cpu) {
    busiest = std::max(busiest, cpu);
    total += cpu;
  }
  const bool room = idle_cores < 0 || idle_cores >= kIdleToGrow;
  const bool grow = active_ < max_ && busiest >= kSaturated && room && grow_backoff_ == 0;
  const bool shrink = active_ > 1 && total <= kShrinkFill * (active_ - 1);
  const bool lock_bound =
      active_ > 1 && ops_per_s >= 0 && lock_wait_cores >= kLockBound && lock_backoff_ == 0;
  grow_votes_ = grow ? grow_votes_ + 1 : 0;
  shrink_votes_ = shrink ? shrink_votes_ + 1 : 0;
  lock_votes_ = lock_bound ? lock_votes_ + 1 : 0;
  lock_sum_ = lock_votes_ == 0 ? 0 : (lock_votes_ == 1 ? 0 : lock_sum_) + ops_per_s;
  if (grow_votes_ >= kGrowWindows || shrink_votes_ >= kShrinkWindows) {
    const bool grew = grow_votes_ >= kGrowWindows;
    active_ += grew ? 1 : -1;
    grow_votes_ = shrink_votes_ = lock_votes_ = 0;
    settle_windows_ = 1;
    if (grew) StartTrial(true, ops_per_s);
  } else if (lock_votes_ >= kLockWindows) {
    const double baseline = lock_sum_ / lock_votes_;
    --active_;
    grow_votes_ = shrink_votes_ = lock_votes_ = 0;
    settle_windows_ = 1;
    StartTrial(false, baseline);
  }
  return active_;
}

void ThreadBalancer::StartTrial(bool grew, double ops_per_s) {
  if (ops_per_s < 0) return;
  trial_baseline_ = ops_per_s;
  trial_grew_ = grew;
  trial_windows_ = 0;
  trial_sum_ = 0;
}

void ThreadBalancer::Reset(int active) {
  active_ = std::clamp(active, 1, max_);
  grow_votes_ = shrink_votes_ = settle_windows_ = 0;
  trial_baseline_ = -1;
  grow_backoff_ = 0;
  next_backoff_ = kFirstBackoff;
  lock_votes_ = 0;
  lock_backoff_ = 0;
  next_lock_backoff_ = kFirstBackoff;
}

std::vector<ConnectionMove> PlanMoves(std::span<const size_t> assigned, int active) {
  const int n = static_cast<int>(assigned.size());
  active = std::clamp(active, 1, n);
  size_t total = 0;
  for (size_t c : assigned) total += c;
  auto share = [&](int i) -> size_t {
    if (i >= active) return 0;
    return total / active + (static_cast<size_t>(i) < total % active ? 1 : 0);
  };
  std::vector<size_t> surplus(n, 0), deficit(n, 0);
  bool any = false;
  for (int i = 0; i < n; ++i) {
    size_t want = share(i);
    if (assigned[i] > want && (i >= active || assigned[i] - want > want / 4 + 1)) {
      surplus[i] = assigned[i] - want;
      any = true;
    } else if (assigned[i] < want) {
      deficit[i] = want - assigned[i];
    }
  }
  std::vector<ConnectionMove> moves;
  if (!any) return moves;
  int to = 0;
  for (int from = 0; from < n; ++from) {
    while (surplus[from] > 0) {
      while (to < active && deficit[to] == 0) ++to;
      // Every active thread at its share already: the rest go to the least loaded one.
      int target = to < active ? to : 0;
      size_t count = to < active ? std::min(surplus[from], deficit[to]) : surplus[from];
      if (target == from) break;
      moves.push_back({from, target, count});
      surplus[from] -= count;
      if (to < active) deficit[to] -= count;
    }
  }
  return moves;
}

}  // namespace ordis::server
