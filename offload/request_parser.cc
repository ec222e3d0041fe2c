#include "offload/request_parser.h"

namespace ordis::offload {

void RequestParser::Add(int db, std::string_view key, KeyOp op) {
  auto [it, added] = seen_.try_emplace({db, key}, uses_.size());
  if (added) {
    uses_.push_back({{db, key}, NeedsValue(op), op == KeyOp::kOverwrite});
    return;
  }
  // Once the batch overwrote the key, its later uses see what the batch wrote.
  Use& use = uses_[it->second];
  if (use.overwritten) return;
  use.needs_value = use.needs_value || NeedsValue(op);
  use.overwritten = op == KeyOp::kOverwrite;
}

void RequestParser::BeginTransaction() { transaction_start_ = uses_.size(); }

void RequestParser::DiscardTransaction() {
  if (transaction_start_ == SIZE_MAX) return;
  for (size_t i = transaction_start_; i < uses_.size(); ++i) {
    seen_.erase(std::pair{uses_[i].key.db, uses_[i].key.key});
  }
  uses_.resize(transaction_start_);
  transaction_start_ = SIZE_MAX;
}

std::span<const KeyUse> RequestParser::Needed() {
  needed_.clear();
  for (const Use& use : uses_) {
    if (use.needs_value) needed_.push_back(use.key);
  }
  return needed_;
}

void RequestParser::Clear() {
  uses_.clear();
  seen_.clear();
  transaction_start_ = SIZE_MAX;
}

}  // namespace ordis::offload
