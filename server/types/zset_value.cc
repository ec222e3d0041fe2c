#include "server/types/zset_value.h"

namespace ordis::server {

size_t ZSetValue::size() const {
  return std::visit([](const auto& rep) { return rep.size(); }, rep_);
}

std::optional<double> ZSetValue::Score(std::string_view member) const {
  return std::visit([&](const auto& rep) { return rep.Score(member); }, rep_);
}

bool ZSetValue::Insert(std::string_view member, double score, const ZSetLimits& limits) {
  if (score == 0) score = 0.0;  // -0 is stored as 0, as Redis's listpack stores it
  if (auto* small = std::get_if<ZSetSmall>(&rep_)) {
    const bool fits = member.size() <= limits.max_small_member &&
                      (small->size() < limits.max_small_entries ||
                       (small->size() == limits.max_small_entries && small->Score(member)));
    if (fits) return small->Insert(member, score);
    ZSetTree tree;
    if (small->size() > 0) {
      small->VisitFrom(0, false, [&](std::string_view m, double s) {
        tree.Insert(m, s);
        return true;
      });
    }
    rep_ = std::move(tree);
  }
  return std::get<ZSetTree>(rep_).Insert(member, score);
}

bool ZSetValue::Erase(std::string_view member) {
  return std::visit([&](auto& rep) { return rep.Erase(member); }, rep_);
}

std::optional<size_t> ZSetValue::Rank(std::string_view member) const {
  return std::visit([&](const auto& rep) { return rep.Rank(member); }, rep_);
}

size_t ZSetValue::CountBefore(Before before) const {
  return std::visit([&](const auto& rep) { return rep.CountBefore(before); }, rep_);
}

void ZSetValue::VisitFrom(size_t first, bool reverse, Visit visit) const {
  std::visit([&](const auto& rep) { rep.VisitFrom(first, reverse, visit); }, rep_);
}

void ZSetValue::EraseRanks(size_t first, size_t last) {
  std::visit([&](auto& rep) { rep.EraseRanks(first, last); }, rep_);
}

size_t ZSetValue::MemoryUsage() const {
  return std::visit([](const auto& rep) { return rep.MemoryUsage(); }, rep_);
}

}  // namespace ordis::server
