// Reference OrderedStore: std::map under a std::shared_mutex. Simple enough to be obviously
// correct; the learned-index tree is tested against it.
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "index/ordered_store.h"

namespace ordis::index {
namespace {

class MapStore final : public OrderedStore {
 public:
  std::optional<ValueHandle> Get(std::string_view key) const override {
    std::shared_lock lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }

  std::optional<ValueHandle> Put(std::string_view key, ValueHandle value) override {
    std::unique_lock lock(mu_);
    auto it = map_.lower_bound(key);
    if (it != map_.end() && it->first == key) {
      ValueHandle old = it->second;
      it->second = value;
      return old;
    }
    map_.emplace_hint(it, std::string(key), value);
    return std::nullopt;
  }

  std::optional<ValueHandle> Erase(std::string_view key) override {
    std::unique_lock lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    ValueHandle old = it->second;
    map_.erase(it);
    return old;
  }

  // Holds the shared lock for the whole scan, which makes it a consistent snapshot; callers keep
  // scans short (SCAN and KRANGE work in bounded chunks).
  void Scan(const ScanStart& start, Direction direction, ScanVisitor visit) const override {
    std::shared_lock lock(mu_);
    if (direction == Direction::kForward) {
      auto it = start.unbounded  ? map_.begin()
                : start.inclusive ? map_.lower_bound(start.key)
                                  : map_.upper_bound(start.key);
      for (; it != map_.end(); ++it) {
        if (!visit(it->first, it->second)) return;
      }
      return;
    }
    // Reverse: begin just past the last key to visit.
    auto it = start.unbounded  ? map_.end()
              : start.inclusive ? map_.upper_bound(start.key)
                                : map_.lower_bound(start.key);
    while (it != map_.begin()) {
      --it;
      if (!visit(it->first, it->second)) return;
    }
  }

  size_t size() const override {
    std::shared_lock lock(mu_);
    return map_.size();
  }

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, ValueHandle, std::less<>> map_;  // GUARDED_BY(mu_)
};

}  // namespace

std::unique_ptr<OrderedStore> NewMapStore() { return std::make_unique<MapStore>(); }

}  // namespace ordis::index
